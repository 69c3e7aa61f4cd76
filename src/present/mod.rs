//! How values are written, shared by the site and the reports (a layer below both, so neither
//! reaches into the other): numbers and units, p-values, intervals, parameters, URL segments,
//! HTML escaping, and a sweep's cells (`sweep`).

pub mod sweep;

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use crate::model::Params;
use crate::query::compare::Row;

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

pub use crate::model::params_text;

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
            .map(|(k, v)| format!("{k}={v}"))
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
        "pending {}{at}: {:+.1}% ({} run{} so far; {}): confirmed when {more} {stay} beyond ±{:.1}% of {}, dropped when {they}",
        if p.regression {
            "regression"
        } else {
            "improvement"
        },
        p.magnitude * 100.0,
        p.runs,
        if p.runs == 1 { "" } else { "s" },
        p.evidence.text(),
        p.threshold * 100.0,
        fmt_quantity(Some(p.level_before), unit),
    )
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

/// A value with its unit, scaled to a unit a reader takes in at a glance: bytes as
/// KiB/MiB/GiB (binary, as `ls -h` and the transfer charts), times in s/ms/µs/ns, three
/// significant digits; counts as whole numbers; any other unit three significant digits too.
/// `82378752 B` → `78.6 MiB`; `0.000170 s` → `170 µs`; `0 B` → `0 B`.
pub fn fmt_quantity(v: Option<f64>, unit: &str) -> String {
    let Some(v) = v.filter(|v| v.is_finite()) else {
        return "—".into();
    };
    // Three significant digits, trailing zeros of a fraction dropped: 78.6, 4, 1.5.
    let sig3 = |x: f64| {
        let a = x.abs();
        let digits = if a >= 100.0 || a == 0.0 {
            0
        } else if a >= 10.0 {
            1
        } else {
            2
        };
        fixed(x, digits)
    };
    let scaled = |steps: &[(f64, &str)]| {
        // The largest step the value reaches (the first is the base unit).
        let (factor, name) = steps
            .iter()
            .rev()
            .find(|(f, _)| v.abs() >= *f)
            .copied()
            .unwrap_or(steps[0]);
        format!("{} {name}", sig3(v / factor))
    };
    const BYTES: [(f64, &str); 5] = [
        (1.0, "B"),
        (1024.0, "KiB"),
        (1048576.0, "MiB"),
        (1073741824.0, "GiB"),
        (1099511627776.0, "TiB"),
    ];
    // Times from the smallest unit up, in the given unit's terms.
    let times = |base: f64| -> Vec<(f64, &'static str)> {
        [(1e-9, "ns"), (1e-6, "µs"), (1e-3, "ms"), (1.0, "s")]
            .iter()
            .map(|(f, n)| (f / base, *n))
            .collect()
    };
    if v == 0.0 && !unit.is_empty() {
        return format!("0 {unit}");
    }
    match unit {
        "B" | "bytes" | "byte" => scaled(&BYTES),
        "s" | "sec" | "seconds" => scaled(&times(1.0)),
        "ms" => scaled(&times(1e-3)),
        "us" | "µs" => scaled(&times(1e-6)),
        "ns" => scaled(&times(1e-9)),
        // Counts are whole: 1.2e6 instructions is 1200000, a mean count keeps 4 digits.
        u if COUNT_UNITS.contains(&u) => format!("{} {u}", fmt_number(v)),
        "" => fmt_value(Some(v)),
        // Any other unit: three significant digits as above (900 req/s, 15.9 MB/s), tiny
        // values in scientific notation (1.7e-4 x).
        u if v.abs() >= 0.01 => format!("{} {u}", sig3(v)),
        u => format!("{} {u}", fmt_number(v)),
    }
}

pub fn pct(r: Option<f64>) -> String {
    r.map_or("—".into(), crate::stats::verdict::change_pct)
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
pub fn ci(row: &Row) -> String {
    match (row.ci_low, row.ci_high) {
        (Some(lo), Some(hi)) => format!("{} … {}", pct(Some(lo)), pct(Some(hi))),
        _ => "—".into(),
    }
}

/// The p-value a comparison row's verdict rests on (`Row::decisive_p`: Holm-adjusted where
/// the comparison has a family of tests; the column is headed `Comparison::p_heading`):
/// `0.012`, or `< 0.001` (never `0.000`); `—` without a test.
pub fn p(row: &Row) -> String {
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

/// `s` with the five characters HTML gives meaning escaped.
pub fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
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
}
