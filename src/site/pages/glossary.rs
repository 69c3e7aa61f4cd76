//! The glossary (`templates/glossary.html`): the words the site uses that a reader may not
//! know, each with its own anchor that pages link to (`glossary.html#change-point`).

use askama::Template;

use crate::site::pages::Chrome;

/// (anchor, term, what it means here). One place: pages link to these anchors.
pub const TERMS: &[(&str, &str, &str)] = &[
    (
        "run",
        "run",
        "One execution of a plan, or one imported result file or history entry: a number in its suite (#12), a commit where known, and its trials.",
    ),
    (
        "arm",
        "arm",
        "One variant under test in a run (a build, a flag, a configuration). An A/B comparison sets one arm against another at the same parameters.",
    ),
    (
        "trial",
        "trial and repeat",
        "A trial is one execution of one arm at one parameter set; repeats are trials of the same arm and parameters. Figures are the median over the kept repeats; a cold first run can be discarded.",
    ),
    (
        "series",
        "series",
        "One figure of one arm at one parameter set across the runs of a suite, in run order: what a trend chart draws.",
    ),
    (
        "change-point",
        "change point",
        "A run from which a series holds a new level: the shift must exceed 2.75σ of the series' own run-to-run noise around it and at least 2 % (a suite can set its own rule with the `change_threshold` label) and pass a permutation test (p < 0.01). Vermilion when the figure got worse, green when it got better. Its evidence reads `3.5σ · 64 runs before, 36 after · p = 0.005`.",
    ),
    (
        "break",
        "known break",
        "A run where the benchmark's code, its parameters or the machine changed, or where a change was accepted as the new baseline: no change point is called across it and the trend line is not drawn through it.",
    ),
    (
        "noise-band",
        "noise band",
        "The range around a level that 99 % of unchanged runs fall into, from the series' own run-to-run differences. A run outside it is worth a look; a change point needs more than one run.",
    ),
    (
        "unstable",
        "unstable (distribution change)",
        "A stretch where a series switches between two levels (bimodal timings): moves between the two are not called changes.",
    ),
    (
        "pending",
        "pending change",
        "A move of a series' newest run or two beyond its noise, too recent to be a change point (that needs 3 runs on each side): confirmed when the next runs stay at the new level, dropped when they return.",
    ),
    (
        "whole-run",
        "whole run moved",
        "Most series of one run moved the same way beyond their own noise at once: one finding about the run (the machine, its load, the environment), not a verdict per series. Pending until later runs show whether they stayed or came back.",
    ),
    (
        "drift",
        "drift",
        "A series that moves one way run after run: one finding with its total and span, drawn as a sloped line, not a chain of change points.",
    ),
    (
        "holm",
        "Holm-adjusted p",
        "The p-value of one row of a comparison corrected for the number of rows tested together (Holm's step-down method), so that the chance of any false 'regressed' among them stays under 5 %. The verdict uses it, and the table prints it.",
    ),
    (
        "alert",
        "alert",
        "A change point that is not yet triaged. Alerts of one commit form one entry on the alerts page; `perfhouse triage` marks them accepted, invalid, ignored or fixed.",
    ),
    (
        "stale",
        "stale alert",
        "An alert on a series that no recent run measured: folded away on the alerts page.",
    ),
    (
        "suspected-environment",
        "suspected environment change",
        "Many series of several benchmark groups moved the same way at one commit, with no environment fingerprint recorded: more likely the machine than the code.",
    ),
    (
        "calibration",
        "A/A calibration",
        "A run of an arm against itself: how often the comparison would call a difference where there is none, used to set the thresholds of A/B verdicts.",
    ),
    (
        "inconclusive",
        "inconclusive",
        "The 95 % interval of a difference spans no change: the data cannot tell whether it got better or worse. More repeats narrow the interval.",
    ),
    (
        "knee",
        "knee",
        "In a load sweep, the lowest level from which throughput never again grows by half its share of the added load while latency climbs: more load buys queueing, not work.",
    ),
    (
        "capacity",
        "capacity at the SLOs",
        "The highest load before the first level that misses a service-level objective, interpolated between levels, with a bootstrap interval over the repeats (none with one repeat per level).",
    ),
    (
        "slo",
        "SLO",
        "A service-level objective: a bound every request must meet (`ttft_ms<=200`) or a percentile of a trial must meet (`p99(ttft_ms)<=500`).",
    ),
    (
        "goodput",
        "goodput and SLO attainment",
        "Goodput: completed requests per second that met every per-request SLO. Attainment: their share of all measured requests.",
    ),
    (
        "littles-law",
        "Little's law check",
        "In a closed loop, throughput ≈ concurrency ÷ mean latency. A ratio far from 1 means the load generator, not the server, set the pace.",
    ),
    (
        "frontier",
        "Pareto frontier",
        "The load levels no other level beats on both per-user and total output tokens per second.",
    ),
    (
        "local-sigma",
        "local σ",
        "The run-to-run noise of a series around one change point: the standard deviation of the relative differences between neighbouring runs in the levels on either side. A change must exceed it (and 2 %) to be called.",
    ),
    (
        "threshold",
        "threshold (±%)",
        "How far a run, or a level, must move from the one before to count as a change: from the series' own σ (z·√2·σ for one run against the previous, so that 1 % of unchanged runs cross it), never below the ±2 % floor.",
    ),
    (
        "history-floor",
        "history floor",
        "The smallest change a history calls on its own (4 %, as asv's default regression threshold is 5 %): a shift that passes every other test at the ±2 % floor but stays under it is kept as minor, and only many minor shifts one way at one commit make that commit worth a look.",
    ),
    (
        "p-value",
        "p (p-value)",
        "The chance of a difference at least this large if nothing had changed: a Mann-Whitney U test between the two arms' trials, or a permutation test of a change point. Small is strong evidence (below 0.01 for a change point).",
    ),
    (
        "cliffs-delta",
        "Cliff's δ",
        "How often a candidate trial beats a baseline trial, minus how often it loses, over every pair: from −1 (every candidate trial lower) to +1 (every one higher); 0 is complete overlap. It reads the size of a difference without assuming a distribution.",
    ),
    (
        "ashmans-d",
        "Ashman's D",
        "How far apart two groups of values are, in their own spread: the difference of their means over their pooled standard deviation, √2·|μ₁ − μ₂| ÷ √(σ₁² + σ₂²). At 4 or more the values form two separate levels: a series that switches between them is called unstable rather than changed.",
    ),
    (
        "recurs",
        "recurs",
        "A one-run dip or spike that the series has shown, as far and the same way, several times in its recent runs: its own noise, not a change, however far outside the σ band it lies.",
    ),
    (
        "client-bound",
        "client-bound",
        "A load test whose Little's law ratio is under 0.9: the load generator, not the server, set the pace, so its latency and throughput say less about the server than they seem to.",
    ),
    (
        "validity-flag",
        "validity flag",
        "A finding that qualifies a figure without changing it, shown beside the verdict, knee or medians it concerns: client-bound (the load generator set the pace), errors (some requests failed), generator lagged (an open-loop generator sent less than the rate asked), prefix-cached (repeated prompts let the server skip work), no warm-up (the first requests were measured). The figure stands; read it with its flag.",
    ),
    (
        "geometric-mean",
        "geometric mean of changes",
        "The average of several series' ratios taken by multiplying (the n-th root of their product), so that +10 % and −10 % do not cancel to zero; written as a change in percent.",
    ),
    (
        "flamegraph",
        "flamegraph (on-CPU, off-CPU, differential)",
        "Stacks sampled during the run, merged: each box a function, its width the time in it and what it called. On-CPU counts samples while running; off-CPU weighs each switch-out by the time until the thread ran again; a differential one colours each box by how much it grew (red) or shrank (blue) against the baseline arm.",
    ),
];

#[derive(Template)]
#[template(path = "glossary.html")]
pub struct GlossaryPage {
    pub chrome: Chrome,
    pub terms: &'static [(&'static str, &'static str, &'static str)],
}

pub fn glossary_page(css: &str) -> GlossaryPage {
    GlossaryPage {
        chrome: Chrome::new(0, css, "perfhouse: glossary").crumb("", "glossary"),
        terms: TERMS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each term has one anchor, and every `glossary.html#…` link of the templates and the
    /// pages' code lands on one of them.
    #[test]
    fn every_glossary_link_has_its_term() {
        let html = glossary_page("c.css").render().unwrap();
        crate::site::pages::assert_numbers_read_well(&html);
        assert_eq!(html.matches("<dt id=").count(), TERMS.len());
        for (anchor, _, _) in TERMS {
            assert_eq!(
                html.matches(&format!("<dt id=\"{anchor}\">")).count(),
                1,
                "{anchor}"
            );
        }
        assert!(html.contains("<dt id=\"change-point\">change point</dt>"));
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut linked = 0;
        for dir in ["templates", "src/site", "src/site/pages"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                for (at, _) in text.match_indices("glossary.html#") {
                    let rest = &text[at + 14..];
                    let end = rest
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                        .unwrap_or(rest.len());
                    let anchor = &rest[..end];
                    // This test's own pattern names no term.
                    if anchor.is_empty() {
                        continue;
                    }
                    assert!(
                        TERMS.iter().any(|t| t.0 == anchor),
                        "{}: glossary.html#{anchor} has no term",
                        path.display()
                    );
                    linked += 1;
                }
            }
        }
        assert!(linked >= 10, "{linked} links found");
    }
}
