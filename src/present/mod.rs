//! How values are written, shared by the site and the reports (a layer below both, so neither
//! reaches into the other): numbers and units, p-values, intervals, parameters, URL segments,
//! HTML escaping, and a sweep's cells (`sweep`).

pub mod sweep;

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use crate::model::Params;
use crate::query::compare::MetricComparison;

/// A number for a table cell: a fixed number of decimals, `—` when missing.
pub fn num(v: Option<f64>, decimals: usize) -> String {
    match v {
        Some(v) if v.is_finite() => format!("{v:.decimals$}"),
        _ => "—".to_string(),
    }
}

pub fn int(v: Option<i64>) -> String {
    v.map_or_else(|| "—".to_string(), |v| v.to_string())
}

/// `2025-10-07T05:00:07.532900Z` → `2025-10-07 05:00:07 UTC`.
pub fn time(ts: &str) -> String {
    match chrono::DateTime::parse_from_rfc3339(ts) {
        Ok(t) => t
            .with_timezone(&chrono::Utc)
            .format("%Y-%m-%d %H:%M:%S UTC")
            .to_string(),
        Err(_) => ts.to_string(),
    }
}

/// A parameter set as `k=v k=v` (`—` when empty), each value as [`param_value`] writes it:
/// the one way pages and reports write one (`model::params_text` keeps the raw values for the
/// runner's and the statistics' own messages).
pub fn params_text(params: &Params) -> String {
    if params.is_empty() {
        return "—".to_string();
    }
    params
        .iter()
        .map(|(k, v)| format!("{k}={}", param_value(k, v)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Parameters whose values are sizes, and the bytes one unit of the value is.
pub const SIZE_PARAMS: &[(&str, f64)] = &[
    ("object_size", 1.0),
    ("object_size_bytes", 1.0),
    ("object_size_mib", 1048576.0),
    ("page_size", 1.0),
    ("block_size", 1.0),
    ("buffer_size", 1.0),
    ("chunk_size", 1.0),
    ("message_size", 1.0),
    ("msg_size", 1.0),
    ("payload_size", 1.0),
    ("value_size", 1.0),
    ("bs", 1.0),
];

/// The bytes a size parameter's value stands for (`object_size=1048576` → 1048576,
/// `object_size_mib=4` → 4194304; any `*_bytes` key), `None` for any other parameter.
pub fn param_bytes(key: &str, value: &str) -> Option<f64> {
    let scale = SIZE_PARAMS
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, s)| *s)
        .or_else(|| key.ends_with("_bytes").then_some(1.0))?;
    let v: f64 = value.trim().parse().ok()?;
    (v.is_finite() && v >= 0.0).then_some(v * scale)
}

/// A parameter's value as a reader sees it: a size in binary units (`object_size=1048576` →
/// `1 MiB`, `page_size=4096` → `4 KiB`), anything else as given.
pub fn param_value(key: &str, value: &str) -> String {
    match param_bytes(key, value) {
        Some(b) => fmt_quantity(Some(b), "B"),
        None => value.to_string(),
    }
}

/// What the trials of one run have in common: parameters with one value across every trial
/// are shown once in the run's header, so tables and chart titles name only what varies.
pub struct ParamLayout {
    pub fixed: BTreeMap<String, String>,
}

impl ParamLayout {
    pub fn new<'a>(all: impl Iterator<Item = &'a Params>) -> ParamLayout {
        let mut fixed: Option<BTreeMap<String, String>> = None;
        for p in all {
            fixed = Some(match fixed {
                None => p.clone(),
                Some(f) => f.into_iter().filter(|(k, v)| p.get(k) == Some(v)).collect(),
            });
        }
        ParamLayout {
            fixed: fixed.unwrap_or_default(),
        }
    }

    /// The varying part of a parameter set as `k=v k=v`, `—` when nothing varies.
    /// The varying params for a name or title: as [`ParamLayout::varying`], but empty (not
    /// "—") where nothing varies.
    pub fn label(&self, params: &Params) -> String {
        match self.varying(params) {
            dash if dash == "—" => String::new(),
            text => text,
        }
    }

    pub fn varying(&self, params: &Params) -> String {
        let text: Vec<String> = params
            .iter()
            .filter(|(k, _)| !self.fixed.contains_key(*k))
            .map(|(k, v)| format!("{k}={}", param_value(k, v)))
            .collect();
        if text.is_empty() {
            "—".to_string()
        } else {
            text.join(" ")
        }
    }
}

pub use crate::model::cmp_params;

/// `v` with `digits` decimals, trailing zeros of the fraction dropped: (1.50, 2) → "1.5",
/// (4.0, 2) → "4". What every label, tick and quantity writes.
pub fn fixed(v: f64, digits: usize) -> String {
    let t = format!("{v:.digits$}");
    if t.contains('.') {
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        t
    }
}

/// A number in prose, a label or an axis tick: a whole number as one (`64`, never `64.0`),
/// else four significant digits without trailing zeros (`28.8`, `0.0417`, `1235`); below 0.001
/// in scientific notation (`1.7e-4`).
pub fn fmt_number(v: f64) -> String {
    if !v.is_finite() {
        return "—".into();
    }
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return format!("{v:.0}");
    }
    let a = v.abs();
    if a < 1e-3 {
        let t = format!("{v:.1e}");
        return t.replace(".0e", "e");
    }
    let digits = (3 - a.log10().floor() as i32).max(0) as usize;
    fixed(v, digits)
}

/// A pending change (`query::history::PendingChange`) in the words every output uses, `at`
/// where it is (or empty): "pending regression at #343: +12.0% (1 run so far; 5.2σ · 40 runs
/// before, 1 after · pending): confirmed when 2 more runs stay beyond ±3.1% of 100 ms, dropped
/// when they return".
pub fn pending_text(p: &crate::query::history::PendingChange, unit: &str, at: &str) -> String {
    let (more, stay, they) = if p.needs == 1 {
        ("1 more run".to_string(), "stays", "it returns")
    } else {
        (format!("{} more runs", p.needs), "stay", "they return")
    };
    format!(
        "pending {}{at}: {} ({} run{} so far; {}): confirmed when {more} {stay} beyond ±{:.1}% of {}, dropped when {they}",
        if p.regression {
            "regression"
        } else {
            "improvement"
        },
        signed_pct(p.magnitude),
        p.runs,
        if p.runs == 1 { "" } else { "s" },
        p.evidence.text(),
        p.threshold * 100.0,
        fmt_quantity(Some(p.level_before), unit),
    ) + &p.rerun.as_ref().map_or(String::new(), rerun_text)
}

/// "; confirm now: run `perfhouse run datasets/plans/x.toml` at abc1234 2 more times".
fn rerun_text(r: &crate::query::history::Rerun) -> String {
    let at = r
        .git_commit
        .as_deref()
        .map_or(String::new(), |c| format!(" at {}", &c[..c.len().min(12)]));
    let times = if r.runs == 1 {
        "once more".to_string()
    } else {
        format!("{} more times", r.runs)
    };
    format!("; confirm now: run `perfhouse run {}`{at} {times}", r.plan)
}

/// An arm's name as a reader sees it: the copy an A/A calibration runs (`gzip~aa`, see
/// `query::noise::aa_twin`) is "gzip (A/A copy)".
pub fn arm_label(arm: &str) -> String {
    match arm.strip_suffix("~aa") {
        Some(base) if !base.is_empty() => format!("{base} (A/A copy)"),
        _ => arm.to_string(),
    }
}

/// A metric's name as a reader sees it: a registry figure by its label ("Little's law
/// ratio", not `littles_law_ratio`), any other by its name, with its unit where it has one.
pub fn metric_label(name: &str, unit: &str) -> String {
    match crate::query::figures::get(name) {
        Some(f) => f.label.to_string(),
        None if unit.is_empty() => name.to_string(),
        None => format!("{name} ({unit})"),
    }
}

/// A figure with a precision that suits its size (table cells: the decimals of a column's
/// values stay alike); zero is `0`, never `0.0000`.
pub fn fmt_value(v: Option<f64>) -> String {
    match v {
        None => "—".into(),
        Some(v) if !v.is_finite() => "—".into(),
        Some(0.0) => "0".into(),
        Some(v) if v.abs() >= 1000.0 => format!("{v:.0}"),
        Some(v) if v.abs() >= 100.0 => format!("{v:.1}"),
        Some(v) if v.abs() >= 1.0 => format!("{v:.2}"),
        Some(v) if v == 0.0 || v.abs() >= 1e-3 => format!("{v:.4}"),
        // Tiny values (asv's seconds) keep three significant digits: 4.33e-5, not 0.0000.
        Some(v) => format!("{v:.2e}"),
    }
}

/// Units that count things: written as whole numbers where they are (`fmt_number`).
pub const COUNT_UNITS: &[&str] = &[
    "count",
    "requests",
    "tokens",
    "ops",
    "iterations",
    "instructions",
    "cycles",
    "items",
    "trials",
];

/// The prefixed steps of a unit, each as (its size in `unit`, its name), smallest first:
/// bytes in binary steps (B … TiB, as `ls -h` and the transfer charts), times from ns to s.
/// `None` for a unit without prefixes (a count, a rate, a ratio).
pub fn unit_ladder(unit: &str) -> Option<Vec<(f64, &'static str)>> {
    const BYTES: [(f64, &str); 5] = [
        (1.0, "B"),
        (1024.0, "KiB"),
        (1048576.0, "MiB"),
        (1073741824.0, "GiB"),
        (1099511627776.0, "TiB"),
    ];
    // Times in the given unit's terms (its power of ten): whole powers, so 1 ms is 1e-3 s
    // exactly, not 1e-6 / 1e-3.
    let times = |base: i32| {
        [(-9, "ns"), (-6, "µs"), (-3, "ms"), (0, "s")]
            .iter()
            .map(|(e, n)| (10f64.powi(e - base), *n))
            .collect()
    };
    match unit {
        "B" | "bytes" | "byte" => Some(BYTES.to_vec()),
        "s" | "sec" | "seconds" => Some(times(0)),
        "ms" => Some(times(-3)),
        "us" | "µs" => Some(times(-6)),
        "ns" => Some(times(-9)),
        _ => None,
    }
}

/// The step of `unit` a value of size `magnitude` reads best in: the largest step it reaches
/// (the first where it reaches none), as (its size in `unit`, its name). A unit without
/// prefixes is its own step. What [`fmt_quantity`] and every chart axis scale by.
pub fn unit_step(unit: &str, magnitude: f64) -> (f64, String) {
    match unit_ladder(unit) {
        Some(steps) => {
            let m = magnitude.abs();
            let (f, n) = steps
                .iter()
                .rev()
                .find(|(f, _)| m >= *f * (1.0 - 1e-9))
                .copied()
                .unwrap_or(steps[0]);
            (f, n.to_string())
        }
        None => (1.0, unit.to_string()),
    }
}

/// A value with its unit, scaled to a unit a reader takes in at a glance: bytes as
/// KiB/MiB/GiB (binary, as `ls -h` and the transfer charts), times in s/ms/µs/ns, three
/// significant digits; counts as whole numbers; any other unit three significant digits too.
/// `82378752 B` → `78.6 MiB`; `0.000170 s` → `170 µs`; `0 B` → `0 B`.
pub fn fmt_quantity(v: Option<f64>, unit: &str) -> String {
    fmt_quantity_digits(v, unit, 3)
}

/// [`fmt_quantity`] with `digits` significant digits (3 or 4): a series page's runs, where
/// neighbouring values differ by less than a percent, keep four (`130.3 ms`).
pub fn fmt_quantity_digits(v: Option<f64>, unit: &str, digits: usize) -> String {
    let Some(v) = v.filter(|v| v.is_finite()) else {
        return "—".into();
    };
    if v == 0.0 && !unit.is_empty() {
        return format!("0 {unit}");
    }
    let sig = |x: f64| significant(x, digits);
    if unit_ladder(unit).is_some() {
        let (factor, name) = unit_step(unit, v);
        return format!("{} {name}", sig(v / factor));
    }
    let shown = match unit {
        // Counts are whole: 1.2e6 instructions is 1200000, a mean count keeps 4 digits.
        u if COUNT_UNITS.contains(&u) => fmt_number(v),
        "" if digits > 3 && (1e-3..1e6).contains(&v.abs()) => return sig(v),
        "" => return fmt_value(Some(v)),
        // Any other unit: three significant digits as above (900 req/s, 15.9 MB/s), tiny
        // values in scientific notation (1.7e-4 x).
        _ if v.abs() >= 0.01 => sig(v),
        _ => fmt_number(v),
    };
    format!("{shown} {}", unit_after(&shown, unit))
}

/// A unit that names things (`cores`, `requests`) in the singular after a value shown as
/// exactly 1 ("1 core", "1.5 cores", "0 cores"); symbols (`ms`, `req/s`, `B`) as they are.
pub fn unit_after<'a>(shown: &str, unit: &'a str) -> &'a str {
    let word = unit.len() > 3
        && unit.bytes().all(|b| b.is_ascii_lowercase())
        && !unit.ends_with("ss")
        && !unit.ends_with("series");
    match unit.strip_suffix('s') {
        Some(one) if word && matches!(shown, "1" | "-1") => one,
        _ => unit,
    }
}

/// `x` with `digits` significant digits, trailing zeros of a fraction dropped; whole numbers
/// at and above 10^digits as they are (1023, not 1.02e3).
pub fn significant(x: f64, digits: usize) -> String {
    let a = x.abs();
    let whole = if a == 0.0 {
        digits as i32
    } else {
        a.log10().floor() as i32 + 1
    };
    fixed(x, (digits as i32 - whole).max(0) as usize)
}

/// Three significant digits, trailing zeros of a fraction dropped: 78.6, 4, 1.5 (whole
/// numbers from 100 up: 1023, not 1.02e3).
pub fn sig3(x: f64) -> String {
    significant(x, 3)
}

pub use crate::model::signed_pct;

/// `n` and its noun, singular for one: "1 run", "2 runs", "1 core"; `plural` where the noun
/// does not take an `s` ("1 entry", "2 entries").
pub fn count(n: usize, noun: &str) -> String {
    format!("{n} {}", plural(n, noun))
}

/// `noun` for `n` of it: "run"/"runs", "entry"/"entries", "process"/"processes",
/// "series"/"series".
pub fn plural(n: usize, noun: &str) -> String {
    if n == 1 || noun.ends_with("series") {
        return noun.to_string();
    }
    if let Some(stem) = noun.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'o', 'u'])
    {
        return format!("{stem}ies");
    }
    if noun.ends_with(['s', 'x']) || noun.ends_with("ch") || noun.ends_with("sh") {
        return format!("{noun}es");
    }
    format!("{noun}s")
}

/// A ratio as its change in percent (`1.066` → `+6.6%`), `—` when missing.
pub use crate::stats::verdict::change_text as pct;

/// A page's file name for a user string: the string itself where it is already a plain,
/// lower-case file name (`asv`, `bench.time_series_0`), otherwise its [`slug`]. Plain names
/// never end in a slug's `-` and eight hex digits, nor equal one of `reserved` (the other
/// files of the same folder), so the two kinds never meet; upper case is slugged, as two
/// names that differ only in case would be one file on macOS and Windows.
pub fn page_name(name: &str, reserved: &[&str]) -> String {
    if is_plain(name) && !reserved.contains(&name) {
        name.to_string()
    } else {
        slug(name)
    }
}

fn is_plain(name: &str) -> bool {
    let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c);
    let hashed_tail = name.len() >= 8
        && name[name.len() - 8..]
            .chars()
            .all(|c| c.is_ascii_hexdigit())
        && (name.len() == 8 || name[..name.len() - 8].ends_with('-'));
    (1..=60).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.chars().all(allowed)
        && !hashed_tail
}

/// A file-name-safe, collision-resistant slug of a user string.
pub fn slug(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect::<String>()
        .split('-')
        .filter(|p| !p.is_empty())
        .take(6)
        .collect::<Vec<_>>()
        .join("-");
    let h = &hex::encode(Sha256::digest(name.as_bytes()))[..8];
    if clean.is_empty() {
        h.to_string()
    } else {
        format!("{}-{h}", &clean[..clean.len().min(40)])
    }
}

pub fn short_commit(c: &Option<String>) -> String {
    c.as_deref()
        .map(|c| crate::model::short_commit(c).to_string())
        .unwrap_or_default()
}

/// The 95 % CI of a comparison row's ratio, as percentages.
pub fn ci(row: &MetricComparison) -> String {
    match (row.ci_low, row.ci_high) {
        (Some(lo), Some(hi)) => format!("{} … {}", pct(Some(lo)), pct(Some(hi))),
        _ => "—".into(),
    }
}

/// The p-value a comparison row's verdict rests on (`MetricComparison::decisive_p`: Holm-adjusted where
/// the comparison has a family of tests; the column is headed `Comparison::p_heading`):
/// `0.012`, or `< 0.001` (never `0.000`); `—` without a test.
pub fn p(row: &MetricComparison) -> String {
    row.decisive_p().map_or("—".into(), |p| {
        if p < 0.001 {
            "< 0.001".into()
        } else {
            format!("{p:.3}")
        }
    })
}

/// `text` percent-encoded for one URL path segment (a commit id is hex, but `--commit` is
/// user input).
pub fn url_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A long name (asv's `module.Class.benchmark`, without spaces) as HTML that a narrow column
/// wraps between its parts, never inside a word: escaped, with `<wbr>` after each `.` of a
/// name longer than 24 characters, and after each `_` of a part still longer than 20. A short
/// name is only escaped (a 1,000-run site writes a name per run page row).
pub fn wrap_name(name: &str) -> String {
    if name.chars().count() <= 24 {
        return html_escape(name);
    }
    let parts: Vec<String> = name
        .split('.')
        .map(|part| {
            if part.chars().count() > 20 {
                part.split('_')
                    .map(html_escape)
                    .collect::<Vec<_>>()
                    .join("_<wbr>")
            } else {
                html_escape(part)
            }
        })
        .collect();
    parts.join(".<wbr>")
}

/// `s` with the five characters HTML gives meaning escaped.
pub fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {

    /// A unit that names things is singular after exactly 1 and plural otherwise; symbols
    /// and "series" stay as they are.
    #[test]
    fn a_unit_after_one_is_singular() {
        use super::{fmt_quantity, unit_after};
        assert_eq!(fmt_quantity(Some(1.0), "cores"), "1 core");
        assert_eq!(fmt_quantity(Some(1.5), "cores"), "1.5 cores");
        assert_eq!(fmt_quantity(Some(0.0), "cores"), "0 cores");
        assert_eq!(fmt_quantity(Some(1.0), "requests"), "1 request");
        assert_eq!(fmt_quantity(Some(-1.0), "instructions"), "-1 instruction");
        assert_eq!(fmt_quantity(Some(1.0), "ops"), "1 ops");
        assert_eq!(fmt_quantity(Some(1.0), "req/s"), "1 req/s");
        assert_eq!(fmt_quantity(Some(1.0), "s"), "1 s");
        assert_eq!(unit_after("1", "series"), "series");
        assert_eq!(unit_after("1", "process"), "process");
    }
    #[test]
    fn quantities_scale_to_a_readable_unit() {
        use super::fmt_quantity as q;
        assert_eq!(q(Some(82378752.0), "B"), "78.6 MiB"); // 82378752 / 2^20 = 78.56
        assert_eq!(q(Some(0.0), "B"), "0 B");
        assert_eq!(q(Some(4096.0), "bytes"), "4 KiB");
        assert_eq!(q(Some(1.7e-4), "s"), "170 µs");
        assert_eq!(q(Some(0.2634), "s"), "263 ms");
        assert_eq!(q(Some(12.5), "s"), "12.5 s");
        assert_eq!(q(Some(0.4594), "ms"), "459 µs");
        assert_eq!(q(Some(1500.0), "ms"), "1.5 s");
        assert_eq!(q(Some(2.5e6), "ns"), "2.5 ms");
        assert_eq!(q(Some(0.0), "ms"), "0 ms");
        assert_eq!(q(Some(4.56789), "req/s"), "4.57 req/s");
        assert_eq!(q(Some(900.0), "req/s"), "900 req/s");
        assert_eq!(q(Some(310.0), "MiB"), "310 MiB");
        assert_eq!(q(Some(15.8612), "MB/s"), "15.9 MB/s");
        assert_eq!(q(Some(1.7e-4), "x"), "1.7e-4 x");
        assert_eq!(q(Some(4.56789), ""), "4.57");
        assert_eq!(q(None, "s"), "—");
        assert_eq!(q(Some(f64::NAN), "B"), "—");
    }

    /// Every magnitude of bytes, times and counts, each worked out by hand.
    #[test]
    fn one_formatter_at_every_magnitude() {
        use super::{fmt_number as n, fmt_quantity as q, fmt_value as v};
        // Bytes: binary units from B to TiB, three significant digits.
        for (b, text) in [
            (0.0, "0 B"),
            (1.0, "1 B"),
            (999.0, "999 B"),
            (1023.0, "1023 B"),
            (1024.0, "1 KiB"),
            (1536.0, "1.5 KiB"),
            (10_240.0, "10 KiB"),
            (123_456.0, "121 KiB"), // 120.56 → 121
            (1_048_576.0, "1 MiB"),
            (82_378_752.0, "78.6 MiB"), // 78.56
            (5_368_709_120.0, "5 GiB"),
            (1.5 * 1_099_511_627_776.0, "1.5 TiB"),
        ] {
            assert_eq!(q(Some(b), "B"), text, "{b} B");
        }
        // Times given in s, ms, µs and ns land in the unit that reads best.
        for (x, unit, text) in [
            (1.2e-9, "s", "1.2 ns"),
            (4.33e-5, "s", "43.3 µs"),
            (0.001, "s", "1 ms"),
            (0.0999, "s", "99.9 ms"),
            (1.0, "s", "1 s"),
            (3600.0, "s", "3600 s"),
            (0.25, "ms", "250 µs"),
            (250.0, "ms", "250 ms"),
            (12_345.0, "ms", "12.3 s"),
            (0.5, "us", "500 ns"),
            (1500.0, "µs", "1.5 ms"),
            (999.0, "ns", "999 ns"),
            (1.0e9, "ns", "1 s"),
        ] {
            assert_eq!(q(Some(x), unit), text, "{x} {unit}");
        }
        // Counts: whole numbers as integers at any size, a mean keeps four digits.
        for (x, text) in [
            (0.0, "0 count"),
            (7.0, "7 count"),
            (1_200_000.0, "1200000 count"),
            (28.8, "28.8 count"),
            (2.5e12, "2500000000000 count"),
        ] {
            assert_eq!(q(Some(x), "count"), text, "{x}");
        }
        assert_eq!(q(Some(1.0e6), "instructions"), "1000000 instructions");
        // Plain numbers: no trailing zeros, no "0.0000", tiny ones in scientific notation.
        for (x, text) in [
            (0.0, "0"),
            (64.0, "64"),
            (300.0, "300"),
            (28.8, "28.8"),
            (213.13, "213.1"),
            (1234.56, "1235"),
            (0.5, "0.5"),
            (0.041_66, "0.04166"),
            (1.7e-4, "1.7e-4"),
            (-14.25, "-14.25"),
        ] {
            assert_eq!(n(x), text, "{x}");
        }
        assert_eq!(v(Some(0.0)), "0");
        assert_eq!(v(Some(4.33e-5)), "4.33e-5");
        assert_eq!(v(Some(12.0)), "12.00");
    }

    /// Long names wrap between their parts, never inside a word (issue 40 item 7).
    #[test]
    fn long_names_wrap_between_their_parts() {
        use super::wrap_name;
        assert_eq!(wrap_name("bench.time_series_0"), "bench.time_series_0");
        assert_eq!(
            wrap_name("benchmark_runner.RunnerTimeSuite.time_compute_bound_runner"),
            "benchmark_runner.<wbr>RunnerTimeSuite.<wbr>time_<wbr>compute_<wbr>bound_<wbr>runner"
        );
        assert_eq!(
            wrap_name("a<b>.cdefghijklmnopqrstuvwxyz"),
            "a&lt;b&gt;.<wbr>cdefghijklmnopqrstuvwxyz"
        );
    }

    #[test]
    fn changes_params_and_counts_read_one_way() {
        use super::{count, param_value, params_text, signed_pct, significant};
        assert_eq!(signed_pct(-0.00004), "0.0%");
        assert_eq!(signed_pct(0.066), "+6.6%");
        assert_eq!(signed_pct(-0.052), "-5.2%");
        assert_eq!(param_value("object_size", "1048576"), "1 MiB");
        assert_eq!(param_value("page_size", "4096"), "4 KiB");
        assert_eq!(param_value("object_size_mib", "4"), "4 MiB");
        assert_eq!(param_value("payload_bytes", "65536"), "64 KiB");
        assert_eq!(param_value("batch_size", "1024"), "1024");
        assert_eq!(param_value("concurrency", "8"), "8");
        let p: crate::model::Params = [
            ("object_size".to_string(), "1048576".to_string()),
            ("numa".to_string(), "interleave".to_string()),
        ]
        .into();
        assert_eq!(params_text(&p), "numa=interleave object_size=1 MiB");
        assert_eq!(count(1, "core"), "1 core");
        assert_eq!(significant(130.34, 4), "130.3");
        assert_eq!(significant(0.012345, 3), "0.0123");
        assert_eq!(significant(1023.0, 3), "1023");
    }
}
