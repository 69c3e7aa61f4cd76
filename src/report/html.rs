//! The pull-request report as one self-contained HTML file (`perfhouse report --format
//! html`): inline CSS and SVG, no external requests. Its summary, table and findings are the
//! site's compare page partials fed the same [`ComparisonView`], so the two say the same
//! words; a forest plot of the changes stands above the table.

use std::fmt::Write;

use askama::Template;

use super::{layout, worst_first};
use crate::present::html_escape;
use crate::query::compare::{Comparison, MetricComparison, Selection};
use crate::site::pages::compare::ComparisonView;
use crate::stats::verdict::Verdict;

#[derive(Template)]
#[template(path = "pr.html")]
struct PrPage<'a> {
    css: &'a str,
    /// The two selections, linked to their run pages where the site is published.
    baseline_link: String,
    candidate_link: String,
    forest: String,
    cmp: ComparisonView,
}

/// One self-contained HTML file (inline CSS and SVG, no external requests), rows worst
/// first; `site_url`: the selections and the glossary link into the published site.
pub fn pr_html(c: &Comparison, site_url: Option<&str>, css: &str) -> String {
    let l = layout(c);
    let rows = worst_first(c);
    let label = |r: &MetricComparison| {
        let p = l.varying(&r.params);
        let params = if p.is_empty() { p } else { format!(" {p}") };
        format!("{} {}{params}", r.metric, r.arm)
    };
    let site = site_url.map(|u| u.trim_end_matches('/'));
    let link = |sel: &Selection| match site {
        Some(u) => format!(
            "<a href=\"{}/runs/{}/index.html\">{}</a>",
            html_escape(u),
            html_escape(&sel.run.run_id),
            html_escape(&sel.label)
        ),
        None => html_escape(&sel.label),
    };
    let glossary = site.map_or(String::new(), |u| format!("{u}/glossary.html"));
    let page = PrPage {
        css,
        baseline_link: link(&c.baseline),
        candidate_link: link(&c.candidate),
        forest: forest_svg(&rows, &label),
        cmp: ComparisonView::new(c, &rows, (&c.baseline.label, &c.candidate.label), &glossary),
    };
    // The template and its view are checked at compile time, and every value here is a
    // String or a number: rendering cannot fail short of a bug, which the file then names.
    let html = page.render().unwrap_or_else(|e| {
        format!("<!DOCTYPE html>\n<p>perfhouse could not render templates/pr.html: {e}</p>")
    });
    format!("{html}\n")
}

/// A forest plot of the changes (point = median ratio − 1, bar = its 95% CI), inline SVG.
fn forest_svg(rows: &[&MetricComparison], label: &dyn Fn(&MetricComparison) -> String) -> String {
    let rows: Vec<&&MetricComparison> = rows.iter().filter(|r| r.ratio.is_some()).collect();
    let (w, row_h, left) = (720.0, 22.0, 330.0);
    let h = 40.0 + row_h * rows.len() as f64;
    let lim = rows
        .iter()
        .flat_map(|r| [r.ratio, r.ci_low, r.ci_high])
        .flatten()
        .map(|x| (x - 1.0).abs())
        .fold(0.05f64, f64::max)
        .min(2.0);
    let x = |v: f64| left + ((v - 1.0).clamp(-lim, lim) + lim) / (2.0 * lim) * (w - left - 20.0);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\"><title>Change of each metric with its 95% CI</title>\
         <line x1=\"{0:.1}\" y1=\"20\" x2=\"{0:.1}\" y2=\"{1:.1}\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\
         <text x=\"{0:.1}\" y=\"14\" font-size=\"11\" text-anchor=\"middle\">0%</text>\
         <text x=\"{2:.1}\" y=\"14\" font-size=\"11\">−{3:.0}%</text><text x=\"{4:.1}\" y=\"14\" font-size=\"11\" text-anchor=\"end\">+{3:.0}%</text>",
        x(1.0),
        h - 10.0,
        left,
        lim * 100.0,
        w - 20.0
    );
    for (i, r) in rows.iter().enumerate() {
        let y = 30.0 + row_h * i as f64 + row_h / 2.0;
        let color = match r.verdict {
            Verdict::Regressed => "#d55e00",
            Verdict::Improved => "#009e73",
            _ => "#0072b2",
        };
        let _ = write!(
            s,
            "<text x=\"4\" y=\"{:.1}\" font-size=\"12\">{}</text>",
            y + 4.0,
            html_escape(&label(r))
        );
        if let (Some(lo), Some(hi)) = (r.ci_low, r.ci_high) {
            let _ = write!(
                s,
                "<line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{color}\" stroke-width=\"2\"/>",
                x(lo),
                x(hi)
            );
        }
        let _ = write!(
            s,
            "<circle cx=\"{:.1}\" cy=\"{y:.1}\" r=\"4\" fill=\"{color}\"/>",
            x(r.ratio.unwrap_or(1.0))
        );
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use askama::Template;

    /// The cells of the fixture's rows as both HTML renderings print them, worked out by
    /// hand: medians scaled to their unit (10 ms, 200 req/s), changes, CIs, Holm-adjusted
    /// p and Cliff's δ, each row's reason.
    const CELLS: [&str; 12] = [
        "<td class=\"verdict-regressed\" data-label=\"verdict\">regressed</td><td data-label=\"metric\">latency (ms)</td><td data-label=\"params\">concurrency=8</td><td class=\"num\" data-label=\"n\">5/5</td>",
        "data-label=\"main\">10 ms</td><td class=\"num\" data-label=\"pr-7\">12 ms</td><td class=\"num\" data-label=\"change\">+20.0%</td><td class=\"num\" data-label=\"95% CI\">+10.0% … +30.0%</td><td class=\"num\" data-label=\"Holm-adjusted p\">0.024</td>",
        "<td class=\"num\" data-label=\"Cliff's δ\">+1.00</td><td class=\"why\" data-label=\"why\">CI beyond ±2%; Holm-adjusted p = 0.024</td>",
        "<td class=\"verdict-inconclusive\" data-label=\"verdict\">inconclusive</td><td data-label=\"metric\">throughput (req/s)</td>",
        ">200 req/s</td>",
        ">210 req/s</td>",
        ">-1.0% … +11.0%</td>",
        ">0.060</td>",
        ">+0.60</td>",
        "<td class=\"verdict-improved\" data-label=\"verdict\">improved</td><td data-label=\"metric\">latency (ms)</td><td data-label=\"params\">concurrency=16</td>",
        ">17.5 ms</td><td class=\"num\" data-label=\"change\">-12.5%</td>",
        ">-1.00</td>",
    ];

    /// One literal comparison, rendered as the PR report and as the site's A/B page: the
    /// same row cells, the same summary and findings, the same heading of the p column.
    #[test]
    fn the_pr_report_and_the_compare_page_print_the_same_rows() {
        let c = crate::report::fixture::comparison();
        let pr = pr_html(&c, None, "main{}");
        let chrome = crate::site::pages::Chrome::new(2, "style.css", "svc #2: main vs pr-7");
        let page =
            crate::site::pages::compare::compare_page(chrome, ("svc", 2), ("main", "pr-7"), &c)
                .render()
                .unwrap();
        for html in [&pr, &page] {
            for cell in CELLS {
                assert!(html.contains(cell), "{cell}\n{html}");
            }
            for words in [
                "<th>Holm-adjusted p</th>",
                "; noise thresholds per series (floor ±2%): 3 at the floor.",
                " All rows at model=m1.</p>",
                "<p class=\"overall\">3 judged: 1 regressed, 1 improved, 0 unchanged, 1 inconclusive; geometric mean of ratios +3.3% over 3 judged rows; p Holm-corrected over 3 test(s).</p>",
                "<li>concurrency=8: regressed by instructions</li>",
                "<section id=\"flags\"><h2>Flags</h2><ul><li>different machines</li></ul></section>",
                "<li>client-bound at concurrency=16</li>",
            ] {
                assert!(html.contains(words), "{words}\n{html}");
            }
            assert!(
                !html.contains("<th>arm</th>"),
                "one arm pair: no arm column"
            );
        }
        // The page in the comparison's order, the report worst first (`badness`): regressed,
        // then inconclusive, then improved.
        let at = |html: &str, v: &str| html.find(&format!("class=\"verdict-{v}\"")).unwrap();
        assert!(at(&page, "inconclusive") < at(&page, "improved"));
        assert!(
            at(&pr, "regressed") < at(&pr, "inconclusive")
                && at(&pr, "inconclusive") < at(&pr, "improved")
        );
        // The report stands alone: its CSS inline, no link out without a site, a forest plot.
        assert!(pr.starts_with("<!DOCTYPE html>") && pr.contains("<style>main{}</style>"));
        assert!(!pr.contains("href="), "{pr}");
        assert!(page.contains("<a href=\"../../glossary.html#holm\">Holm-adjusted</a>"));
        assert!(pr.contains("<figure class=\"chart\"><svg") && pr.contains("<circle"));
    }

    /// With a published site the selections and the glossary link into it.
    #[test]
    fn the_pr_report_links_into_the_site() {
        let c = crate::report::fixture::comparison();
        let pr = pr_html(&c, Some("https://o.github.io/r/"), "");
        assert!(pr.contains("<h1><a href=\"https://o.github.io/r/runs/r1/index.html\">main</a> → <a href=\"https://o.github.io/r/runs/r2/index.html\">pr-7</a></h1>"), "{pr}");
        assert!(pr.contains("<a href=\"https://o.github.io/r/glossary.html#cliffs-delta\">"));
    }

    /// The forest plot, by hand: the widest excursion is the regression's CI top, 1.3, so
    /// the axis runs ±30 %; 0 % sits at 330 + 370/2 = 515, ratio 1.2 at 330 + 0.5/0.6 · 370.
    #[test]
    fn the_forest_plot_scales_to_the_widest_ci() {
        let rows = crate::report::fixture::rows();
        let refs: Vec<&MetricComparison> = rows.iter().collect();
        let svg = forest_svg(&refs, &|r: &MetricComparison| r.metric.clone());
        assert!(
            svg.contains("<text x=\"330.0\" y=\"14\" font-size=\"11\">−30%</text>"),
            "{svg}"
        );
        assert!(svg.contains("<line x1=\"515.0\" y1=\"20\""), "{svg}");
        let x = 330.0 + 0.5 / 0.6 * 370.0;
        assert!(
            svg.contains(&format!(
                "<circle cx=\"{x:.1}\" cy=\"41.0\" r=\"4\" fill=\"#d55e00\"/>"
            )),
            "{svg}"
        );
    }
}
