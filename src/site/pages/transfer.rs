//! The transfer page of a run (`templates/transfer.html`).

use std::collections::BTreeMap;

use askama::Template;

use crate::site::SiteError;
use crate::site::charts::{self};
use crate::site::load::*;
use crate::site::*;

pub struct TransferRow {
    pub metric: String,
    pub placement: String,
    pub params: String,
    pub value: String,
}

#[derive(Template)]
#[template(path = "transfer.html")]
pub struct TransferPage {
    pub chrome: crate::site::pages::Chrome,
    pub suite: String,
    pub number: String,
    pub charts: Vec<ChartView>,
    pub rows: Vec<TransferRow>,
}

pub(crate) const SIZE_KEYS: &[(&str, f64)] = &[
    ("object_size", 1.0),
    ("object_size_bytes", 1.0),
    ("object_size_mib", 1048576.0),
];

/// The transfer page of a run whose metrics are in GB/s by object size (LMCache's transfer
/// channel benchmark, the dd plan): GB/s vs object size and vs page size, a line per placement.
pub(crate) fn transfer_page(
    r: &RunRow,
    medians: &[MetricMedianRow],
    css: &str,
) -> Result<Option<TransferPage>, SiteError> {
    struct P {
        metric: String,
        line: String,
        size: Option<f64>,
        page: Option<f64>,
        params: BTreeMap<String, String>,
        value: f64,
    }
    let mut pts = Vec::new();
    for m in medians.iter().filter(|m| m.unit == "GB/s") {
        let params = m.params.clone();
        let size = SIZE_KEYS.iter().find_map(|(k, scale)| {
            params
                .get(*k)
                .and_then(|v| v.parse::<f64>().ok())
                .map(|v| v * scale)
        });
        let page = params.get("page_size").and_then(|v| v.parse::<f64>().ok());
        if size.is_none() && page.is_none() {
            continue;
        }
        let value = m.median;
        let placement = params.get("numa").cloned().unwrap_or_else(|| m.arm.clone());
        pts.push(P {
            metric: m.name.clone(),
            line: placement,
            size,
            page,
            params,
            value,
        });
    }
    if pts.is_empty() {
        return Ok(None);
    }
    let mut charts = Vec::new();
    for (axis, label) in [
        ("size", "object size (log scale)"),
        ("page", "page size (log scale)"),
    ] {
        let mut lines: BTreeMap<(String, String), Vec<(f64, f64)>> = BTreeMap::new();
        for p in &pts {
            let (x, other) = if axis == "size" {
                (p.size, p.page)
            } else {
                (p.page, p.size)
            };
            let Some(x) = x else { continue };
            let other = other.map(|o| format!(" @{o}")).unwrap_or_default();
            lines
                .entry((p.metric.clone(), format!("{}{other}", p.line)))
                .or_default()
                .push((x.log2(), p.value));
        }
        let distinct: std::collections::BTreeSet<u64> =
            lines.values().flatten().map(|(x, _)| x.to_bits()).collect();
        if distinct.len() < 2 {
            continue;
        }
        let mut by_metric: BTreeMap<String, Vec<charts::Series>> = BTreeMap::new();
        for ((metric, line), mut points) in lines {
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            by_metric.entry(metric).or_default().push(charts::Series {
                label: line,
                points,
            });
        }
        for (metric, series) in by_metric {
            let title = format!(
                "{metric} vs {}",
                if axis == "size" {
                    "object size"
                } else {
                    "page size"
                }
            );
            let desc = format!("{metric} in GB/s against {label}, one line per placement.");
            charts.push(ChartView {
                svg: charts::line_chart_with(
                    &title,
                    &desc,
                    label,
                    "GB/s",
                    &series,
                    Some(&charts::log2_bytes_tick),
                )?,
            });
        }
    }
    // By object size, then page size, in bytes (4096 before 65536 before 1048576, as the
    // charts run), then the other params in numeric order.
    let mut sorted: Vec<_> = pts.iter().collect();
    let bytes = |v: Option<f64>| v.unwrap_or(f64::INFINITY);
    sorted.sort_by(|a, b| {
        (&a.metric, &a.line)
            .cmp(&(&b.metric, &b.line))
            .then_with(|| bytes(a.size).total_cmp(&bytes(b.size)))
            .then_with(|| bytes(a.page).total_cmp(&bytes(b.page)))
            .then_with(|| crate::site::cmp_params(&a.params, &b.params))
    });
    let rows: Vec<TransferRow> = sorted
        .into_iter()
        .map(|p| TransferRow {
            metric: p.metric.clone(),
            placement: p.line.clone(),
            params: p
                .params
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" "),
            value: format!("{:.2}", p.value),
        })
        .collect();
    Ok(Some(TransferPage {
        chrome: crate::site::pages::Chrome::new(
            2,
            css,
            format!("{} #{}: transfer", r.suite, r.run_no),
        )
        .suite(&r.suite)
        .run(&r.run_id, r.run_no)
        .here("transfer"),
        suite: r.suite.clone(),
        number: format!("#{}", r.run_no),
        charts,
        rows,
    }))
}
