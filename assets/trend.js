// The series page's script (templates/series.html loads it after the page's data, the JSON of
// site::trend::data): written once per site as assets/trend.<hash>.js, not into every page.
(function () {
  // Draws zoomed, log-scale and overlaid views of the chart above from the page's data
  // (site::trend::data), with every mark the built chart has: levels and their noise bands,
  // the min–max band, change points, breaks, unstable stretches, notes, run numbers and dates,
  // and a legend when other series are overlaid. The geometry is site::trend::svg's.
  var f = document.querySelector('figure.trend-figure'), form = document.getElementById('trend-controls');
  if (!f || !form) return;
  var orig = f.querySelector('svg.trend');
  if (!orig) return;
  var all = JSON.parse(document.getElementById('trend-points').textContent), pts = all.points, tip = f.querySelector('.tip');
  // What each run is (commit, date, id, message): the suite's runs.js, read before this script
  // (site::trend::runs_script); a run it does not know yet (a cached older copy) shows its number.
  var runs = {}, prefix = '';
  if (window.perfhouseRunsData) { prefix = window.perfhouseRunsData.prefix; window.perfhouseRunsData.runs.forEach(function (r) { runs[r[0]] = r; }); }
  function run(i) { return runs[pts[i][0]] || [pts[i][0], '', '', null, '']; }
  var n = pts.length;
  if (n < 2) return;
  var NS = 'http://www.w3.org/2000/svg', W = 720, H = 340, R = 16, TOP = 16, B = 60;
  var BLUE = '#0072b2', ORANGE = '#e69f00', GREEN = '#009e73', VERMILION = '#d55e00';
  var COL = [ORANGE, GREEN, '#cc79a7', '#56b4e9', VERMILION, '#f0e442', '#000000', '#7f7f7f'];
  var view = null, viewLegend = null, cur;
  function builtGeometry() { cur = { a: +orig.dataset.from, b: n - 1, L: +orig.dataset.left, PW: +orig.dataset.plot }; }
  builtGeometry();
  var first = pts[0][0], last = pts[n - 1][0], start = pts[all.from][0];
  [form.from, form.to].forEach(function (i) { i.min = first; i.max = last; });
  form.from.value = start; form.to.value = last;
  form.full.hidden = !all.from;
  var box = form.querySelector('.overlay');
  all.overlay.forEach(function (o, k) {
    var l = document.createElement('label'), c = document.createElement('input'), sw = document.createElement('span');
    c.type = 'checkbox'; c.name = 'overlay'; c.value = k; sw.className = 'swatch'; sw.style.borderColor = COL[k % COL.length];
    l.appendChild(c); l.appendChild(sw); l.appendChild(document.createTextNode(o.label)); box.appendChild(l);
  });
  box.hidden = !all.overlay.length;
  form.hidden = false;
  function el(name, attrs, parent, text) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function titled(e, text) { el('title', {}, e, text); return e; }
  // The index of the first run numbered r or later (n when none).
  function idx(r) { var lo = 0, hi = n; while (lo < hi) { var m = (lo + hi) >> 1; if (pts[m][0] < r) lo = m + 1; else hi = m; } return lo; }
  // Where run r sits on this series' axis (an overlay's run between two of ours: between them).
  function pos(r) {
    var i = idx(r);
    if (i < n && pts[i][0] === r) return i;
    if (i === 0) return r - pts[0][0];
    if (i >= n) return n - 1 + (r - last);
    return i - 1 + (r - pts[i - 1][0]) / (pts[i][0] - pts[i - 1][0]);
  }
  // The unit step (ms, MiB) a magnitude reads best in, as site::present::unit_step picks it.
  function step(m) {
    var s = all.steps ? all.steps[0] : [1, all.unit];
    (all.steps || []).forEach(function (x) { if (m >= x[0] * (1 - 1e-9)) s = x; });
    return s;
  }
  function nice(lo, hi, k) {
    var raw = (hi - lo) / k, mag = Math.pow(10, Math.floor(Math.log10(raw))), st = 10 * mag, out = [];
    [1, 2, 5].some(function (m) { if (m * mag >= raw) { st = m * mag; return true; } return false; });
    for (var t = Math.ceil(lo / st) * st; t <= hi + st * 1e-9; t += st) out.push(+t.toPrecision(12));
    return out;
  }
  function fmt(v) { var a = Math.abs(v); return a === 0 ? '0' : (a >= 1e6 || a < 1e-3) ? v.toExponential(2) : String(+v.toPrecision(4)); }
  function quantity(v) { if (v === null) return '—'; var s = step(Math.abs(v)); return fmt(v / s[0]) + (s[1] ? ' ' + s[1] : ''); }
  function pct(d) { var r = Math.round(d * 1000) / 10; return r === 0 ? '0.0%' : (r > 0 ? '+' : '') + r.toFixed(1) + '%'; }
  function ok(v, log) { return v !== null && isFinite(v) && (!log || v > 0); }
  function checked() { var on = []; form.querySelectorAll('input[name=overlay]:checked').forEach(function (c) { on.push(+c.value); }); return on; }
  function draw() {
    var ra = +form.from.value || first, rb = +form.to.value || last, log = form.log.checked;
    if (rb < ra) { var t = ra; ra = rb; rb = t; }
    var ia = Math.min(idx(ra), n - 1), ib = Math.max(ia, Math.min(idx(rb + 1) - 1, n - 1));
    if (ib === ia && ia > 0) ia--;
    var lines = [{ pts: [], col: BLUE, main: true, label: 'this series' }], on = checked();
    for (var i = ia; i <= ib; i++) lines[0].pts.push([i, pts[i][1]]);
    on.forEach(function (k) {
      var o = all.overlay[k], l = { pts: [], col: COL[k % COL.length], label: o.label };
      o.points.forEach(function (p) { var x = pos(p[0]); if (x >= ia - 1e-9 && x <= ib + 1e-9) l.pts.push([x, p[1]]); });
      lines.push(l);
    });
    var T = TOP, PH = H - T - B;
    var ys = [], tv = function (v) { return log ? Math.log10(v) : v; };
    lines.forEach(function (l) { l.pts.forEach(function (p) { if (ok(p[1], log)) ys.push(tv(p[1])); }); });
    if (all.range) for (i = ia; i <= ib; i++) { var rg = all.range[i]; if (rg) rg.forEach(function (v) { if (ok(v, log)) ys.push(tv(v)); }); }
    if (!ys.length) return;
    var lo = Math.min.apply(null, ys), hi = Math.max.apply(null, ys);
    // A flat stretch gets an axis 5 % (or, at 0, one unit) around it, as site::trend::svg.
    if (hi - lo <= Math.max(Math.abs(hi), Math.abs(lo)) * 1e-9) { var ar = Math.abs(hi) * 0.05 || 1; lo -= ar; hi += ar; }
    var pad = Math.max((hi - lo) * 0.08, Math.abs(hi) * 0.01) || 1;
    lo -= pad; hi += pad;
    var su = step(log ? Math.pow(10, hi) : Math.max(Math.abs(lo), Math.abs(hi))), fac = su[0], yt, labels;
    if (log) {
      // Round values (1, 2, 5 × 10^k; every digit on a narrow range) at their log positions.
      yt = [];
      [[1, 2, 5], [1, 2, 3, 4, 5, 6, 7, 8, 9]].some(function (ms) {
        var out = [];
        for (var k = Math.floor(lo) - 1; k <= Math.ceil(hi); k++) ms.forEach(function (m) { var v = Math.log10(m) + k; if (v >= lo && v <= hi) out.push(v); });
        if (out.length >= 2) yt = out;
        return out.length >= 3;
      });
      if (!yt.length) yt = [lo, hi];
      labels = yt.map(function (v) { return fmt(Math.pow(10, v) / fac); });
    } else {
      yt = nice(lo / fac, hi / fac, 5);
      labels = yt.map(fmt);
      yt = yt.map(function (v) { return v * fac; });
    }
    var L = Math.max(64, 30 + 12.5 * Math.max.apply(null, labels.map(function (s) { return s.length; }))), PW = W - L - R;
    var X = function (x) { return L + (ib > ia ? (x - ia) / (ib - ia) * PW : PW / 2); };
    var Y = function (v) { return T + (hi - Math.min(hi, Math.max(lo, tv(v)))) / (hi - lo) * PH; };
    var cx = function (x) { return Math.min(L + PW, Math.max(L, x)); };
    var s = el('svg', { 'class': 'trend', viewBox: '0 0 ' + W + ' ' + H, width: W, height: H, role: 'img', 'font-family': 'sans-serif', 'font-size': 11 });
    el('title', {}, s, orig.querySelector('title').textContent + ', runs #' + pts[ia][0] + ' to #' + pts[ib][0] + (log ? ', log scale' : ''));
    el('rect', { x: L, y: T, width: PW, height: PH, fill: '#fff', stroke: '#ddd' }, s);
    yt.forEach(function (v, k) {
      var yy = log ? T + (hi - v) / (hi - lo) * PH : Y(v);
      el('line', { x1: L, x2: L + PW, y1: yy, y2: yy, stroke: '#eee' }, s);
      el('text', { x: L - 6, y: yy, dy: '.35em', 'text-anchor': 'end', fill: '#555' }, s, labels[k]);
    });
    el('text', { transform: 'translate(2 ' + (T + PH / 2) + ') rotate(-90)', dy: '.8em', 'text-anchor': 'middle', fill: '#555' }, s, (su[1] || 'value') + (log ? ' (log scale)' : ''));
    // Five labels, three under ten runs, as site::trend::svg places them.
    var m = ib - ia + 1, k = m < 10 ? Math.min(m, 3) : 5;
    for (var j = 0, prev = -1; j < k; j++) {
      var xi = ia + (k > 1 ? Math.round(j * (m - 1) / (k - 1)) : 0);
      if (xi === prev) continue;
      prev = xi;
      var g = el('g', j % 2 ? { 'class': 'minor' } : {}, s), xx = X(xi), anchor = m > 1 && xi === ia ? 'start' : m > 1 && xi === ib ? 'end' : 'middle';
      el('line', { x1: xx, x2: xx, y1: T + PH, y2: T + PH + 4, stroke: '#999' }, g);
      var tx = el('text', { x: xx, y: T + PH + 4, 'text-anchor': anchor, fill: '#333' }, g);
      el('tspan', { dy: '1em' }, tx, '#' + pts[xi][0]);
      el('tspan', { x: xx, dy: '1.2em', fill: '#777' }, tx, run(xi)[2]);
    }
    el('text', { 'class': 'minor', x: L + PW / 2, y: H - 4, 'text-anchor': 'middle', fill: '#555' }, s, 'run (in order; number and date)');
    if (all.range) {
      var up = '', down = '';
      for (i = ia; i <= ib; i++) {
        var q = all.range[i];
        if (!q || !ok(q[0], log) || !ok(q[1], log)) continue;
        up += (up ? 'L' : 'M') + X(i).toFixed(1) + ',' + Y(q[1]).toFixed(1);
        down = 'L' + X(i).toFixed(1) + ',' + Y(q[0]).toFixed(1) + down;
      }
      if (up) titled(el('path', { d: up + down + 'Z', fill: BLUE, 'fill-opacity': 0.15 }, s), "min–max over each run's repeats");
    }
    all.levels.forEach(function (lv) {
      var a = Math.max(lv[0], ia), b = Math.min(lv[1] - 1, ib);
      if (b < a || !ok(lv[2], log)) return;
      var x0 = X(a), x1 = X(b), text = quantity(lv[2]);
      if (lv[3] > 0 && (!log || lv[2] * (1 - lv[3]) > 0)) {
        var top = Y(lv[2] * (1 + lv[3])), bottom = Y(lv[2] * (1 - lv[3]));
        titled(el('rect', { x: x0.toFixed(1), y: top.toFixed(1), width: Math.max(1, x1 - x0).toFixed(1), height: Math.max(0.5, bottom - top).toFixed(1), fill: ORANGE, 'fill-opacity': 0.1 }, s),
          'noise band of this level: ' + text + ' ± ' + (lv[3] * 100).toFixed(1) + '% (99% of unchanged runs fall inside)');
      }
      var yy = Y(lv[2]).toFixed(1);
      titled(el('line', { x1: x0.toFixed(1), x2: x1.toFixed(1), y1: yy, y2: yy, stroke: '#444', 'stroke-width': 1, 'stroke-opacity': 0.6 }, s), 'segment level (median) ' + text);
    });
    all.unstable.forEach(function (u) {
      if (u[1] - 1 < ia || u[0] > ib) return;
      var x0 = cx(X(u[0] - 0.5)), x1 = cx(X(Math.min(u[1] - 1, ib) + 0.5));
      titled(el('rect', { 'class': 'unstable', x: x0.toFixed(1), y: T, width: Math.max(1, x1 - x0).toFixed(1), height: PH, fill: '#7f7f7f', 'fill-opacity': 0.08 }, s),
        'unstable from #' + pts[u[0]][0] + ': the series switches between two levels here; no change point is called inside');
      if (u[0] >= ia) titled(el('line', { 'class': 'distribution-change', x1: x0.toFixed(1), x2: x0.toFixed(1), y1: T, y2: T + PH, stroke: '#cc79a7', 'stroke-width': 2, 'stroke-dasharray': '1 3' }, s),
        'distribution change at #' + pts[u[0]][0] + ': unstable from here');
    });
    // Drifts: each the sloped line it is, cut to the view.
    (all.drifts || []).forEach(function (d) {
      var a = d[0], last = d[1] - 1, fit = function (i) { return d[2] + (d[3] - d[2]) * (i - a) / Math.max(1, last - a); };
      var i0 = Math.max(a, ia), i1 = Math.min(last, ib);
      if (i1 < i0 || !ok(fit(i0), log) || !ok(fit(i1), log)) return;
      titled(el('line', { 'class': 'drift', x1: X(i0).toFixed(1), x2: X(i1).toFixed(1), y1: Y(fit(i0)).toFixed(1), y2: Y(fit(i1)).toFixed(1), stroke: d[4] ? VERMILION : GREEN, 'stroke-width': 3, 'stroke-opacity': 0.8 }, s),
        'drift ' + pct(d[3] / d[2] - 1) + ' from #' + pts[a][0] + ' to #' + pts[last][0] + ': one finding, not a chain of change points');
    });
    all.breaks.forEach(function (i) {
      if (i <= ia || i > ib) return;
      var xx = X(i - 0.5).toFixed(1);
      titled(el('line', { 'class': 'break', x1: xx, x2: xx, y1: T, y2: T + PH, stroke: '#969696', 'stroke-dasharray': '2 3' }, s),
        "known break before #" + pts[i][0] + ": the benchmark's code or the machine changed (or a change was accepted as the new baseline)");
    });
    all.changes.forEach(function (c) {
      if (c[0] < ia || c[0] > ib) return;
      var xx = X(c[0]).toFixed(1), p = run(c[0]);
      titled(el('line', { 'class': 'change', x1: xx, x2: xx, y1: T, y2: T + PH, stroke: c[1] ? VERMILION : GREEN, 'stroke-width': 2, 'stroke-dasharray': '6 4' }, s),
        (c[1] ? 'regression ' : 'improvement ') + pct(c[2]) + ' at #' + p[0] + (p[1] ? ' (commit ' + p[1] + ')' : ''));
    });
    lines.slice().reverse().forEach(function (l) {
      var d = '', dots = '', pen = false;
      l.pts.forEach(function (p) {
        if (!ok(p[1], log)) { pen = false; return; }
        if (l.main && all.breaks.indexOf(p[0]) >= 0) pen = false;
        var c = X(p[0]).toFixed(1) + ',' + Y(p[1]).toFixed(1);
        d += (pen ? 'L' : 'M') + c; dots += 'M' + c + 'h0';
        pen = true;
      });
      el('path', { 'class': l.main ? 'line' : 'overlay', d: d, fill: 'none', stroke: l.col, 'stroke-width': l.main ? 1.8 : 1.4 }, s);
      if (l.pts.length <= 120) el('path', { 'class': 'dots', d: dots, stroke: l.col, 'stroke-width': !l.main ? 4 : l.pts.length <= 60 ? 7 : 5, 'stroke-linecap': 'round' }, s);
    });
    all.notes.forEach(function (i) {
      if (i < ia || i > ib || !ok(pts[i][1], log)) return;
      titled(el('path', { 'class': 'note', d: 'M' + X(i).toFixed(1) + ',' + (Y(pts[i][1]) - 12).toFixed(1) + 'l5,9h-10z', fill: ORANGE }, s), '#' + pts[i][0] + ' has a note');
    });
    // The legend, as text under the chart that wraps on a phone (as site::xy's).
    var legend = null;
    if (lines.length > 1) {
      legend = document.createElement('ul');
      legend.className = 'legend';
      lines.forEach(function (l) {
        var li = document.createElement('li'), sw = document.createElement('span');
        sw.className = 'swatch'; sw.style.borderColor = l.col;
        li.appendChild(sw); li.appendChild(document.createTextNode(l.label)); legend.appendChild(li);
      });
    }
    // The view in the address, to share or reload: ?from=A&to=B[&log=1][&overlay=i,j].
    try { history.replaceState(null, '', '?from=' + pts[ia][0] + '&to=' + pts[ib][0] + (log ? '&log=1' : '') + (on.length ? '&overlay=' + on.join(',') : '') + location.hash); } catch (e) { /* file:// */ }
    if (view) view.remove();
    if (viewLegend) viewLegend.remove();
    view = s; viewLegend = legend;
    cur = { a: ia, b: ib, L: L, PW: PW };
    orig.style.display = 'none';
    f.insertBefore(s, tip);
    if (legend) f.insertBefore(legend, tip);
  }
  function reset() {
    if (view) view.remove();
    if (viewLegend) viewLegend.remove();
    view = null; viewLegend = null;
    builtGeometry();
    orig.style.display = '';
    form.from.value = start; form.to.value = last; form.log.checked = false;
    form.querySelectorAll('input[name=overlay]').forEach(function (c) { c.checked = false; });
    try { history.replaceState(null, '', location.pathname + location.hash); } catch (e) { /* file:// */ }
  }
  var q = new URLSearchParams(location.search);
  if (q.has('from') || q.has('to') || q.has('log') || q.has('overlay')) {
    if (q.get('from')) form.from.value = q.get('from');
    if (q.get('to')) form.to.value = q.get('to');
    form.log.checked = q.get('log') === '1';
    (q.get('overlay') || '').split(',').forEach(function (k) {
      var c = form.querySelector('input[name=overlay][value="' + k + '"]');
      if (c) c.checked = true;
    });
    draw();
  }
  form.addEventListener('change', draw);
  form.addEventListener('submit', function (e) { e.preventDefault(); draw(); });
  form.recent.addEventListener('click', function () { form.from.value = pts[Math.max(0, n - 30)][0]; form.to.value = last; draw(); });
  form.full.addEventListener('click', function () { form.from.value = first; form.to.value = last; draw(); });
  form.built.addEventListener('click', reset);
  // The nearest run to the pointer, by the geometry of the chart shown (built or drawn here).
  function at(e) {
    var o = view || orig, r = o.getBoundingClientRect();
    if (!r.width) return null;
    var x = (e.clientX - r.left) / r.width * W, span = cur.b - cur.a;
    return cur.a + Math.max(0, Math.min(span, Math.round(span ? (x - cur.L) / cur.PW * span : 0)));
  }
  f.addEventListener('mousemove', function (e) {
    var i = at(e), r = f.getBoundingClientRect();
    if (i === null) return;
    var p = run(i);
    tip.textContent = '#' + p[0] + (p[2] ? ' · ' + p[2] : '') + (p[1] ? ' · ' + p[1] : '') + (p[4] ? ' · ' + p[4] : '') + ' · ' + quantity(pts[i][1]);
    tip.style.left = Math.max(0, Math.min(e.clientX - r.left + 12, r.width - 160)) + 'px';
    tip.style.top = (e.clientY - r.top - 30) + 'px';
    tip.hidden = false;
  });
  f.addEventListener('mouseleave', function () { tip.hidden = true; });
  f.addEventListener('click', function (e) {
    var i = at(e);
    var id = i === null ? null : run(i)[3];
    if (id !== null) location.href = '../../runs/' + prefix + id + '/index.html';
  });
})();
