//! One formatter, everywhere (issue 40 item 5): every page of the demo site, the PR report and
//! the CLI tables (their snapshots) read without a raw byte count, scientific notation beside
//! a unit that has steps (µs, MiB), a `-0.0%`, a size parameter in bytes
//! (`object_size=1048576`), or a count of one with a plural noun ("1 cores").

use crate::common;

use std::fs;
use std::path::Path;

use common::*;

/// What a reader sees of a page: its text and the SVG's labels, without scripts, data or
/// markup.
fn visible_text(html: &str) -> String {
    let script = regex::Regex::new(r"(?s)<script.*?</script>").unwrap();
    let tags = regex::Regex::new(r"(?s)<[^>]+>").unwrap();
    let text = script.replace_all(html, " ");
    let text = tags.replace_all(&text, " ");
    text.replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
}

/// Each rule: its name and the pattern a reader must never meet.
fn rules() -> Vec<(&'static str, regex::Regex)> {
    [
        ("a -0.0% or +0.0%", r"[-+−]0\.0\s?%"),
        (
            "scientific notation beside a unit with steps",
            r"\b\d(\.\d+)?e[-+]?\d+\s?(ns|µs|us|ms|s|B|KiB|MiB|GiB|bytes)\b",
        ),
        ("a raw byte count", r"\b\d{5,}\s?(B|bytes)\b"),
        (
            "a size parameter in bytes",
            r"\b(object_size|page_size|block_size|buffer_size|chunk_size)=\d{4,}\b",
        ),
        (
            "one with a plural noun",
            r"\b1 (runs|cores|trials|repeats|changes|entries|commits|points|requests|levels|switches|seconds|arms|metrics|files|pages)\b",
        ),
    ]
    .into_iter()
    .map(|(name, re)| (name, regex::Regex::new(re).unwrap()))
    .collect()
}

/// Every place `text` breaks a rule, as "rule: …context…".
fn offences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (name, re) in rules() {
        for m in re.find_iter(text) {
            // "2 vs 1 trials" counts both sides with one noun.
            if name == "one with a plural noun" && text[..m.start()].ends_with("vs ") {
                continue;
            }
            let from = text[..m.start()]
                .char_indices()
                .rev()
                .nth(40)
                .map_or(0, |(i, _)| i);
            let to = text[m.end()..]
                .char_indices()
                .nth(20)
                .map_or(text.len(), |(i, _)| m.end() + i);
            out.push(format!(
                "{name}: …{}…",
                text[from..to]
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
        }
    }
    out
}

#[test]
fn the_rules_catch_what_they_name() {
    for bad in [
        "change -0.0%",
        "1.70e-4 s",
        "8.60e7 B",
        "82378752 B",
        "object_size=1048576",
        "on 1 cores",
    ] {
        assert_eq!(offences(bad).len(), 1, "{bad}");
    }
    for good in [
        "change 0.0%",
        "170 µs",
        "78.6 MiB",
        "object_size=1 MiB",
        "1 core, 2 cores",
        "1.7e-4 x",
        "3 series",
        "2 vs 1 trials",
    ] {
        assert!(offences(good).is_empty(), "{good}: {:?}", offences(good));
    }
}

#[test]
fn every_page_report_and_table_writes_numbers_one_way() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let site = dir.path().join("site");
    ok(
        &wh,
        &["demo", "--no-plans", "--out", site.to_str().unwrap()],
    );
    let mut found = Vec::new();
    let mut pages = 0;
    for e in walkdir::WalkDir::new(&site).into_iter().flatten() {
        let path = e.path();
        if path.extension().is_none_or(|x| x != "html") {
            continue;
        }
        pages += 1;
        let html = fs::read_to_string(path).unwrap();
        let rel = path.strip_prefix(&site).unwrap().display().to_string();
        found.extend(
            offences(&visible_text(&html))
                .into_iter()
                .map(|o| format!("{rel}: {o}")),
        );
    }
    assert!(pages > 100, "{pages} pages");
    // The PR report and the CLI tables, as their snapshots keep them.
    for snap in ["report_markdown", "compare_table", "history_table", "check"] {
        let text = fs::read_to_string(
            repo().join(Path::new("tests/snapshots").join(format!("{snap}.snap"))),
        )
        .unwrap();
        found.extend(offences(&text).into_iter().map(|o| format!("{snap}: {o}")));
    }
    found.truncate(40);
    assert!(found.is_empty(), "{found:#?}");
}
