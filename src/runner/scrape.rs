//! Server metrics: a plan's `[[scrape]]` fetches a Prometheus text exposition (format 0.0.4)
//! every `interval` while a trial's command runs, on a thread of its own, and keeps every
//! sample as a row of `scrape_samples` (trial, time, target, family, kind, name, labels, `le`,
//! value). The views turn them into rates, means, maxima and quantiles over the trial's
//! measured window (`views/16_*.sql`, `views/17_*.sql`).
//!
//! A scrape that fails (connection refused, a timeout, an HTTP error, text that does not
//! parse) never fails the trial: it is counted, and the runner warns once per target.
//!
//! The parser follows the exposition format's definition
//! (<https://prometheus.io/docs/instrumenting/exposition_formats/>): `# HELP` and `# TYPE`
//! lines, other `#` lines as comments, then `name{label="value",…} value [timestamp]` with
//! label values escaped as `\\`, `\"` and `\n`, values as Go floats (`NaN`, `+Inf`, `-Inf`),
//! timestamps in integer milliseconds. Samples named `<family>_bucket`, `_sum`, `_count`
//! (histograms, summaries), `_total` and `_created` belong to the family their `# TYPE` names.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use crate::model::ScrapeSample;

/// A metric family's `# TYPE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Counter,
    Gauge,
    Histogram,
    Summary,
    Untyped,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
            Kind::Histogram => "histogram",
            Kind::Summary => "summary",
            Kind::Untyped => "untyped",
        }
    }

    fn parse(s: &str) -> Option<Kind> {
        Some(match s {
            "counter" => Kind::Counter,
            "gauge" => Kind::Gauge,
            "histogram" => Kind::Histogram,
            "summary" => Kind::Summary,
            // OpenMetrics' names for what 0.0.4 calls untyped (and kinds it has no views for).
            "untyped" | "unknown" | "info" | "stateset" | "gaugehistogram" => Kind::Untyped,
            _ => return None,
        })
    }
}

/// One sample line, with its family's name and kind resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The `# TYPE` name it belongs to (its own name where none matches).
    pub family: String,
    pub kind: Kind,
    pub name: String,
    /// In the order written.
    pub labels: Vec<(String, String)>,
    pub value: f64,
    /// Milliseconds since the epoch, where the line gives one.
    pub timestamp_ms: Option<i64>,
}

/// Text that is not the exposition format: the line, what was expected there, what was found.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("line {line}: expected {expected}, found {found}")]
pub struct ParseError {
    pub line: usize,
    pub expected: String,
    pub found: String,
}

/// Parses a text exposition (format 0.0.4).
pub fn parse(text: &str) -> Result<Vec<Sample>, ParseError> {
    let mut types: BTreeMap<&str, Kind> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_matches(|c| c == ' ' || c == '\t' || c == '\r');
        if line.is_empty() {
            continue;
        }
        let err = error_at(i + 1);
        if let Some(rest) = line.strip_prefix('#') {
            comment_line(rest, &mut types, &err)?;
        } else {
            out.push(sample_line(line, &types, &err)?);
        }
    }
    Ok(out)
}

/// The error of line `line` (1-based): what was expected there, and what was found.
fn error_at(line: usize) -> impl Fn(&str, &str) -> ParseError {
    move |expected: &str, found: &str| ParseError {
        line,
        expected: expected.to_string(),
        found: shown(found),
    }
}

/// A comment line (`rest` follows its `#`): a `# TYPE` declares its family's kind in
/// `types`; `# HELP` and other comments (`# EOF` of OpenMetrics among them) carry nothing.
fn comment_line<'a>(
    rest: &'a str,
    types: &mut BTreeMap<&'a str, Kind>,
    err: &impl Fn(&str, &str) -> ParseError,
) -> Result<(), ParseError> {
    let mut words = rest.split_whitespace();
    match words.next() {
        Some("TYPE") => {
            let name = words.next().unwrap_or("");
            if !is_metric_name(name) {
                return Err(err("a metric name after `# TYPE`", name));
            }
            let kind = words.next().unwrap_or("");
            let Some(k) = Kind::parse(kind) else {
                return Err(err(
                    "a type (counter, gauge, histogram, summary or untyped)",
                    kind,
                ));
            };
            if let Some(extra) = words.next() {
                return Err(err("the end of the `# TYPE` line", extra));
            }
            types.insert(name, k);
        }
        Some("HELP") => {
            let name = words.next().unwrap_or("");
            if !is_metric_name(name) {
                return Err(err("a metric name after `# HELP`", name));
            }
        }
        _ => {}
    }
    Ok(())
}

/// A sample line: name, labels, value and optional timestamp; a histogram bucket must
/// carry a numeric `le`.
fn sample_line(
    line: &str,
    types: &BTreeMap<&str, Kind>,
    err: &impl Fn(&str, &str) -> ParseError,
) -> Result<Sample, ParseError> {
    let (name, labels, rest) = sample_head(line).map_err(|(e, f)| err(&e, f))?;
    let mut fields = rest.split([' ', '\t']).filter(|f| !f.is_empty());
    let value_text = fields.next().unwrap_or("");
    let value = parse_value(value_text)
        .ok_or_else(|| err("a value (a number, NaN, +Inf or -Inf)", value_text))?;
    let timestamp_ms = match fields.next() {
        None => None,
        Some(t) => Some(
            t.parse::<i64>()
                .map_err(|_| err("a timestamp in integer milliseconds", t))?,
        ),
    };
    if let Some(extra) = fields.next() {
        return Err(err("the end of the sample line", extra));
    }
    let (family, kind) = family_of(name, types);
    if kind == Kind::Histogram && name.ends_with("_bucket") {
        match labels.iter().find(|(k, _)| k == "le") {
            None => return Err(err("an `le` label on a histogram bucket", line)),
            Some((_, v)) if parse_value(v).is_none() => {
                return Err(err("a number as the bucket's `le` label", v));
            }
            Some(_) => {}
        }
    }
    Ok(Sample {
        family: family.to_string(),
        kind,
        name: name.to_string(),
        labels,
        value,
        timestamp_ms,
    })
}

/// At most 40 characters of `s`, quoted (`end of line` where empty).
fn shown(s: &str) -> String {
    if s.is_empty() {
        return "the end of the line".to_string();
    }
    match s.char_indices().nth(40) {
        Some((i, _)) => format!("`{}…`", &s[..i]),
        None => format!("`{s}`"),
    }
}

fn is_metric_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_' || f == ':')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_' || x == ':')
}

/// A Go float as the exposition writes it: a decimal number, `NaN`, `+Inf`, `-Inf` (any case).
fn parse_value(s: &str) -> Option<f64> {
    match s.to_ascii_lowercase().as_str() {
        "nan" => Some(f64::NAN),
        "+inf" | "inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        // Rust would also read `infinity`; Go's text parser does too, so that is kept.
        _ => s.parse::<f64>().ok(),
    }
}

type Head<'a> = (&'a str, Vec<(String, String)>, &'a str);

/// `name{labels}` of a sample line, and the rest of the line after it. Errors are (what was
/// expected, what was found).
fn sample_head(line: &str) -> Result<Head<'_>, (String, &str)> {
    let end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(line.len());
    let name = &line[..end];
    if !is_metric_name(name) {
        return Err(("a metric name".into(), line));
    }
    let after_name = &line[end..];
    let mut rest = after_name.trim_start_matches([' ', '\t']);
    let mut blank = rest.len() < after_name.len();
    let mut labels: Vec<(String, String)> = Vec::new();
    if let Some(mut s) = rest.strip_prefix('{') {
        loop {
            s = s.trim_start_matches([' ', '\t']);
            if let Some(after) = s.strip_prefix('}') {
                s = after;
                break;
            }
            let n = s
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(s.len());
            let key = &s[..n];
            if key.is_empty() || key.starts_with(|c: char| c.is_ascii_digit()) {
                return Err(("a label name or `}`".into(), s));
            }
            s = s[n..].trim_start_matches([' ', '\t']);
            s = s
                .strip_prefix('=')
                .ok_or_else(|| (format!("`=` after label `{key}`"), s))?
                .trim_start_matches([' ', '\t']);
            s = s
                .strip_prefix('"')
                .ok_or_else(|| (format!("a quoted value of label `{key}`"), s))?;
            let mut value = String::new();
            let mut chars = s.char_indices();
            let close = loop {
                match chars.next() {
                    None => return Err((format!("the closing `\"` of label `{key}`"), "")),
                    Some((i, '"')) => break i,
                    Some((i, '\\')) => match chars.next() {
                        Some((_, '\\')) => value.push('\\'),
                        Some((_, '"')) => value.push('"'),
                        Some((_, 'n')) => value.push('\n'),
                        _ => {
                            return Err((
                                format!("an escape (\\\\, \\\" or \\n) in label `{key}`"),
                                &s[i..],
                            ));
                        }
                    },
                    Some((_, c)) => value.push(c),
                }
            };
            if labels.iter().any(|(k, _)| k == key) {
                return Err((format!("label `{key}` once"), s));
            }
            labels.push((key.to_string(), value));
            s = s[close + 1..].trim_start_matches([' ', '\t']);
            if let Some(after) = s.strip_prefix(',') {
                s = after;
            } else if !s.starts_with('}') {
                return Err(("`,` or `}` after a label".into(), s));
            }
        }
        rest = s;
        blank = rest.starts_with([' ', '\t']);
    }
    if !(rest.is_empty() || blank) {
        return Err(("a blank before the value".into(), rest));
    }
    Ok((name, labels, rest))
}

/// The family a sample belongs to and its kind: its own name's `# TYPE`, else the family
/// whose suffix it carries (`_bucket` of a histogram; `_sum`, `_count` of a histogram or
/// summary; `_total`, `_created` of a counter), else itself, untyped.
fn family_of<'a>(name: &'a str, types: &BTreeMap<&str, Kind>) -> (&'a str, Kind) {
    if let Some(k) = types.get(name) {
        return (name, *k);
    }
    let suffixes: [(&str, &[Kind]); 5] = [
        ("_bucket", &[Kind::Histogram]),
        ("_sum", &[Kind::Histogram, Kind::Summary]),
        ("_count", &[Kind::Histogram, Kind::Summary]),
        ("_total", &[Kind::Counter]),
        ("_created", &[Kind::Counter, Kind::Histogram, Kind::Summary]),
    ];
    for (suffix, kinds) in suffixes {
        if let Some(family) = name.strip_suffix(suffix)
            && let Some(k) = types.get(family)
            && kinds.contains(k)
        {
            return (family, *k);
        }
    }
    (name, Kind::Untyped)
}

/// The rows of one scrape: every sample with a finite value (a NaN is no value: a summary
/// without observations), whose family `keep` matches where given. Labels are stored as a
/// JSON object with sorted keys; a histogram bucket's `le` goes to its own column.
pub fn rows(
    samples: &[Sample],
    trial_id: i32,
    t_ns: i64,
    target: &str,
    keep: Option<&regex::Regex>,
) -> Vec<ScrapeSample> {
    samples
        .iter()
        .filter(|s| s.value.is_finite())
        .filter(|s| keep.is_none_or(|re| re.is_match(&s.family)))
        .map(|s| {
            let bucket = s.kind == Kind::Histogram && s.name.ends_with("_bucket");
            let mut le = None;
            let mut labels: BTreeMap<&str, &str> = BTreeMap::new();
            for (k, v) in &s.labels {
                if bucket && k == "le" {
                    le = parse_value(v);
                } else {
                    labels.insert(k, v);
                }
            }
            ScrapeSample {
                trial_id,
                t_ns,
                target: target.to_string(),
                family: s.family.clone(),
                kind: s.kind.as_str().to_string(),
                name: s.name.clone(),
                labels: serde_json::to_string(&labels).expect("a map of strings serialises"),
                le,
                value: s.value,
            }
        })
        .collect()
}

/// An `http://host:port/path` URL, checked where the plan is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub host: String,
    pub port: u16,
    /// Path and query (`/metrics`).
    pub path: String,
}

impl Endpoint {
    pub fn parse(s: &str) -> Result<Endpoint, String> {
        let url = url::Url::parse(s).map_err(|e| format!("`{s}`: {e}"))?;
        if url.scheme() != "http" {
            return Err(format!(
                "`{s}`: expected an http:// URL (the scraper speaks plain HTTP/1.1)"
            ));
        }
        let host = url
            .host_str()
            .ok_or_else(|| format!("`{s}`: no host"))?
            .to_string();
        let mut path = url.path().to_string();
        if let Some(q) = url.query() {
            path = format!("{path}?{q}");
        }
        Ok(Endpoint {
            host,
            port: url.port_or_known_default().unwrap_or(80),
            path,
        })
    }

    /// `host:port`, the default name of a scrape.
    pub fn authority(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }
}

/// Largest body read (a server answering with more is not a metrics endpoint).
const MAX_BODY: u64 = 64 << 20;

/// One HTTP/1.1 GET of `ep` within `timeout` per connect, write and read: the body of a
/// `200` answer (chunked or not), else why not.
pub fn get(ep: &Endpoint, timeout: Duration) -> Result<String, String> {
    let addrs: Vec<_> = (ep.host.as_str(), ep.port)
        .to_socket_addrs()
        .map_err(|e| format!("resolving {}: {e}", ep.host))?
        .collect();
    let mut last = format!("{} resolves to no address", ep.host);
    let mut stream = None;
    for a in addrs {
        match TcpStream::connect_timeout(&a, timeout) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = format!("connecting to {a}: {e}"),
        }
    }
    let mut s = stream.ok_or(last)?;
    let io = |e: std::io::Error| e.to_string();
    s.set_read_timeout(Some(timeout)).map_err(io)?;
    s.set_write_timeout(Some(timeout)).map_err(io)?;
    write!(
        s,
        "GET {} HTTP/1.1\r\nHost: {}\r\nAccept: text/plain;version=0.0.4\r\n\
         Accept-Encoding: identity\r\nUser-Agent: perfhouse\r\nConnection: close\r\n\r\n",
        ep.path,
        ep.authority()
    )
    .map_err(io)?;
    let mut bytes = Vec::new();
    s.take(MAX_BODY)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("reading the answer: {e}"))?;
    parse_response(&bytes)
}

/// The body of a `200` HTTP/1.x answer (`Transfer-Encoding: chunked` decoded, cut at its
/// `Content-Length`), else why not.
pub fn parse_response(bytes: &[u8]) -> Result<String, String> {
    let split = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("the answer ends before its headers do")?;
    let head = String::from_utf8_lossy(&bytes[..split]);
    let mut body = &bytes[split + 4..];
    let mut lines = head.lines();
    let status = lines.next().unwrap_or("");
    let code = status.split_whitespace().nth(1).unwrap_or("");
    if !status.starts_with("HTTP/1.") || code != "200" {
        return Err(format!("the server answered `{}`", status.trim()));
    }
    let mut chunked = false;
    for h in lines {
        let Some((k, v)) = h.split_once(':') else {
            continue;
        };
        let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
        if k == "transfer-encoding" && v.to_ascii_lowercase().contains("chunked") {
            chunked = true;
        } else if k == "content-length"
            && let Ok(n) = v.parse::<usize>()
        {
            body = &body[..n.min(body.len())];
        } else if k == "content-encoding" && !v.eq_ignore_ascii_case("identity") {
            return Err(format!(
                "the body is `{v}`-encoded; perfhouse asks for identity"
            ));
        }
    }
    let decoded;
    if chunked {
        decoded = dechunk(body)?;
        body = &decoded;
    }
    String::from_utf8(body.to_vec()).map_err(|_| "the body is not UTF-8".to_string())
}

fn dechunk(mut b: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    loop {
        let eol = b
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("a chunk size line without its end")?;
        let size_text = String::from_utf8_lossy(&b[..eol]);
        let size_text = size_text.split(';').next().unwrap_or("").trim();
        let n = usize::from_str_radix(size_text, 16)
            .map_err(|_| format!("`{size_text}` is not a chunk size"))?;
        b = &b[eol + 2..];
        if n == 0 {
            return Ok(out);
        }
        if b.len() < n {
            return Err("the answer ends inside a chunk".into());
        }
        out.extend_from_slice(&b[..n]);
        b = b.get(n + 2..).unwrap_or(&[]);
    }
}

/// One `[[scrape]]` of a plan, ready to run.
#[derive(Debug, Clone)]
pub struct Config {
    pub target: String,
    pub endpoint: Endpoint,
    pub interval: Duration,
    pub timeout: Duration,
    /// Families kept (all where `None`).
    pub keep: Option<regex::Regex>,
    /// Where each scrape's text is appended verbatim, after a `# perfhouse-scrape t_ns=<ns>`
    /// line (`[[scrape]] raw = true`: the trial's `scrape-<n>.prom`).
    pub raw: Option<std::path::PathBuf>,
}

/// What a scrape thread brings back.
#[derive(Debug, Default)]
pub struct Outcome {
    pub samples: Vec<ScrapeSample>,
    pub scrapes: usize,
    pub failures: usize,
    /// The first failure's reason.
    pub first_error: Option<String>,
}

fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// Scrapes once into `out`.
pub fn scrape_once(cfg: &Config, trial_id: i32, out: &mut Outcome) {
    out.scrapes += 1;
    let sent = now_ns();
    let body = get(&cfg.endpoint, cfg.timeout);
    let t_ns = sent + (now_ns() - sent) / 2;
    let parsed = body.and_then(|text| {
        if let Some(path) = &cfg.raw {
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            let nl = if text.ends_with('\n') { "" } else { "\n" };
            write!(f, "# perfhouse-scrape t_ns={t_ns}\n{text}{nl}")
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        parse(&text).map_err(|e| e.to_string())
    });
    match parsed {
        Ok(samples) => out.samples.extend(rows(
            &samples,
            trial_id,
            t_ns,
            &cfg.target,
            cfg.keep.as_ref(),
        )),
        Err(why) => {
            out.failures += 1;
            out.first_error.get_or_insert(why);
        }
    }
}

/// `raw = true`'s file back as (t_ns, text) per scrape.
pub fn read_raw(text: &str) -> Vec<(i64, &str)> {
    let mut out = Vec::new();
    let mut rest = text;
    const MARK: &str = "# perfhouse-scrape t_ns=";
    while let Some(at) = rest.find(MARK) {
        let after = &rest[at + MARK.len()..];
        let eol = after.find('\n').unwrap_or(after.len());
        let t = after[..eol].trim().parse::<i64>().unwrap_or(0);
        let body = &after[(eol + 1).min(after.len())..];
        let end = body.find(MARK).unwrap_or(body.len());
        out.push((t, &body[..end]));
        rest = &body[end..];
    }
    out
}

/// A scrape thread running until [`Running::stop`].
pub struct Running {
    stop: std::sync::mpsc::Sender<()>,
    thread: std::thread::JoinHandle<Outcome>,
}

/// Scrapes now and every `interval` after (a slow scrape skips the slots it overran) until
/// stopped, then once more.
pub fn start(cfg: Config, trial_id: i32) -> Running {
    let (stop, stopped) = std::sync::mpsc::channel::<()>();
    let thread = std::thread::spawn(move || {
        let mut out = Outcome::default();
        let t0 = Instant::now();
        let mut k: u32 = 0;
        loop {
            scrape_once(&cfg, trial_id, &mut out);
            let elapsed = t0.elapsed();
            k = k.max((elapsed.as_secs_f64() / cfg.interval.as_secs_f64()) as u32) + 1;
            let next = cfg.interval * k;
            let wait = next.saturating_sub(t0.elapsed());
            match stopped.recv_timeout(wait) {
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => continue,
                _ => break,
            }
        }
        scrape_once(&cfg, trial_id, &mut out);
        out
    });
    Running { stop, thread }
}

impl Running {
    /// Takes a last scrape and returns what the trial's scrapes gave.
    pub fn stop(self) -> Outcome {
        let _ = self.stop.send(());
        self.thread.join().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_kind_with_escapes_and_specials() {
        let text = "# HELP http_requests_total The total number of HTTP requests.\n\
# TYPE http_requests_total counter\n\
http_requests_total{method=\"post\",code=\"200\"} 1027 1395066363000\n\
http_requests_total{method=\"post\",code=\"400\"}    3 1395066363000\n\
\n\
# Escaping in label values:\n\
msdos_file_access_time_seconds{path=\"C:\\\\DIR\\\\FILE.TXT\",error=\"Cannot find file:\\n\\\"FILE.TXT\\\"\"} 1.458255915e9\n\
metric_without_timestamp_and_labels 12.47\n\
# TYPE rpc_duration_seconds summary\n\
rpc_duration_seconds{quantile=\"0.5\"} NaN\n\
rpc_duration_seconds_sum 1.7560473e+07\n\
rpc_duration_seconds_count 2693\n\
# TYPE http_request_duration_seconds histogram\n\
http_request_duration_seconds_bucket{le=\"0.05\"} 24054\n\
http_request_duration_seconds_bucket{le=\"+Inf\",} 144320\n\
http_request_duration_seconds_sum 53423\n\
http_request_duration_seconds_count 144320\n\
something_weird{problem=\"division by zero\"} +Inf -3982045\n";
        let s = parse(text).unwrap();
        assert_eq!(s.len(), 12);
        assert_eq!(s[0].family, "http_requests_total");
        assert_eq!(s[0].kind, Kind::Counter);
        assert_eq!(
            s[0].labels,
            [
                ("method".into(), "post".into()),
                ("code".into(), "200".into())
            ]
        );
        assert_eq!(
            (s[0].value, s[0].timestamp_ms),
            (1027.0, Some(1395066363000))
        );
        assert_eq!(s[2].labels[0].1, "C:\\DIR\\FILE.TXT");
        assert_eq!(s[2].labels[1].1, "Cannot find file:\n\"FILE.TXT\"");
        assert_eq!(s[2].value, 1.458255915e9);
        assert_eq!(s[3].kind, Kind::Untyped);
        assert!(s[4].value.is_nan() && s[4].kind == Kind::Summary);
        assert_eq!(
            (s[5].family.as_str(), s[5].kind),
            ("rpc_duration_seconds", Kind::Summary)
        );
        assert_eq!(s[7].family, "http_request_duration_seconds");
        assert_eq!(s[7].kind, Kind::Histogram);
        assert_eq!(s[11].value, f64::INFINITY);
        assert_eq!(s[11].timestamp_ms, Some(-3982045));
        // Rows: the NaN left out, `le` in its own column, labels sorted as JSON.
        let r = rows(&s, 7, 42, "srv", None);
        assert_eq!(
            r.len(),
            10,
            "the NaN quantile and the +Inf value are no values"
        );
        assert_eq!(r[0].labels, r#"{"code":"200","method":"post"}"#);
        let inf = r.iter().find(|x| x.le == Some(f64::INFINITY)).unwrap();
        assert_eq!((inf.value, inf.labels.as_str()), (144320.0, "{}"));
        let keep = regex::Regex::new("^http_request_duration").unwrap();
        assert_eq!(rows(&s, 7, 42, "srv", Some(&keep)).len(), 4);
    }

    #[test]
    fn errors_name_the_line_and_what_was_expected() {
        let cases = [
            ("a 1\nb{x=\"1} 2\n", 2, "the closing `\"` of label `x`"),
            ("a 1\n\nb{x=1} 2\n", 3, "a quoted value of label `x`"),
            ("a one\n", 1, "a value"),
            ("a 1 2.5\n", 1, "a timestamp in integer milliseconds"),
            ("a 1 2 3\n", 1, "the end of the sample line"),
            ("# TYPE a countr\n", 1, "a type (counter"),
            ("a{x=\"1\" y=\"2\"} 1\n", 1, "`,` or `}` after a label"),
            ("a{x=\"\\t\"} 1\n", 1, "an escape"),
            ("a{x=\"1\",x=\"2\"} 1\n", 1, "label `x` once"),
            ("1a 1\n", 1, "a metric name"),
            ("# TYPE h histogram\nh_bucket 3\n", 2, "an `le` label"),
            (
                "# TYPE h histogram\nh_bucket{le=\"x\"} 3\n",
                2,
                "a number as the bucket",
            ),
        ];
        for (text, line, expected) in cases {
            let e = parse(text).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e}");
            assert!(e.expected.starts_with(expected), "{text:?}: {e}");
        }
        assert_eq!(
            parse("a one\n").unwrap_err().to_string(),
            "line 1: expected a value (a number, NaN, +Inf or -Inf), found `one`"
        );
    }

    #[test]
    fn http_answers_chunked_or_not() {
        let plain = b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\na 1\nextra";
        assert_eq!(parse_response(plain).unwrap(), "a 1\n");
        let chunked =
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\na 1\n\r\n6;x=y\r\nb 22\n\n\r\n0\r\n\r\n";
        assert_eq!(parse_response(chunked).unwrap(), "a 1\nb 22\n\n");
        let e = parse_response(b"HTTP/1.1 404 Not Found\r\n\r\n").unwrap_err();
        assert_eq!(e, "the server answered `HTTP/1.1 404 Not Found`");
        assert!(Endpoint::parse("https://x/metrics").is_err());
        let ep = Endpoint::parse("http://127.0.0.1:8000/metrics?x=1").unwrap();
        assert_eq!((ep.port, ep.path.as_str()), (8000, "/metrics?x=1"));
        assert_eq!(
            read_raw("# perfhouse-scrape t_ns=5\na 1\n# perfhouse-scrape t_ns=9\na 2\n"),
            [(5, "a 1\n"), (9, "a 2\n")]
        );
    }
}
