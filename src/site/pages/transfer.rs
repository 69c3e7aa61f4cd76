//! The transfer page of a run (`templates/transfer.html`).

use std::collections::BTreeMap;

use askama::Template;

use crate::present::fmt_number;
use crate::site::SiteError;
use crate::site::load::*;
use crate::site::xy;
use crate::site::*;

pub struct TransferRow {
    pub metric: String,
    pub placement: String,
    pub size: String,
    pub page: String,
    pub params: String,
    pub value: String,
    pub range: String,
    pub repeats: String,
}

#[derive(Template)]
#[template(path = "transfer.html")]
pub struct TransferPage {
    pub chrome: crate::site::pages::Chrome,
    pub suite: String,
    pub number: String,
    pub charts: Vec<ChartView>,
    /// What the lines compare, and what they cannot (one NUMA placement, pages the kernel
    /// did not back as asked): sentences under the heading.
    pub notes: Vec<String>,
    pub rows: Vec<TransferRow>,
    /// Columns left out where no row has them, or every row says the same (one metric, one
    /// placement: said above the table instead).
    pub has_metric: bool,
    pub has_placement: bool,
    pub has_page: bool,
    pub has_params: bool,
}

/// The parameters that give a transfer's object size.
pub(crate) const SIZE_KEYS: &[&str] = &["object_size", "object_size_bytes", "object_size_mib"];

/// One GB/s median of a transfer run: its metric, line (placement), object and page size.
struct Measured {
    metric: String,
    line: String,
    size: Option<f64>,
    page: Option<f64>,
    params: BTreeMap<String, String>,
    value: f64,
    min: f64,
    max: f64,
    n: i64,
}

/// The transfer page of a run whose metrics are in GB/s by object size (LMCache's transfer
/// channel benchmark, the dd plan): GB/s vs object size and vs page size, a line per placement.
pub(crate) fn transfer_page(
    r: &RunRecord,
    medians: &[ArmMetricMedian],
    css: &str,
) -> Result<Option<TransferPage>, SiteError> {
    let pts = measured(medians);
    if pts.is_empty() {
        return Ok(None);
    }
    let mut placements: Vec<&str> = pts.iter().map(|p| p.line.as_str()).collect();
    placements.sort_by(|a, b| xy::arm_order(a, b));
    placements.dedup();
    let charts = charts(&pts, &placements);
    let rows = rows(&pts);
    let notes = notes(r, medians, &placements);
    let has_metric = rows.windows(2).any(|w| w[0].metric != w[1].metric);
    let has_placement = placements.len() > 1;
    let has_page = rows.iter().any(|r| !r.page.is_empty());
    let has_params = rows.iter().any(|r| !r.params.is_empty());
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
        notes,
        rows,
        has_metric,
        has_placement,
        has_page,
        has_params,
    }))
}

/// The run's GB/s medians that have an object or a page size; the placement is the `numa`
/// parameter, else the arm.
fn measured(medians: &[ArmMetricMedian]) -> Vec<Measured> {
    let mut pts = Vec::new();
    for m in medians.iter().filter(|m| m.unit == "GB/s") {
        let params = m.params.clone();
        let size = SIZE_KEYS.iter().find_map(|k| {
            params
                .get(*k)
                .and_then(|v| crate::present::param_bytes(k, v))
        });
        let page = params
            .get("page_size")
            .and_then(|v| crate::present::param_bytes("page_size", v));
        if size.is_none() && page.is_none() {
            continue;
        }
        let placement = params.get("numa").cloned().unwrap_or_else(|| m.arm.clone());
        pts.push(Measured {
            metric: m.name.clone(),
            line: placement,
            size,
            page,
            params,
            value: m.median,
            min: m.min,
            max: m.max,
            n: m.n_trials,
        });
    }
    pts
}

fn bytes(v: f64) -> String {
    crate::present::fmt_quantity(Some(v), "B")
}

/// GB/s by object size, a line per placement and page size; by page size only where the page
/// size is what varies (or varies over three sizes or more). One chart per metric and axis.
fn charts(pts: &[Measured], placements: &[&str]) -> Vec<ChartView> {
    let distinct = |f: &dyn Fn(&Measured) -> Option<f64>| {
        pts.iter()
            .filter_map(f)
            .map(f64::to_bits)
            .collect::<std::collections::BTreeSet<u64>>()
            .len()
    };
    let (sizes, pages) = (distinct(&|p| p.size), distinct(&|p| p.page));
    let axes: Vec<(&str, &str)> = [("size", "object size"), ("page", "page size")]
        .into_iter()
        .filter(|(axis, _)| match *axis {
            "size" => sizes >= 2,
            _ => pages >= 3 || (pages >= 2 && sizes < 2),
        })
        .collect();
    let mut charts = Vec::new();
    for (axis, label) in axes {
        let lines = axis_lines(pts, axis, label);
        let distinct: std::collections::BTreeSet<u64> =
            lines.values().flatten().map(|p| p.x.to_bits()).collect();
        if distinct.len() < 2 {
            continue;
        }
        for (metric, lines) in coloured(lines, placements) {
            charts.push(ChartView {
                svg: xy::Chart {
                    title: format!("{metric} by {label}"),
                    description: format!(
                        "{metric} in GB/s against {label} (log₂ scale): the median of each point's repeats, its bar from the slowest to the fastest repeat; one line per placement{}.",
                        if axis == "size" { " and page size" } else { " and object size" }
                    ),
                    x: xy::Axis::log2(format!("{label} (log₂ scale)"), xy::TickText::Bytes),
                    y: xy::Axis::linear("GB/s"),
                    lines,
                    horizontal: Vec::new(),
                    vertical: Vec::new(),
                    marks: Vec::new(),
                }
                .html(),
            });
        }
    }
    charts
}

/// The points against `axis` (`size` or `page`), one line per metric, placement and value of
/// the other size: (metric, line label, the other size's bits) → points.
fn axis_lines(
    pts: &[Measured],
    axis: &str,
    label: &str,
) -> BTreeMap<(String, String, u64), Vec<xy::Point>> {
    let mut lines: BTreeMap<(String, String, u64), Vec<xy::Point>> = BTreeMap::new();
    for p in pts {
        let (x, other) = if axis == "size" {
            (p.size, p.page)
        } else {
            (p.page, p.size)
        };
        let Some(x) = x else { continue };
        let other_text = other
            .map(|o| {
                format!(
                    ", {} {}",
                    if axis == "size" { "page" } else { "object" },
                    bytes(o)
                )
            })
            .unwrap_or_default();
        lines
            .entry((
                p.metric.clone(),
                format!("{}{other_text}", p.line),
                other.unwrap_or(0.0).to_bits(),
            ))
            .or_default()
            .push(xy::Point {
                lo: Some(p.min),
                hi: Some(p.max),
                ..xy::Point::new(
                    x,
                    p.value,
                    format!(
                        "{}{other_text} · {label} {}: {} GB/s (min {} … max {} over {} repeats)",
                        p.line,
                        bytes(x),
                        fmt_number(p.value),
                        fmt_number(p.min),
                        fmt_number(p.max),
                        p.n
                    ),
                )
            });
    }
    lines
}

/// The lines of each metric's chart, in x order: the same placement keeps its colour, its
/// lines at other sizes take the next ones.
fn coloured(
    lines: BTreeMap<(String, String, u64), Vec<xy::Point>>,
    placements: &[&str],
) -> BTreeMap<String, Vec<xy::Line>> {
    let mut by_metric: BTreeMap<String, Vec<xy::Line>> = BTreeMap::new();
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    for ((metric, line, _), mut points) in lines {
        points.sort_by(|a, b| a.x.total_cmp(&b.x));
        let placement = line.split(", ").next().unwrap_or(&line).to_string();
        let k = placements.iter().position(|p| *p == placement).unwrap_or(0);
        let nth = seen.entry((metric.clone(), placement)).or_default();
        by_metric.entry(metric).or_default().push(xy::Line {
            label: line,
            colour: xy::arm_colour(k + *nth * placements.len()),
            points,
            dashed: false,
            markers: true,
        });
        *nth += 1;
    }
    by_metric
}

/// The table: by metric, placement, object size, then page size, in bytes (4096 before 65536
/// before 1048576, as the charts run), then the other params in numeric order.
fn rows(pts: &[Measured]) -> Vec<TransferRow> {
    let mut sorted: Vec<_> = pts.iter().collect();
    let order = |v: Option<f64>| v.unwrap_or(f64::INFINITY);
    sorted.sort_by(|a, b| {
        a.metric
            .cmp(&b.metric)
            .then_with(|| xy::arm_order(&a.line, &b.line))
            .then_with(|| order(a.size).total_cmp(&order(b.size)))
            .then_with(|| order(a.page).total_cmp(&order(b.page)))
            .then_with(|| crate::site::cmp_params(&a.params, &b.params))
    });
    let shown: Vec<&str> = SIZE_KEYS
        .iter()
        .copied()
        .chain(["page_size", "numa"])
        .collect();
    sorted
        .into_iter()
        .map(|p| TransferRow {
            metric: p.metric.clone(),
            placement: p.line.clone(),
            size: p.size.map(bytes).unwrap_or_default(),
            page: p.page.map(bytes).unwrap_or_default(),
            params: p
                .params
                .iter()
                .filter(|(k, _)| !shown.contains(&k.as_str()))
                .map(|(k, v)| format!("{k}={}", crate::present::param_value(k, v)))
                .collect::<Vec<_>>()
                .join(" "),
            value: crate::present::sig3(p.value),
            range: if p.max > p.min {
                format!(
                    "{} … {}",
                    crate::present::sig3(p.min),
                    crate::present::sig3(p.max)
                )
            } else {
                String::new()
            },
            repeats: p.n.to_string(),
        })
        .collect()
}

/// What the page cannot show and why: one placement (and how many NUMA nodes the machine had,
/// the run's `numa_nodes` label), and for each page size how much of the buffers the kernel
/// backed with huge pages (the workload's `huge_page_share`), where it asked for them.
fn notes(r: &RunRecord, medians: &[ArmMetricMedian], placements: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let labels = crate::model::parse_params(&r.labels);
    if placements.len() == 1 {
        out.push(match labels.get("numa_nodes").map(String::as_str) {
            Some("1") => "One placement: this machine has one NUMA node, so interleaving memory over nodes has nothing to spread over (datasets/plans/transfer-numa.toml compares interleaved and node-bound placements where there are several).".to_string(),
            Some(n) => format!("One placement, on a machine with {n} NUMA nodes."),
            None => "One placement (the kernel's).".to_string(),
        });
    }
    let mut shares: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for m in medians.iter().filter(|m| m.name == "huge_page_share") {
        if let Some(page) = m
            .params
            .get("page_size")
            .and_then(|v| v.parse::<f64>().ok())
        {
            shares.entry(page as u64).or_default().push(m.median);
        }
    }
    for (page, v) in shares.into_iter().filter(|(page, _)| *page >= 2 << 20) {
        let share = v.iter().sum::<f64>() / v.len() as f64;
        out.push(format!(
            "{} pages: the kernel backed {:.0}% of the buffers with huge pages (transparent huge pages{}).",
            crate::present::fmt_quantity(Some(page as f64), "B"),
            share * 100.0,
            if share < 0.5 {
                ": mostly off or refused here, so these lines measure small pages"
            } else {
                ""
            }
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::verdict::Direction;

    fn run(labels: &str) -> RunRecord {
        RunRecord {
            run_id: "r1".into(),
            suite: "tc".into(),
            run_no: 4,
            started_at: String::new(),
            finished_at: String::new(),
            source: "lmcache".into(),
            status: crate::model::RunStatus::Ok,
            git_commit: None,
            git_branch: None,
            host: None,
            env_fingerprint: None,
            labels: labels.into(),
            n_trials: None,
        }
    }

    fn gbps(numa: &str, size: &str, (median, min, max): (f64, f64, f64)) -> ArmMetricMedian {
        ArmMetricMedian {
            arm: "default".into(),
            params: [("numa", numa), ("object_size", size)]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            name: "read_gbps".into(),
            unit: "GB/s".into(),
            better: Direction::HigherIsBetter,
            n_trials: 3,
            median,
            min,
            max,
            restates_requests: false,
        }
    }

    /// Two placements × two object sizes: one chart with a line and two markers per
    /// placement, and four rows by placement, then size in bytes (64 KiB before 4 MiB).
    #[test]
    fn a_transfer_page_draws_a_line_per_placement_by_object_size() {
        let medians = vec![
            gbps("node0", "4194304", (13.22, 13.0, 13.4)),
            gbps("node0", "65536", (4.0, 4.0, 4.0)),
            gbps("interleave", "4194304", (11.0, 10.5, 11.5)),
            gbps("interleave", "65536", (3.5, 3.4, 3.6)),
        ];
        let page = transfer_page(&run("{}"), &medians, "c.css")
            .unwrap()
            .expect("GB/s by object size");
        assert_eq!(page.number, "#4");
        assert_eq!(page.charts.len(), 1);
        let svg = &page.charts[0].svg;
        assert!(svg.contains("read_gbps by object size"));
        assert_eq!(svg.matches("<circle").count(), 4);
        // A bar from the slowest to the fastest repeat where they differ: three points.
        assert_eq!(svg.matches("class=\"bar\"").count(), 3);
        let rows: Vec<(&str, &str, &str, &str)> = page
            .rows
            .iter()
            .map(|r| {
                (
                    r.placement.as_str(),
                    r.size.as_str(),
                    r.value.as_str(),
                    r.range.as_str(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("interleave", "64 KiB", "3.5", "3.4 … 3.6"),
                ("interleave", "4 MiB", "11", "10.5 … 11.5"),
                ("node0", "64 KiB", "4", ""),
                ("node0", "4 MiB", "13.2", "13 … 13.4"),
            ]
        );
        assert!(page.has_placement && !page.has_metric && !page.has_page && !page.has_params);
        // Two placements: nothing to say about NUMA.
        assert!(page.notes.is_empty());
        let html = page.render().unwrap();
        assert!(html.contains("data-label=\"GB/s\">13.2</td>"), "{html}");
    }

    /// One placement on a one-node machine says why; no GB/s metric by size: no page.
    #[test]
    fn one_placement_says_why_and_no_sizes_means_no_page() {
        let medians = vec![
            gbps("node0", "4096", (1.0, 1.0, 1.0)),
            gbps("node0", "8192", (2.0, 2.0, 2.0)),
        ];
        let page = transfer_page(&run(r#"{"numa_nodes":"1"}"#), &medians, "c.css")
            .unwrap()
            .unwrap();
        assert_eq!(page.notes.len(), 1);
        assert!(page.notes[0].starts_with("One placement: this machine has one NUMA node"));
        let mut other = gbps("node0", "4096", (1.0, 1.0, 1.0));
        other.unit = "s".into();
        assert!(
            transfer_page(&run("{}"), &[other], "c.css")
                .unwrap()
                .is_none()
        );
    }
}
