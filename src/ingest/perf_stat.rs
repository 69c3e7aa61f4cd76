//! `perf stat` output: the counters one command ran with (issue 42 item 5), as perf writes them
//! to stderr, in either of its two layouts (linux-perf 6.1, `tools/perf/util/stat-display.c`):
//!
//! - text: a `Performance counter stats for '<command>':` header, one line per event
//!   (`8.66 msec task-clock  # 0.312 CPUs utilized`, `1,234 instructions:u  # …`, with
//!   `( +-  0.56% )` under `-r N`), then `<s> seconds time elapsed`, `seconds user`,
//!   `seconds sys`;
//! - CSV (`-x,`): `value,unit,event,run-time,percent-running,metric-value,metric-unit`, with a
//!   `variance` field after the event under `-r N`.
//!
//! The file is one trial; each counted event one metric, named by its event in snake case
//! (`task-clock` → `task_clock`, `instructions:u` → `instructions_u`): times (`msec`) in ns,
//! counts with unit `count`, any other unit kept; every counter is lower-is-better. Under
//! `-r N`, perf's `+- x%` (the standard deviation of the mean, relative to it) is kept as
//! `<event>_noise` (%). The elapsed, user and system seconds of the text layout become
//! `elapsed_time`, `user_time`, `sys_time` (ns). Events perf printed as `<not supported>` or
//! `<not counted>` (no PMU, as in most virtual machines; a multiplexed event that never ran)
//! are not recorded, never as zero, and are named in one warning. perf's derived ratios after
//! `#` (CPUs utilized, /sec, insn per cycle) are left out: they are computed from the counters.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::adapter::Parsed;
use super::text::{line_error, metric, no_benchmarks, number};
use super::{IngestError, ParsedTrial};
use crate::model::{Better, Metric};

/// A counter line of the text layout: value (or `<not …>`), unit, event, then perf's notes.
static TEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^\s*(<not supported>|<not counted>|[\d,.]+)\s+(?:(msec|[A-Za-z]+/?\S*)\s+)??([A-Za-z][\w\-:./=,]*?)(?:\s+#.*?)?(?:\s+\(\s*\+-\s*([\d.]+)%\s*\))?\s*$",
    )
    .unwrap()
});

/// `0.027767515 seconds time elapsed` (`0.0127 +- 0.0002 seconds time elapsed  ( +-  1.18% )`
/// under `-r N`), and `seconds user`, `seconds sys`.
static SECONDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^\s*([\d.]+)(?:\s+\+-\s+[\d.]+)?\s+seconds\s+(time elapsed|user|sys)(?:\s+\(\s*\+-\s*([\d.]+)%\s*\))?\s*$",
    )
        .unwrap()
});

const HEADER: &str = "Performance counter stats for";

pub fn sniff(text: &str) -> bool {
    text.contains(HEADER) || text.lines().take(50).any(|l| csv_fields(l).is_some())
}

/// The fields of one `-x,` line: value, unit, event, variance (under `-r N`), or `None`
/// when the line is not one.
fn csv_fields(line: &str) -> Option<(&str, &str, &str, Option<&str>)> {
    let f: Vec<&str> = line.trim_end_matches('\r').split(',').collect();
    let value_ok = |v: &str| v.starts_with("<not ") || number(v).is_some();
    let event_ok = |e: &str| e.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    let pct_ok = |p: &str| p.parse::<f64>().is_ok_and(|x| (0.0..=100.0).contains(&x));
    match f.as_slice() {
        [v, u, e, _run, pct, _mv, _mu] if value_ok(v) && event_ok(e) && pct_ok(pct) => {
            Some((v, u, e, None))
        }
        [v, u, e, var, _run, pct, _mv, _mu]
            if value_ok(v) && event_ok(e) && pct_ok(pct) && var.ends_with('%') =>
        {
            Some((v, u, e, Some(var.trim_end_matches('%'))))
        }
        _ => None,
    }
}

/// `task-clock` → `task_clock`, `instructions:u` → `instructions_u`.
pub(crate) fn slug(event: &str) -> String {
    let s: String = event
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' })
        .collect();
    s.trim_matches('_').to_string()
}

/// One counted event as metrics: its value in ns (`msec`), as a count (no unit) or in its
/// own unit, and perf's `+- x%` when it ran `-r N` times.
fn counter(event: &str, value: f64, unit: &str, noise: Option<f64>) -> Vec<Metric> {
    let name = slug(event);
    let mut out = vec![match unit {
        "msec" => metric("perf-stat", &name, value * 1e6, "ns", Better::Lower),
        "" => metric("perf-stat", &name, value, "count", Better::Lower),
        u => metric("perf-stat", &name, value, u, Better::Lower),
    }];
    if let Some(n) = noise {
        out.push(metric("perf-stat", &format!("{name}_noise"), n, "%", Better::Lower));
    }
    out
}

/// What one line of either layout holds.
enum Line<'a> {
    Counted(Vec<Metric>),
    NotCounted(&'a str),
    Other,
}

fn read_line(line: &str) -> Result<Line<'_>, String> {
    if let Some((v, u, e, var)) = csv_fields(line) {
        if v.starts_with("<not ") {
            return Ok(Line::NotCounted(e));
        }
        let value = number(v).ok_or_else(|| format!("expected a number, found `{v}`"))?;
        let noise = var.and_then(number);
        return Ok(Line::Counted(counter(e, value, u, noise)));
    }
    if let Some(c) = SECONDS.captures(line) {
        let secs = number(&c[1]).ok_or("expected seconds")?;
        let name = match &c[2] {
            "time elapsed" => "elapsed_time",
            "user" => "user_time",
            _ => "sys_time",
        };
        let mut m = vec![metric("perf-stat", name, secs * 1e9, "ns", Better::Lower)];
        if let Some(n) = c.get(3).and_then(|n| number(n.as_str())) {
            m.push(metric("perf-stat", &format!("{name}_noise"), n, "%", Better::Lower));
        }
        return Ok(Line::Counted(m));
    }
    if let Some(c) = TEXT.captures(line) {
        let event = c.get(3).map_or("", |e| e.as_str());
        if c[1].starts_with("<not ") {
            return Ok(Line::NotCounted(event));
        }
        let value = number(&c[1]).ok_or_else(|| format!("expected a number, found `{}`", &c[1]))?;
        let unit = c.get(2).map_or("", |u| u.as_str());
        let noise = c.get(4).and_then(|n| number(n.as_str()));
        return Ok(Line::Counted(counter(event, value, unit, noise)));
    }
    Ok(Line::Other)
}

pub fn parse(path: &Path, text: &str) -> Result<Parsed, IngestError> {
    let mut metrics = Vec::new();
    let mut not_counted: Vec<&str> = Vec::new();
    let text_layout = text.contains(HEADER);
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_end_matches('\r');
        if line.trim().is_empty() || line.contains(HEADER) {
            continue;
        }
        if !text_layout && csv_fields(line).is_none() {
            continue;
        }
        match read_line(line).map_err(|message| line_error(path, i + 1, message))? {
            Line::Counted(m) => metrics.extend(m),
            Line::NotCounted(e) => not_counted.push(e),
            Line::Other => {}
        }
    }
    if metrics.is_empty() {
        return Err(no_benchmarks(
            path,
            "`perf stat` counters: its text (`Performance counter stats for …`) or `-x,` CSV",
        ));
    }
    let warning = (!not_counted.is_empty()).then(|| {
        format!(
            "{}: {} not counted by perf (`<not supported>` or `<not counted>`: no PMU, as on most \
             virtual machines, or never scheduled): not recorded",
            path.display(),
            not_counted.join(", ")
        )
    });
    let trial = ParsedTrial {
        metrics,
        ..Default::default()
    };
    Ok(Parsed::with_warnings(vec![trial], warning))
}

/// `perf stat` output as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document = super::adapter::text_document!(
    "perf-stat",
    "`perf stat` counters (text or `-x,` CSV): the file is one trial, each counted event a metric",
    "`perf stat` text or -x, CSV",
    parse
);

#[cfg(test)]
mod tests {
    use super::*;

    fn values(p: &Parsed) -> Vec<(String, f64, String)> {
        p.trials[0]
            .metrics
            .iter()
            .map(|m| (m.name.clone(), m.value, m.unit.clone()))
            .collect()
    }

    #[test]
    fn text_with_a_pmu_noise_and_separators() {
        // perf 6.1's text layout as a machine with a PMU prints it under `-r 5`.
        let text = "\n Performance counter stats for './a.out' (5 runs):\n\n\
            \x20            12.50 msec task-clock:u                #    0.985 CPUs utilized            ( +-  1.20% )\n\
            \x20       45,678,901      instructions:u                   #    2.10  insn per cycle         ( +-  0.01% )\n\
            \x20       21,750,000      cycles:u                         #    1.740 GHz                    ( +-  0.90% )\n\
            \x20  <not counted>      cache-misses:u\n\n\
            \x20      0.012690000 +- 0.000150000 seconds time elapsed  ( +-  1.18% )\n\n";
        let p = parse(Path::new("s.txt"), text).unwrap();
        assert_eq!(
            values(&p)[..6],
            [
                ("task_clock_u".into(), 12_500_000.0, "ns".into()),
                ("task_clock_u_noise".into(), 1.2, "%".into()),
                ("instructions_u".into(), 45_678_901.0, "count".into()),
                ("instructions_u_noise".into(), 0.01, "%".into()),
                ("cycles_u".into(), 21_750_000.0, "count".into()),
                ("cycles_u_noise".into(), 0.9, "%".into()),
            ]
        );
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].contains("cache-misses:u not counted"), "{:?}", p.warnings);
    }

    #[test]
    fn csv_with_and_without_runs_and_nothing_counted_is_refused() {
        let one = "8.63,msec,task-clock,8632947,100.00,0.545,CPUs utilized\n\
                   2,,context-switches,8632947,100.00,231.671,/sec\n\
                   <not supported>,,instructions,0,100.00,,\n";
        let p = parse(Path::new("s.csv"), one).unwrap();
        assert_eq!(
            values(&p),
            [
                ("task_clock".into(), 8_630_000.0, "ns".into()),
                ("context_switches".into(), 2.0, "count".into())
            ]
        );
        let r3 = "8.63,msec,task-clock,0.56%,8634409,100.00,0.442,CPUs utilized\n";
        let p = parse(Path::new("s.csv"), r3).unwrap();
        assert_eq!(values(&p)[1], ("task_clock_noise".into(), 0.56, "%".into()));
        let none = "<not supported>,,cycles,0,100.00,,\n";
        let e = parse(Path::new("n.csv"), none).unwrap_err().to_string();
        assert!(e.contains("no benchmark lines found"), "{e}");
    }
}
