//! Suite and series pages (`templates/suite.html`, `templates/series.html`).

use std::collections::BTreeMap;

use askama::Template;

use crate::site::SiteError;
use crate::site::charts;
use crate::site::format::*;
use crate::site::load::*;
use crate::site::trend;
use crate::site::writer::*;
use crate::site::*;

/// One small multiple of the suite page: a series' small trend and its latest figures.
pub struct SeriesLink {
    pub href: String,
    pub metric: String,
    pub arm: String,
    pub params: String,
    /// What the filter box matches (metric, arm, params).
    pub key: String,
    pub small: String,
    pub n: usize,
    pub latest: String,
    pub change: String,
    pub change_class: String,
    /// The newest run against the one before (`+1.2%`), for series of two runs (a table row,
    /// not a card: two points are no trend).
    pub step: String,
}

/// Runs a series needs to be a card (a small trend) on its suite page; fewer are a table row.
pub const CARD_RUNS: usize = 3;

/// Cards on a suite page from which it offers a filter box.
pub const FILTER_CARDS: usize = 9;

/// The small multiples of one metric.
pub struct MetricGroup {
    pub metric: String,
    pub series: Vec<SeriesLink>,
}

/// A series measured in one run only: a value, not a chart (it gets no page of its own until
/// a second run measures it).
pub struct OnceView {
    pub metric: String,
    pub arm: String,
    pub params: String,
    pub value: String,
    pub run: String,
    pub run_href: String,
}

#[derive(Template)]
#[template(path = "suite.html")]
pub struct SuitePage {
    pub chrome: crate::site::pages::Chrome,
    pub suite: String,
    pub groups: Vec<MetricGroup>,
    pub count: usize,
    pub once: Vec<OnceView>,
    /// Series of two runs: a row each (value, change), linking their page.
    pub two: Vec<SeriesLink>,
    /// Enough cards for a filter box to help.
    pub filter: bool,
    /// The two-run and one-run tables hold more than one arm: each row names its arm.
    pub many_arms: bool,
}

impl SuitePage {
    /// What tells a row of the two-run and one-run tables from its metric's other series,
    /// under the metric's name: the arm where the tables hold more than one, and the
    /// parameters that vary ("fastokens · concurrency=8"); empty where neither.
    fn qualifier(&self, arm: &str, params: &str) -> String {
        let arm = self.many_arms.then_some(arm);
        let params = Some(params).filter(|p| !p.is_empty() && *p != "—");
        [arm, params]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" · ")
    }
}

pub struct ChangeView {
    pub href: String,
    pub run: String,
    pub commit: String,
    /// The commit's page (the run's `commit_url` label + the commit), or empty.
    pub commit_href: String,
    pub before: String,
    pub after: String,
    pub change: String,
    pub p: String,
    pub class: String,
    pub kind: String,
}

pub struct PointView {
    pub href: String,
    pub run: String,
    pub started: String,
    pub commit: String,
    /// The commit's page (the run's `commit_url` label + the commit), or empty.
    pub commit_href: String,
    pub value: String,
    pub range: String,
    pub note: String,
}

#[derive(Template)]
#[template(path = "series.html")]
pub struct SeriesPage {
    pub chrome: crate::site::pages::Chrome,
    pub suite: String,
    pub metric: String,
    /// `metric` as HTML that wraps between its parts (`present::wrap_name`).
    pub metric_html: String,
    pub arm: String,
    pub params: String,
    pub unit: String,
    pub summary: String,
    /// Why the chart starts where it does, when not at the first run (empty otherwise).
    pub view: String,
    pub chart: String,
    /// The series as the page's script reads it (`trend::data`; JSON, `<` escaped).
    pub hover: String,
    /// The script's file, relative to the site's root ([`crate::site::trend_js_path`]).
    pub script: &'static str,
    pub changes: Vec<ChangeView>,
    pub points: Vec<PointView>,
    /// Runs of the series not listed in the table (older than the newest [`TABLE_ROWS`]).
    pub older: usize,
    /// The table's columns that some row fills: a spread over repeats, a note.
    pub has_range: bool,
    pub has_notes: bool,
}

impl SeriesPage {
    /// The runs table's labels for the phone's cards, in the template's order.
    fn points_labels(&self) -> Vec<&'static str> {
        [
            Some("run"),
            Some("value"),
            self.has_range.then_some("min–max"),
            Some("commit"),
            Some("started"),
            self.has_notes.then_some("note"),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

/// Runs a series page's table lists (newest first beyond this, the chart has them all).
pub const TABLE_ROWS: usize = 30;

/// A series: suite, metric, arm, params.
pub type SeriesKey = (String, String, String, crate::model::Params);

/// Each series' page (relative to the site's root) and its label ("metric · arm · params").
pub type SeriesHrefs = BTreeMap<SeriesKey, (String, String)>;

/// The headline series of each suite for the index, and how many others it has.
pub(crate) type Headlines = BTreeMap<String, (Vec<HeadlineView>, usize)>;

/// Suite and series pages, from the loaded history and alerts (no query); returns each
/// series' page for the alerts, index and run pages to link to, and the index's headlines.
/// `commit_urls`: run id → its `commit_url` label.
/// What the series pages know of each run beyond the history: its notes, its commit's page
/// (`commit_url` label) and its commit's message (`commit_message` label), by run id.
pub(crate) struct RunFacts<'a> {
    pub notes: &'a BTreeMap<&'a str, Vec<&'a RunNote>>,
    pub commit_urls: &'a BTreeMap<&'a str, String>,
    pub messages: &'a BTreeMap<&'a str, String>,
}

impl RunFacts<'_> {
    /// The run's commit message (its first line), or empty.
    fn message(&self, run_id: &str) -> &str {
        self.messages.get(run_id).map_or("", String::as_str)
    }
}

/// Other parameter sets of one benchmark a series page offers to overlay, at most.
const OVERLAYS: usize = 8;

pub(crate) fn history_pages(
    w: &mut Writer,
    css: &str,
    facts: &RunFacts,
    all: &[crate::query::history::Series],
    alerts: &[crate::query::alerts::Alert],
) -> Result<(SeriesHrefs, Headlines), SiteError> {
    let mut headlines = Headlines::new();
    let mut hrefs = SeriesHrefs::new();
    let open_series: std::collections::BTreeSet<SeriesKey> = alerts
        .iter()
        .filter(|a| a.state.is_open())
        .map(|a| {
            (
                a.suite.clone(),
                a.metric.clone(),
                a.arm.clone(),
                a.params.clone(),
            )
        })
        .collect();
    let mut by_suite: BTreeMap<&str, Vec<&crate::query::history::Series>> = BTreeMap::new();
    for s in all {
        by_suite.entry(s.suite.as_str()).or_default().push(s);
    }
    for (suite, mut series) in by_suite {
        // Numeric parameters in numeric order (4096 before 1048576; 2 before 16).
        series.sort_by(|a, b| {
            a.metric
                .cmp(&b.metric)
                .then_with(|| a.arm.cmp(&b.arm))
                .then_with(|| cmp_params(&a.params, &b.params))
        });
        let layout = ParamLayout::new(series.iter().map(|s| &s.params));
        // A series of one run is a value, not a chart: listed on the suite page, no page.
        let (once, series): (Vec<_>, Vec<_>) =
            series.into_iter().partition(|s| s.points.len() == 1);
        let suite_page = SuitePages {
            css,
            facts,
            suite,
            dir: super::suite_dir(suite),
            layout: &layout,
        };
        suite_page.write(w, &series, &once, &mut hrefs)?;
        headlines.insert(
            suite.to_string(),
            dashboard(&series, &open_series, &hrefs, &layout),
        );
    }
    Ok((hrefs, headlines))
}

/// What the pages of one suite share: the stylesheet, the runs' facts, the suite, its folder
/// (`suites/<slug>`) and how its series' parameters are labelled.
struct SuitePages<'a> {
    css: &'a str,
    facts: &'a RunFacts<'a>,
    suite: &'a str,
    dir: String,
    layout: &'a ParamLayout,
}

impl SuitePages<'_> {
    /// Writes each series' page (rendered on every core: charts and hover data are most of a
    /// build that adds one run), the suite's runs file and its page; `hrefs` gets each
    /// series' page.
    fn write(
        &self,
        w: &mut Writer,
        series: &[&crate::query::history::Series],
        once: &[&crate::query::history::Series],
        hrefs: &mut SeriesHrefs,
    ) -> Result<(), SiteError> {
        // The same benchmark (metric and arm) at its other parameters, for the overlay.
        let mut benchmarks: BTreeMap<(&str, &str), Vec<&crate::query::history::Series>> =
            BTreeMap::new();
        for s in series {
            benchmarks
                .entry((s.metric.as_str(), s.arm.as_str()))
                .or_default()
                .push(s);
        }
        let rendered = crate::parallel::par_map(series, |s| {
            let others: Vec<&crate::query::history::Series> = benchmarks
                .get(&(s.metric.as_str(), s.arm.as_str()))
                .map(|v| {
                    v.iter()
                        .filter(|o| o.params != s.params)
                        .take(OVERLAYS)
                        .copied()
                        .collect()
                })
                .unwrap_or_default();
            render_series(self, s, &others)
        });
        let dir = &self.dir;
        // What hover and zoom show of each run (commit, date, id, message), once per suite:
        // every series page of it reads the same file.
        w.put(
            &format!("{dir}/{}", trend::RUNS_FILE),
            suite_runs(series, self.facts).as_bytes(),
        )?;
        let mut links = Vec::new();
        for r in rendered {
            let r = r?;
            hrefs.insert(r.href.0, r.href.1);
            links.push(r.link);
            w.put(&r.path, r.html.as_bytes())?;
        }
        let (cards, two): (Vec<SeriesLink>, Vec<SeriesLink>) =
            links.into_iter().partition(|l| l.n >= CARD_RUNS);
        let suite = self.suite;
        let once: Vec<OnceView> = once.iter().map(|s| once_view(s, self.layout)).collect();
        let arms: std::collections::BTreeSet<&str> = two
            .iter()
            .map(|t| t.arm.as_str())
            .chain(once.iter().map(|o| o.arm.as_str()))
            .collect();
        let many_arms = arms.len() > 1;
        w.page(
            &format!("{dir}/index.html"),
            &SuitePage {
                chrome: crate::site::pages::Chrome::new(2, self.css, format!("{suite}: series"))
                    .here(suite),
                suite: suite.to_string(),
                count: cards.len(),
                filter: cards.len() >= FILTER_CARDS,
                groups: group_by_metric(cards),
                many_arms,
                once,
                two,
            },
        )
    }
}

/// A series of one run on its suite's page: its value and run.
fn once_view(s: &crate::query::history::Series, layout: &ParamLayout) -> OnceView {
    let p = &s.points[0];
    OnceView {
        metric: s.metric.clone(),
        arm: s.arm.clone(),
        params: layout.label(&s.params),
        value: fmt_quantity(Some(p.value), &s.unit),
        run: format!("#{}", p.run_no),
        run_href: format!("../../runs/{}/index.html", p.run_id),
    }
}

/// The suite's runs file ([`trend::runs_script`]): every run any of its series has.
fn suite_runs(series: &[&crate::query::history::Series], facts: &RunFacts) -> String {
    let mut runs: BTreeMap<u64, (&crate::query::history::Point, String, String)> = BTreeMap::new();
    for s in series {
        for p in &s.points {
            runs.entry(p.run_no).or_insert_with(|| {
                (
                    p,
                    short_commit(&p.git_commit),
                    p.started_at.get(..10).unwrap_or(&p.started_at).to_string(),
                )
            });
        }
    }
    let points: Vec<trend::Point> = runs
        .values()
        .map(|(p, commit, date)| trend::Point {
            value: p.value,
            lo: None,
            hi: None,
            run_no: p.run_no,
            commit,
            date,
            id: &p.run_id,
            message: facts.message(&p.run_id),
        })
        .collect();
    trend::runs_script(&points)
}

/// Headline series shown per suite on the index.
const HEADLINES: usize = 6;

/// The dashboard of one suite: the series measured in its newest run, registry figures
/// first, then those with open alerts, then the rest by name; at most [`HEADLINES`], and how
/// many others there are.
fn dashboard(
    series: &[&crate::query::history::Series],
    open: &std::collections::BTreeSet<SeriesKey>,
    hrefs: &SeriesHrefs,
    layout: &ParamLayout,
) -> (Vec<HeadlineView>, usize) {
    let newest = series
        .iter()
        .filter_map(|s| {
            s.points
                .last()
                .map(|p| (p.started_at.clone(), p.run_id.clone()))
        })
        .max();
    let Some((_, newest)) = newest else {
        return (Vec::new(), 0);
    };
    let figure_rank = |m: &str| {
        crate::query::figures::FIGURES
            .iter()
            .position(|f| f.name == m)
            .unwrap_or(usize::MAX)
    };
    let mut current: Vec<&&crate::query::history::Series> = series
        .iter()
        .filter(|s| s.points.last().is_some_and(|p| p.run_id == newest))
        .collect();
    current.sort_by_key(|s| {
        (
            figure_rank(&s.metric),
            !open.contains(&series_key(s)),
            s.metric.clone(),
        )
    });
    let others = current.len().saturating_sub(HEADLINES);
    // A whole-run move at the newest run: its movers say so, whatever their own noise says.
    let whole = crate::query::whole_run::find(series.iter().copied())
        .into_iter()
        .find(|w| w.run_id == newest && crate::query::whole_run::alerting(w));
    let views = current
        .into_iter()
        .take(HEADLINES)
        .map(|s| headline(s, whole.as_ref(), hrefs, layout))
        .collect();
    (views, others)
}

fn series_key(s: &crate::query::history::Series) -> SeriesKey {
    (
        s.suite.clone(),
        s.metric.clone(),
        s.arm.clone(),
        s.params.clone(),
    )
}

/// One headline of the index: the series' newest value, its change from the previous
/// comparable run and the verdict on it ([`headline_verdict`]), a sparkline of its last 60.
fn headline(
    s: &crate::query::history::Series,
    whole: Option<&crate::query::whole_run::WholeRun>,
    hrefs: &SeriesHrefs,
    layout: &ParamLayout,
) -> HeadlineView {
    let n = s.points.len();
    let latest = s.points[n - 1].value;
    let (change, verdict, class, why) = headline_verdict(s, whole);
    let (href, _) = hrefs.get(&series_key(s)).cloned().unwrap_or_default();
    let params = layout.label(&s.params);
    let tail: Vec<f64> = s.points[n.saturating_sub(60)..]
        .iter()
        .map(|p| p.value)
        .collect();
    HeadlineView {
        name: format!(
            "{}{}{}",
            s.metric,
            if s.arm == "default" {
                String::new()
            } else {
                format!(" · {}", s.arm)
            },
            if params.is_empty() {
                String::new()
            } else {
                format!(" · {params}")
            }
        ),
        spark: charts::sparkline(
            &tail,
            &format!(
                "{} trend, last {}",
                s.metric,
                crate::present::count(tail.len(), "run")
            ),
        ),
        href,
        latest: fmt_quantity(Some(latest), &s.unit),
        change,
        verdict: verdict.into(),
        class: class.into(),
        why,
    }
}

/// A headline's change, verdict word, verdict class and why: against the previous comparable
/// run (the one before, unless a break lies between), an unstable series, a whole-run move
/// and a pending change say so before the series' own noise is asked.
fn headline_verdict(
    s: &crate::query::history::Series,
    whole: Option<&crate::query::whole_run::WholeRun>,
) -> (String, &'static str, &'static str, String) {
    let n = s.points.len();
    let latest = s.points[n - 1].value;
    let prev = (n >= 2 && !s.breaks.contains(&(n - 1))).then(|| s.points[n - 2].value);
    let Some(p) = prev.filter(|p| *p != 0.0) else {
        return (
            "—".into(),
            "first run",
            "verdict-info",
            "no previous comparable run (first run, or a break before it)".into(),
        );
    };
    let change = signed_pct(latest / p - 1.0);
    if let Some(u) = s.unstable_now() {
        let why = format!(
            "switches between {} and {} since run #{} ({}): a move between them is no change",
            fmt_quantity(Some(u.low), &s.unit),
            fmt_quantity(Some(u.high), &s.unit),
            u.run_no,
            crate::present::count(u.switches, "switch")
        );
        return (change, "unstable", "verdict-info", why);
    }
    if let Some(w) = whole.filter(|w| w.moved(s)) {
        return (change, "whole run moved", "verdict-inconclusive", w.text());
    }
    if let Some(pc) = &s.pending {
        let verdict = if pc.regression {
            "pending regression"
        } else {
            "pending improvement"
        };
        let why = crate::present::pending_text(pc, &s.unit, &format!(" from #{}", pc.run_no));
        return (change, verdict, "verdict-inconclusive", why);
    }
    let (verdict, class, why) = noise_verdict(s, latest / p - 1.0);
    (change, verdict, class, why)
}

/// The verdict on a move `d` of the newest run against the series' two-run threshold (its
/// noise model, else the floor); a one-run departure the series has shown lately, as far, is
/// its own noise (`Series::recurs`), however far outside the σ band.
fn noise_verdict(
    s: &crate::query::history::Series,
    d: f64,
) -> (&'static str, &'static str, String) {
    let threshold = s
        .noise
        .map(|no| crate::stats::noise::two_run_threshold(no.sigma));
    let t = threshold.unwrap_or(crate::stats::noise::FLOOR);
    let worse = if s.better == crate::stats::verdict::Direction::HigherIsBetter {
        d < 0.0
    } else {
        d > 0.0
    };
    let recurs = s.recurs(s.points.len() - 1);
    let (v, c) = if d.abs() < t {
        ("unchanged", "verdict-unchanged")
    } else if recurs >= crate::query::history::RECURS {
        ("unchanged (recurs)", "verdict-unchanged")
    } else if worse {
        ("regressed", "verdict-regressed")
    } else {
        ("improved", "verdict-improved")
    };
    let recurring = if d.abs() >= t && recurs >= crate::query::history::RECURS {
        format!(
            "; {recurs} of the {} before in its level departed as far this way: a recurring dip or spike, not a change",
            crate::present::count(crate::query::history::RECUR_WINDOW, "run")
        )
    } else {
        String::new()
    };
    let why = match (threshold, s.noise) {
        (Some(t), Some(no)) => format!(
            "one run against the previous: ±{:.1}% (z·√2·σ, σ {:.2}% over the newest level's {}, 1% target)",
            t * 100.0,
            no.sigma * 100.0,
            crate::present::count(no.deltas, "run")
        ),
        _ => "±2% floor: too few runs for a noise model".to_string(),
    } + &recurring;
    (v, c, why)
}

/// Small multiples grouped by metric, in the order the series came (metric, arm, params).
/// Dotted metric names (asv's `module.Class.benchmark`) group by all but their last part, so
/// a class's benchmarks sit side by side; each card is then named by the last part.
fn group_by_metric(links: Vec<SeriesLink>) -> Vec<MetricGroup> {
    let mut groups: Vec<MetricGroup> = Vec::new();
    for mut l in links {
        let (group, name) = match l.metric.rsplit_once('.') {
            Some((head, last)) if !head.is_empty() && !last.is_empty() => {
                (head.to_string(), Some(last.to_string()))
            }
            _ => (l.metric.clone(), None),
        };
        if let Some(name) = name {
            let rest = [l.arm.as_str(), l.params.as_str()]
                .into_iter()
                .filter(|x| !x.is_empty() && *x != "default")
                .collect::<Vec<_>>()
                .join(" · ");
            l.arm = if rest.is_empty() {
                name
            } else {
                format!("{name} · {rest}")
            };
            l.params = String::new();
        }
        match groups.last_mut() {
            Some(g) if g.metric == group => g.series.push(l),
            _ => groups.push(MetricGroup {
                metric: group,
                series: vec![l],
            }),
        }
    }
    groups
}

/// A series page rendered (on any thread): its file, HTML, link on the suite page, and the
/// (key → href, label) the alerts and the dashboard link it by.
struct RenderedSeries {
    path: String,
    html: String,
    link: SeriesLink,
    href: (SeriesKey, (String, String)),
}

/// Renders the page of one series of `suite` (under `dir`).
fn render_series(
    sp: &SuitePages,
    s: &crate::query::history::Series,
    others: &[&crate::query::history::Series],
) -> Result<RenderedSeries, SiteError> {
    let (suite, dir, facts) = (sp.suite, &sp.dir, sp.facts);
    let file = super::series_file(&s.metric, &s.arm, &s.params);
    let params = sp.layout.label(&s.params);
    let label = if params.is_empty() {
        format!("{} · {}", s.metric, s.arm)
    } else {
        format!("{} · {} · {}", s.metric, s.arm, params)
    };
    let href = (series_key(s), (format!("{dir}/{file}"), label));
    let marks = TrendMarks::of(s, facts);
    let tpoints = marks.points(s, facts);
    let title = format!("{} · {}", s.metric, s.arm);
    let description = trend_description(s, suite, &params);
    let mut spec = marks.trend(s, &title, &description, &tpoints);
    // A newest level an order of magnitude from an earlier one is the default view (the
    // script draws the full history on request).
    spec.from = trend::default_from(&spec);
    let overlay: Vec<trend::Overlay> = others
        .iter()
        .map(|o| trend::Overlay {
            label: sp.layout.label(&o.params),
            points: o.points.iter().map(|p| (p.run_no, p.value)).collect(),
        })
        .collect();
    let hover = trend::data(&spec, &overlay).replace('<', "\\u003c");
    let small = trend::svg(&trend::Trend {
        small: true,
        noise_band: None,
        ..spec
    });
    let link = series_link(s, &file, &params, small);
    let points = point_rows(s, facts.notes, facts.commit_urls);
    let page = SeriesPage {
        chrome: crate::site::pages::Chrome::new(2, sp.css, format!("{suite}: {}", s.metric))
            .suite(suite)
            .here(s.metric.clone()),
        suite: suite.to_string(),
        metric: s.metric.clone(),
        metric_html: crate::present::wrap_name(&s.metric),
        arm: s.arm.clone(),
        params,
        unit: s.unit.clone(),
        summary: summary(s),
        view: view_note(s, spec.from),
        chart: trend::svg(&spec),
        hover,
        script: crate::site::trend_js_path(),
        older: s.points.len().saturating_sub(TABLE_ROWS),
        changes: change_rows(s, facts.commit_urls),
        has_range: points.iter().any(|p| !p.range.is_empty()),
        has_notes: points.iter().any(|p| !p.note.is_empty()),
        points,
    };
    let path = format!("{dir}/{file}");
    let html = page.render().map_err(|source| SiteError::Render {
        page: path.clone(),
        source,
    })?;
    Ok(RenderedSeries {
        path,
        html,
        link,
        href,
    })
}

/// Why the chart starts at `from`, when not at the first run (empty otherwise).
fn view_note(s: &crate::query::history::Series, from: usize) -> String {
    if from == 0 {
        return String::new();
    }
    format!(
        "The chart starts at #{}, where the newest level begins: the {} before it sit an order of magnitude away and would flatten it. “Full history” draws every run.",
        s.points[from].run_no,
        count(from, "run")
    )
}

/// What a series' trend chart marks, by index into its points, and the short commits and
/// dates its points show: owned here, borrowed by the [`trend::Trend`] drawn from them.
struct TrendMarks {
    commits: Vec<String>,
    dates: Vec<String>,
    changes: Vec<(usize, bool, f64)>,
    noted: Vec<usize>,
    /// Each level's own noise band (the band changes along the series).
    bands: Vec<(usize, f64)>,
    unstable: Vec<(usize, usize)>,
    drifts: Vec<trend::Drift>,
}

impl TrendMarks {
    fn of(s: &crate::query::history::Series, facts: &RunFacts) -> TrendMarks {
        let index_of: BTreeMap<&str, usize> = s
            .points
            .iter()
            .enumerate()
            .map(|(i, p)| (p.run_id.as_str(), i))
            .collect();
        TrendMarks {
            commits: s
                .points
                .iter()
                .map(|p| short_commit(&p.git_commit))
                .collect(),
            dates: s
                .points
                .iter()
                .map(|p| p.started_at.get(..10).unwrap_or(&p.started_at).to_string())
                .collect(),
            changes: s
                .changes
                .iter()
                .filter_map(|c| {
                    index_of
                        .get(c.run_id.as_str())
                        .map(|i| (*i, c.regression, c.magnitude))
                })
                .collect(),
            noted: s
                .points
                .iter()
                .enumerate()
                .filter(|(_, p)| facts.notes.contains_key(p.run_id.as_str()))
                .map(|(i, _)| i)
                .collect(),
            bands: s
                .levels
                .iter()
                .filter_map(|l| l.noise.map(|n| (l.start, n.band)))
                .collect(),
            unstable: s.unstable.iter().map(|u| (u.start, u.end)).collect(),
            drifts: s
                .drifts
                .iter()
                .map(|d| (d.start, d.end, d.from, d.to, d.regression))
                .collect(),
        }
    }

    /// The chart's points: value, repeats' spread, run, commit, date, id and message.
    fn points<'a>(
        &'a self,
        s: &'a crate::query::history::Series,
        facts: &'a RunFacts,
    ) -> Vec<trend::Point<'a>> {
        s.points
            .iter()
            .enumerate()
            .map(|(i, p)| trend::Point {
                value: p.value,
                lo: p.lo,
                hi: p.hi,
                run_no: p.run_no,
                commit: &self.commits[i],
                date: &self.dates[i],
                id: &p.run_id,
                message: facts.message(&p.run_id),
            })
            .collect()
    }

    /// The series page's chart of `points`, from its first run.
    fn trend<'a>(
        &'a self,
        s: &'a crate::query::history::Series,
        title: &'a str,
        description: &'a str,
        points: &'a [trend::Point<'a>],
    ) -> trend::Trend<'a> {
        trend::Trend {
            title,
            description,
            // A series without a unit (asv's track_ benchmarks) is a plain value: the axis
            // says so rather than repeating the (long, truncated) benchmark name.
            unit: if s.unit.is_empty() { "value" } else { &s.unit },
            points,
            changes: &self.changes,
            breaks: &s.breaks,
            notes: &self.noted,
            noise_band: s.noise.map(|n| n.band),
            bands: &self.bands,
            unstable: &self.unstable,
            drifts: &self.drifts,
            small: false,
            from: 0,
        }
    }
}

/// The chart's description: what it shows and what each mark means.
fn trend_description(s: &crate::query::history::Series, suite: &str, params: &str) -> String {
    format!(
        "{} over {} of suite {suite}{}; dashed lines mark change points, dotted grey lines known breaks (the benchmark's code or the machine changed), grey lines each level (its dominant value), the shaded boxes each level's own noise band, grey shading stretches where the series switches between two levels (unstable; a dotted pink line marks where that began), triangles runs with notes.",
        s.metric,
        crate::present::count(s.points.len(), "run"),
        if params.is_empty() {
            String::new()
        } else {
            format!(" at {params}")
        }
    )
}

/// The series' card (or row) on its suite page: its small trend, newest value and change.
fn series_link(
    s: &crate::query::history::Series,
    file: &str,
    params: &str,
    small: String,
) -> SeriesLink {
    let values: Vec<f64> = s.points.iter().map(|p| p.value).collect();
    let (change, class) = latest_change(s);
    SeriesLink {
        href: file.to_string(),
        metric: if s.unit.is_empty() {
            s.metric.clone()
        } else {
            format!("{} ({})", s.metric, s.unit)
        },
        arm: s.arm.clone(),
        params: params.to_string(),
        key: format!("{} {} {}", s.metric, s.arm, params).to_lowercase(),
        small,
        n: values.len(),
        latest: values
            .last()
            .map(|v| fmt_quantity(Some(*v), &s.unit))
            .unwrap_or_default(),
        change,
        change_class: class,
        step: match values.as_slice() {
            [.., a, b] if *a != 0.0 && a.is_finite() && b.is_finite() => signed_pct(b / a - 1.0),
            _ => String::new(),
        },
    }
}

/// The suite page's word on a series: its newest change point since its last break, and the
/// verdict's class. A change before a break is history of another benchmark (its code or the
/// machine changed there): the card says the level since the break instead.
fn latest_change(s: &crate::query::history::Series) -> (String, String) {
    let last_break = s
        .breaks
        .iter()
        .copied()
        .filter(|&i| i < s.points.len())
        .max();
    let index_of = |run_id: &str| s.points.iter().position(|p| p.run_id == run_id);
    let current = s
        .changes
        .last()
        .filter(|c| match (last_break, index_of(&c.run_id)) {
            (Some(b), Some(i)) => i >= b,
            _ => true,
        });
    match (current, last_break) {
        (Some(c), _) => (
            format!(
                "{} at #{} ({})",
                if c.regression {
                    "regressed"
                } else {
                    "improved"
                },
                c.run_no,
                signed_pct(c.magnitude)
            ),
            crate::site::pages::verdict_class(c.regression).to_string(),
        ),
        (None, Some(b)) => (
            format!("no change since the break at #{}", s.points[b].run_no),
            String::new(),
        ),
        (None, None) => ("no change point".to_string(), String::new()),
    }
}

/// "Lower is better. 12 runs; 1 change point."
fn summary(s: &crate::query::history::Series) -> String {
    format!(
        "{} is better. {}; {}{}.",
        if s.better == crate::stats::verdict::Direction::HigherIsBetter {
            "Higher"
        } else {
            "Lower"
        },
        count(s.points.len(), "run"),
        count(s.changes.len(), "change point"),
        match s.breaks.len() {
            0 => String::new(),
            n => format!(
                "; {} where the benchmark's code or the machine changed (no change is called across one)",
                count(n, "known break")
            ),
        }
    )
}

/// The series page's change table: change points and, once each, where the series began to
/// switch between two levels (a distribution change), in run order.
fn change_rows(
    s: &crate::query::history::Series,
    commit_urls: &BTreeMap<&str, String>,
) -> Vec<ChangeView> {
    let at = |run_id: &str, run_no: u64, commit: &Option<String>| {
        change_at(commit_urls, run_id, run_no, commit)
    };
    let four = |v: f64| fmt_quantity_digits(Some(v), &s.unit, 4);
    let mut rows: Vec<(u64, ChangeView)> = s
        .changes
        .iter()
        .map(|c| {
            let view = ChangeView {
                p: c.evidence.text(),
                class: crate::site::pages::verdict_class(c.regression).into(),
                kind: change_kind(c),
                ..at(&c.run_id, c.run_no, &c.git_commit)
            };
            (
                c.run_no,
                moved(view, four(c.level_before), four(c.level_after), c.magnitude),
            )
        })
        .collect();
    rows.extend(s.unstable.iter().map(|u| {
        let view = ChangeView {
            before: fmt_quantity(Some(u.high.min(u.low)), &s.unit),
            after: fmt_quantity(Some(u.high.max(u.low)), &s.unit),
            change: format!("{:.0}% low", u.low_share * 100.0),
            class: "verdict-info".into(),
            kind: format!(
                "distribution change: unstable from here{} ({} between the two levels; Ashman's D {:.1})",
                if u.ongoing { " to date" } else { "" },
                crate::present::count(u.switches, "switch"),
                u.ashman_d
            ),
            ..at(&u.run_id, u.run_no, &u.git_commit)
        };
        (u.run_no, view)
    }));
    rows.extend(s.drifts.iter().map(|d| {
        let view = ChangeView {
            run: format!("#{}–#{}", d.run_no, d.last_run_no),
            p: format!(
                "a line over {} fits better than {}",
                crate::present::count(d.runs, "run"),
                crate::present::count(d.steps, "step")
            ),
            class: crate::site::pages::verdict_class(d.regression).into(),
            kind: format!(
                "drift: {} over {}, one finding",
                if d.regression {
                    "regressing"
                } else {
                    "improving"
                },
                crate::present::count(d.runs, "run")
            ),
            ..at(&d.run_id, d.run_no, &d.git_commit)
        };
        (d.run_no, moved(view, four(d.from), four(d.to), d.total))
    }));
    rows.extend(s.pending.iter().map(|p| {
        let view = ChangeView {
            p: p.evidence.text(),
            class: "verdict-inconclusive".into(),
            kind: crate::present::pending_text(p, &s.unit, ""),
            ..at(&p.run_id, p.run_no, &p.git_commit)
        };
        (
            p.run_no,
            moved(view, four(p.level_before), four(p.level_after), p.magnitude),
        )
    }));
    rows.sort_by_key(|r| r.0);
    rows.into_iter().map(|r| r.1).collect()
}

/// What a change point is: its direction and the threshold it passed (and the local σ).
fn change_kind(c: &crate::query::history::Change) -> String {
    format!(
        "{} (threshold ±{:.1}%{})",
        if c.regression {
            "regression"
        } else {
            "improvement"
        },
        c.threshold * 100.0,
        c.sigma
            .map_or(String::new(), |sg| format!(", local σ {:.2}%", sg * 100.0))
    )
}

/// A row of the change table at one run: its page, number, commit and the commit's page;
/// the rest empty, for the caller to fill.
fn change_at(
    commit_urls: &BTreeMap<&str, String>,
    run_id: &str,
    run_no: u64,
    commit: &Option<String>,
) -> ChangeView {
    ChangeView {
        href: format!("../../runs/{run_id}/index.html"),
        run: format!("#{run_no}"),
        commit: short_commit(commit),
        commit_href: crate::site::pages::commit_href(commit_urls, run_id, commit.as_deref()),
        before: String::new(),
        after: String::new(),
        change: String::new(),
        p: String::new(),
        class: String::new(),
        kind: String::new(),
    }
}

/// `view` with the levels before and after a move and its relative size.
fn moved(view: ChangeView, before: String, after: String, magnitude: f64) -> ChangeView {
    ChangeView {
        before,
        after,
        change: signed_pct(magnitude),
        ..view
    }
}

/// The series page's table: the newest [`TABLE_ROWS`] runs, newest first.
fn point_rows(
    s: &crate::query::history::Series,
    notes: &BTreeMap<&str, Vec<&RunNote>>,
    commit_urls: &BTreeMap<&str, String>,
) -> Vec<PointView> {
    s.points
        .iter()
        .rev()
        .take(TABLE_ROWS)
        .map(|p| PointView {
            href: format!("../../runs/{}/index.html", p.run_id),
            run: format!("#{}", p.run_no),
            started: time(&p.started_at),
            commit: short_commit(&p.git_commit),
            commit_href: crate::site::pages::commit_href(
                commit_urls,
                &p.run_id,
                p.git_commit.as_deref(),
            ),
            value: fmt_quantity_digits(Some(p.value), &s.unit, 4),
            range: match (p.lo, p.hi) {
                (Some(lo), Some(hi)) if lo != hi => {
                    format!(
                        "{} – {}",
                        fmt_quantity_digits(Some(lo), &s.unit, 4),
                        fmt_quantity_digits(Some(hi), &s.unit, 4)
                    )
                }
                _ => String::new(),
            },
            note: notes
                .get(p.run_id.as_str())
                .and_then(|v| v.last())
                .map(|n| n.text.clone())
                .unwrap_or_default(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::history::{Change, PendingChange, Point, Series};
    use crate::stats::changepoint::Evidence;
    use crate::stats::verdict::Direction;

    /// A series of `kv`'s `get` in ms, lower is better, runs #100… (`r0`…) at `values`.
    fn series(values: &[f64]) -> Series {
        let mut s = Series::new(
            "kv".into(),
            "get".into(),
            "ms".into(),
            Direction::LowerIsBetter,
            "default".into(),
            Default::default(),
        );
        s.points = values
            .iter()
            .enumerate()
            .map(|(i, &value)| Point {
                run_id: format!("r{i}"),
                run_no: 100 + i as u64,
                started_at: format!("2026-12-0{}T10:00:00Z", i + 1),
                git_commit: Some(format!("c{i}23456789abcdef")),
                value,
                version: None,
                env_fingerprint: None,
                lo: None,
                hi: None,
            })
            .collect();
        s
    }

    fn change(run: usize, before: f64, after: f64) -> Change {
        Change {
            run_id: format!("r{run}"),
            run_no: 100 + run as u64,
            git_commit: Some(format!("c{run}23456789abcdef")),
            mean_before: before,
            mean_after: after,
            level_before: before,
            level_after: after,
            magnitude: after / before - 1.0,
            p_value: 0.001,
            sigma: Some(0.01),
            threshold: 0.05,
            regression: after > before,
            evidence: Evidence {
                sigmas: Some(20.0),
                before: run,
                after: 2,
                p: Some(0.001),
            },
        }
    }

    /// The index's verdict on a newest run: against the one before, at the ±2 % floor
    /// without a noise model; none across a break.
    #[test]
    fn a_headline_judges_the_newest_run_against_the_previous() {
        // 10 → 11 ms: +10 %, beyond the floor, and lower is better.
        let (change, verdict, class, why) = headline_verdict(&series(&[10.0, 10.0, 11.0]), None);
        assert_eq!(
            (change.as_str(), verdict, class),
            ("+10.0%", "regressed", "verdict-regressed")
        );
        assert_eq!(why, "±2% floor: too few runs for a noise model");
        // 10 → 9 ms: improved; 10 → 10.1 ms: +1 %, inside the floor.
        assert_eq!(headline_verdict(&series(&[10.0, 9.0]), None).1, "improved");
        let (change, verdict, ..) = headline_verdict(&series(&[10.0, 10.1]), None);
        assert_eq!((change.as_str(), verdict), ("+1.0%", "unchanged"));
        let mut broken = series(&[10.0, 20.0]);
        broken.breaks = vec![1];
        let (change, verdict, class, _) = headline_verdict(&broken, None);
        assert_eq!(
            (change.as_str(), verdict, class),
            ("—", "first run", "verdict-info")
        );
    }

    /// The change table: a change point and a pending change, in run order, each linking its
    /// run and its commit's page.
    #[test]
    fn change_rows_link_their_run_and_commit_in_run_order() {
        let mut s = series(&[10.0, 10.0, 10.0, 12.0, 12.0, 12.0, 9.0]);
        s.changes = vec![change(3, 10.0, 12.0)];
        s.pending = Some(PendingChange {
            start: 6,
            run_id: "r6".into(),
            run_no: 106,
            git_commit: None,
            level_before: 12.0,
            level_after: 9.0,
            magnitude: -0.25,
            sigma: None,
            threshold: 0.05,
            regression: false,
            runs: 1,
            needs: 2,
            evidence: Evidence {
                sigmas: None,
                before: 3,
                after: 1,
                p: None,
            },
            rerun: Some(crate::query::history::Rerun {
                plan: "plans/x.toml".into(),
                git_commit: Some("c6abcdef0123456789".into()),
                runs: 2,
            }),
        });
        let urls: BTreeMap<&str, String> = [("r3", "https://x/commit/".to_string())].into();
        let rows = change_rows(&s, &urls);
        assert_eq!(rows.len(), 2);
        let c = &rows[0];
        assert_eq!(c.href, "../../runs/r3/index.html");
        assert_eq!((c.run.as_str(), c.commit.as_str()), ("#103", "c323456789"));
        assert_eq!(c.commit_href, "https://x/commit/c323456789abcdef");
        assert_eq!((c.before.as_str(), c.after.as_str()), ("10 ms", "12 ms"));
        assert_eq!(c.change, "+20.0%");
        assert_eq!(c.class, "verdict-regressed");
        assert_eq!(c.kind, "regression (threshold ±5.0%, local σ 1.00%)");
        assert_eq!(c.p, "20.0σ · 3 runs before, 2 after · p = 0.001");
        let p = &rows[1];
        assert_eq!(
            (p.run.as_str(), p.commit.as_str(), p.commit_href.as_str()),
            ("#106", "", "")
        );
        assert_eq!(p.change, "-25.0%");
        assert_eq!(p.class, "verdict-inconclusive");
        assert!(
            p.kind.ends_with(
                "; confirm now: run `perfhouse run plans/x.toml` at c6abcdef0123 2 more times"
            ),
            "{}",
            p.kind
        );
    }

    /// A series page rendered in memory: its file and link, the suite card's word on it, one
    /// change line, one note triangle and a dot per run on its chart.
    #[test]
    fn a_series_page_draws_its_marks_and_links_its_runs() {
        let mut s = series(&[10.0, 10.0, 10.0, 12.0, 12.0]);
        s.changes = vec![change(3, 10.0, 12.0)];
        let note = RunNote {
            run_id: "r1".into(),
            at: "2026-12-02T11:00:00Z".into(),
            text: "kernel upgrade".into(),
        };
        let notes: BTreeMap<&str, Vec<&RunNote>> = [("r1", vec![&note])].into();
        let (urls, messages) = (BTreeMap::new(), BTreeMap::new());
        let facts = RunFacts {
            notes: &notes,
            commit_urls: &urls,
            messages: &messages,
        };
        let layout = ParamLayout::new(std::iter::once(&s.params));
        let sp = SuitePages {
            css: "c.css",
            facts: &facts,
            suite: "kv",
            dir: "suites/kv".into(),
            layout: &layout,
        };
        let r = render_series(&sp, &s, &[]).unwrap();
        assert!(r.path.starts_with("suites/kv/") && r.path.ends_with(".html"));
        assert_eq!(r.href.1.0, r.path);
        assert_eq!(r.href.1.1, "get · default");
        assert_eq!(r.link.n, 5);
        assert_eq!(r.link.metric, "get (ms)");
        assert_eq!(r.link.latest, "12 ms");
        assert_eq!(r.link.change, "regressed at #103 (+20.0%)");
        assert_eq!(r.link.change_class, "verdict-regressed");
        assert_eq!(r.link.step, "0.0%");
        let html = &r.html;
        crate::site::pages::assert_numbers_read_well(html);
        assert_eq!(html.matches("<line class=\"change\"").count(), 1);
        assert_eq!(html.matches("<path class=\"note\"").count(), 1);
        // Five dots: one `M…h0` per run.
        let at = html.find("class=\"dots\" d=\"").expect("dots") + 16;
        assert_eq!(
            html[at..at + html[at..].find('"').unwrap()]
                .matches("h0")
                .count(),
            5
        );
        // The table links each run, newest first, and shows the note.
        let first = html.find("../../runs/r4/index.html").expect("run r4");
        assert!(first < html.find("../../runs/r0/index.html").expect("run r0"));
        assert!(html.contains("kernel upgrade"));
        assert!(html.contains("Lower is better. 5 runs; 1 change point."));
    }
}

#[cfg(test)]
mod suite_page_tests {
    use super::*;

    fn two_run(metric: &str, arm: &str, params: &str, latest: &str, step: &str) -> SeriesLink {
        SeriesLink {
            href: format!("{metric}-{arm}.html"),
            metric: metric.into(),
            arm: arm.into(),
            params: params.into(),
            key: String::new(),
            small: String::new(),
            n: 2,
            latest: latest.into(),
            change: String::new(),
            change_class: String::new(),
            step: step.into(),
        }
    }

    /// Series of two runs are rows of three columns a phone shows whole, not a card each:
    /// the arm (where the table has two) and the parameters under the metric's name.
    #[test]
    fn two_run_series_are_rows_of_three_columns() {
        let mut page = SuitePage {
            chrome: crate::site::pages::Chrome::new(2, "c.css", "t"),
            suite: "dynamo".into(),
            groups: Vec::new(),
            count: 0,
            once: Vec::new(),
            two: vec![
                two_run("ttft_ms", "default", "concurrency=8", "56.5 ms", "-1.5%"),
                two_run("ttft_ms", "fastokens", "concurrency=8", "46.4 ms", "-14.9%"),
            ],
            filter: false,
            many_arms: true,
        };
        let html = page.render().unwrap();
        crate::site::pages::assert_numbers_read_well(&html);
        assert!(html.contains("<th>series</th><th>latest</th><th>vs previous run</th>"));
        assert!(html.contains(
            "<tr><td><a href=\"ttft_ms-fastokens.html\">ttft_ms</a><br><small>fastokens · concurrency=8</small><td>46.4 ms<td>-14.9%"
        ), "{html}");
        assert!(!html.contains("data-label") && !html.contains("class=\"cards"));
        // One arm and no parameters: the name alone.
        page.two = vec![two_run("ttft_ms", "default", "—", "56.5 ms", "-1.5%")];
        page.many_arms = false;
        let html = page.render().unwrap();
        assert!(
            html.contains(
                "<tr><td><a href=\"ttft_ms-default.html\">ttft_ms</a><td>56.5 ms<td>-1.5%"
            ),
            "{html}"
        );
    }
}

#[cfg(test)]
mod count_tests {
    #[test]
    fn counts_are_singular_for_one() {
        use crate::present::count;
        assert_eq!(count(1, "run"), "1 run");
        assert_eq!(count(0, "change point"), "0 change points");
        assert_eq!(count(343, "run"), "343 runs");
        assert_eq!(count(1, "core"), "1 core");
        assert_eq!(count(2, "entry"), "2 entries");
        assert_eq!(count(2, "series"), "2 series");
        assert_eq!(count(3, "process"), "3 processes");
        assert_eq!(count(2, "day"), "2 days");
    }
}
