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
