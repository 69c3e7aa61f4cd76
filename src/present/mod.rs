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

/// Orders parameter sets as people read them: numbers by value (8 before 32), text by text.
pub fn cmp_params(a: &Params, b: &Params) -> std::cmp::Ordering {
    for ((ka, va), (kb, vb)) in a.iter().zip(b.iter()) {
        let ord = ka
            .cmp(kb)
            .then_with(|| match (va.parse::<f64>(), vb.parse::<f64>()) {
                (Ok(x), Ok(y)) => x.total_cmp(&y),
                _ => va.cmp(vb),
            });
        if ord.is_ne() {
            return ord;
        }
    }
    a.len().cmp(&b.len())
}

/// A figure with a precision that suits its size.
pub fn fmt_value(v: Option<f64>) -> String {
    match v {
        None => "—".into(),
        Some(v) if !v.is_finite() => "—".into(),
        Some(v) if v.abs() >= 1000.0 => format!("{v:.0}"),
        Some(v) if v.abs() >= 100.0 => format!("{v:.1}"),
        Some(v) if v.abs() >= 1.0 => format!("{v:.2}"),
        Some(v) if v == 0.0 || v.abs() >= 1e-3 => format!("{v:.4}"),
        // Tiny values (asv's seconds) keep three significant digits: 4.33e-5, not 0.0000.
        Some(v) => format!("{v:.2e}"),
    }
}

/// A value with its unit, scaled to a unit a reader takes in at a glance: bytes as
/// KiB/MiB/GiB (binary, as `ls -h` and the transfer charts), times in s/ms/µs/ns, three
/// significant digits; any other unit as [`fmt_value`] writes the number, then the unit.
/// `82378752 B` → `78.6 MiB`; `0.000170 s` → `170 µs`; `0 B` → `0 B`.
pub fn fmt_quantity(v: Option<f64>, unit: &str) -> String {
    let Some(v) = v.filter(|v| v.is_finite()) else {
        return "—".into();
    };
    let sig3 = |x: f64| {
        let a = x.abs();
        if a >= 100.0 || a == 0.0 {
            format!("{x:.0}")
        } else if a >= 10.0 {
            format!("{x:.1}")
        } else {
            format!("{x:.2}")
        }
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
        "" => fmt_value(Some(v)),
        u => format!("{} {u}", fmt_value(Some(v))),
    }
}

pub fn pct(r: Option<f64>) -> String {
    r.map_or("—".into(), |r| format!("{:+.1}%", (r - 1.0) * 100.0))
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

/// A comparison row's Mann-Whitney p.
/// A comparison row's p-value: `0.012`, or `< 0.001` (never `0.000`); `—` without a test.
pub fn p(row: &Row) -> String {
    row.p_value.map_or("—".into(), |p| {
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
        assert_eq!(q(Some(4096.0), "bytes"), "4.00 KiB");
        assert_eq!(q(Some(1.7e-4), "s"), "170 µs");
        assert_eq!(q(Some(0.2634), "s"), "263 ms");
        assert_eq!(q(Some(12.5), "s"), "12.5 s");
        assert_eq!(q(Some(0.4594), "ms"), "459 µs");
        assert_eq!(q(Some(1500.0), "ms"), "1.50 s");
        assert_eq!(q(Some(2.5e6), "ns"), "2.50 ms");
        assert_eq!(q(Some(0.0), "ms"), "0 ms");
        assert_eq!(q(Some(4.56789), "req/s"), "4.57 req/s");
        assert_eq!(q(Some(4.56789), ""), "4.57");
        assert_eq!(q(None, "s"), "—");
        assert_eq!(q(Some(f64::NAN), "B"), "—");
    }
}
