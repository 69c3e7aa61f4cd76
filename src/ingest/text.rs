//! Helpers the benchmark-text and benchmark-JSON adapters share (go_bench, libtest_bench,
//! catch2, catch2_xml, jmh, benchmarkdotnet, benchmarkjs, julia_benchmarktools, iai,
//! gab_custom, bmf): metric construction, number and unit parsing, and the "no benchmark"
//! error.

use std::path::Path;

use super::IngestError;
use crate::model::{Better, Metric};

/// A metric of `origin` (trial id assigned later).
pub fn metric(origin: &str, name: &str, value: f64, unit: &str, better: Better) -> Metric {
    Metric {
        trial_id: 0,
        name: name.to_string(),
        value,
        unit: unit.to_string(),
        better,
        origin: origin.to_string(),
        version: None,
    }
}

/// Nanoseconds per one `unit` of time (`ns`, `us`/`µs`/`μs`, `ms`, `s`).
pub fn ns_per(unit: &str) -> Option<f64> {
    Some(match unit {
        "ns" => 1.0,
        "us" | "µs" | "μs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return None,
    })
}

/// The power of ten that turns one `unit` of time into ns (`us` → 3).
pub fn ns_exp(unit: &str) -> Option<i32> {
    Some(match unit {
        "ns" => 0,
        "us" | "µs" | "μs" => 3,
        "ms" => 6,
        "s" => 9,
        _ => return None,
    })
}

/// The decimal `s` (`,` separators allowed) times 10^`exp`, rounded once (`41.731` us →
/// exactly 41731 ns, where `41.731 * 1e3` is 41731.00000000001).
pub fn scaled(s: &str, exp: i32) -> Option<f64> {
    let s = s.trim().replace(',', "");
    number(&s)?;
    let (mantissa, e) = match s.split_once(['e', 'E']) {
        Some((m, e)) => (m.to_string(), e.parse::<i32>().ok()?),
        None => (s, 0),
    };
    format!("{mantissa}e{}", e + exp).parse().ok()
}

/// A time `s` in `unit` as ns, rounded once.
pub fn to_ns(s: &str, unit: &str) -> Option<f64> {
    scaled(s, ns_exp(unit)?)
}

/// A number that may carry `,` thousands separators (`13,967,756.30`).
pub fn number(s: &str) -> Option<f64> {
    let s = s.trim();
    if s.is_empty() || !s.starts_with(|c: char| c.is_ascii_digit() || "+-.".contains(c)) {
        return None;
    }
    s.replace(',', "").parse::<f64>().ok()
}

/// A metric name made of a free-form label or unit: `/` reads "per", anything else that is
/// not alphanumeric becomes `_` (`allocs/op` → `allocs_per_op`, `Total read+write` →
/// `total_read_write`), lowercased.
pub fn slug(label: &str) -> String {
    let mut out = String::new();
    for c in label.trim().chars() {
        if c == '/' {
            out.push_str("_per_");
        } else if c.is_alphanumeric() || c == '.' {
            out.extend(c.to_lowercase());
        } else {
            out.push('_');
        }
    }
    let mut squashed = String::new();
    for c in out.chars() {
        if !(c == '_' && squashed.ends_with('_')) {
            squashed.push(c);
        }
    }
    squashed.trim_matches('_').to_string()
}

/// Removes ANSI escape sequences (`ESC[1;34m`).
pub fn strip_ansi(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains('\u{1b}') {
        return line.into();
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out.into()
}

/// The error for a file of `what` that holds no benchmark result.
pub fn no_benchmarks(path: &Path, what: &str) -> IngestError {
    IngestError::Parse {
        path: path.to_path_buf(),
        line: 1,
        message: format!("no benchmark lines found (expected {what})"),
    }
}

/// The error of line `line` (1-based) of a text file: what was expected there.
pub fn line_error(path: &Path, line: usize, message: impl Into<String>) -> IngestError {
    IngestError::Parse {
        path: path.to_path_buf(),
        line,
        message: message.into(),
    }
}

/// The one warning that names what a file left out (`<path>: <n> <what>: a, b`), or none
/// when nothing was.
pub fn left_out(path: &Path, what: &str, names: &[String]) -> Option<String> {
    (!names.is_empty()).then(|| {
        format!(
            "{}: {} {what}: {}",
            path.display(),
            names.len(),
            names.join(", ")
        )
    })
}

/// The error of a JSON document that does not parse, at its line.
pub fn json_error(path: &Path, e: &serde_json::Error, what: &str) -> IngestError {
    IngestError::Parse {
        path: path.to_path_buf(),
        line: e.line(),
        message: format!("{e} (expected {what})"),
    }
}

/// A malformed field of a JSON document (line 0: the whole document).
pub fn field_error(path: &Path, field: impl Into<String>, expected: &str) -> IngestError {
    IngestError::Field {
        path: path.to_path_buf(),
        line: 0,
        field: field.into(),
        expected: expected.to_string(),
    }
}

/// gbench's split of a `/`-separated benchmark name after the first part: `key=value` (or
/// `key:value`) parts as params, bare parts as `arg0`, `arg1`….
pub fn name_params(parts: &[&str]) -> crate::model::Params {
    let mut params = crate::model::Params::new();
    let mut arg = 0;
    for p in parts {
        let kv = p.split_once('=').or_else(|| p.split_once(':'));
        match kv {
            Some((k, v))
                if !k.is_empty()
                    && k.chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.') =>
            {
                params.insert(k.to_string(), v.to_string());
            }
            _ => {
                params.insert(format!("arg{arg}"), p.to_string());
                arg += 1;
            }
        }
    }
    params
}

/// Replaces the non-JSON number literals Google Benchmark may print (`NaN`, `-nan`, `inf`,
/// `Infinity`) with `null`, leaving strings alone.
pub fn sanitize(text: &str) -> String {
    rewrite_outside_strings(text, |rest, out| {
        if !rest.starts_with(|c: char| c == '-' || c.is_ascii_alphabetic()) {
            return 0;
        }
        // The whole word at once: scanning it again from each of its characters made a 1 MB
        // word take minutes (quadratic).
        let word_len = rest
            .char_indices()
            .skip(1)
            .find(|(_, ch)| !ch.is_ascii_alphanumeric())
            .map_or(rest.len(), |(j, _)| j);
        let word = &rest[..word_len];
        let bare = word.trim_start_matches(['-', '+']);
        let literal = ["nan", "inf", "infinity"].contains(&bare.to_ascii_lowercase().as_str());
        out.push_str(if literal { "null" } else { word });
        word_len
    })
}

/// Rewrites JSON (or nearly JSON) `text` outside its strings: each string, escapes and all, is
/// copied as it is; at every other position `rewrite(rest, out)` may append what stands for
/// the start of `rest` and return how many bytes of it that took, or return 0 to have the
/// character copied as it is.
pub fn rewrite_outside_strings(
    text: &str,
    mut rewrite: impl FnMut(&str, &mut String) -> usize,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        let rest = &text[i..];
        let taken = if c == '"' {
            let end = string_len(rest);
            out.push_str(&rest[..end]);
            end
        } else {
            rewrite(rest, &mut out)
        };
        i += if taken > 0 {
            taken
        } else {
            out.push(c);
            c.len_utf8()
        };
    }
    out
}

/// Bytes of the JSON string `s` starts with: its quotes and what is between them (escaped
/// quotes included), or all of `s` where it never closes.
fn string_len(s: &str) -> usize {
    let mut escaped = false;
    for (j, c) in s.char_indices().skip(1) {
        match (escaped, c) {
            (true, _) => escaped = false,
            (false, '\\') => escaped = true,
            (false, '"') => return j + 1,
            _ => {}
        }
    }
    s.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_numbers_and_ansi() {
        assert_eq!(slug("allocs/op"), "allocs_per_op");
        assert_eq!(slug("Total read+write"), "total_read_write");
        assert_eq!(slug("At t-gmax bytes"), "at_t_gmax_bytes");
        assert_eq!(number("13,967,756.30"), Some(13967756.3));
        assert_eq!(number("N/A"), None);
        assert_eq!(to_ns("41.731", "us"), Some(41731.0));
        assert_eq!(to_ns("1.2e-3", "s"), Some(1.2e6));
        assert_eq!(to_ns("13,967.5", "ns"), Some(13967.5));
        assert_eq!(strip_ansi("\u{1b}[1m  1734\u{1b}[0m|N/A"), "  1734|N/A");
        let p = name_params(&["text=opticks", "size=100K", "my_tabled_benchmark_-_10"]);
        assert_eq!(p["text"], "opticks");
        assert_eq!(p["arg0"], "my_tabled_benchmark_-_10");
    }

    #[test]
    fn line_errors_and_the_left_out_warning_name_the_file() {
        let p = Path::new("bench.log");
        let e = line_error(p, 7, "expected a number");
        assert_eq!(e.to_string(), "bench.log:7: expected a number");
        let names = ["a (line 3)".to_string(), "b (line 9)".to_string()];
        assert_eq!(
            left_out(p, "test(s) FAILED", &names).as_deref(),
            Some("bench.log: 2 test(s) FAILED: a (line 3), b (line 9)")
        );
        assert_eq!(left_out(p, "test(s) FAILED", &[]), None);
        let parsed =
            super::super::adapter::Parsed::with_warnings(Vec::new(), left_out(p, "x", &[]));
        assert!(parsed.warnings.is_empty() && parsed.commit.is_none());
    }

    /// Every new parser on every prefix of every fixture of these formats: errors, never panics.
    /// The fixtures are the repository's own and, beside a clone, the third-party ones.
    #[test]
    fn no_prefix_of_a_fixture_makes_a_parser_panic() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut roots = vec![repo.join("tests/fixtures")];
        roots.extend(crate::fixtures::third_party_fixtures(repo).map(|d| d.join("tests/fixtures")));
        let dirs = [
            "go-bench",
            "libtest-bench",
            "catch2",
            "jmh",
            "benchmarkdotnet",
            "benchmarkjs",
            "julia-benchmarktools",
            "iai",
            "gab-custom",
            "bmf",
        ];
        let p = Path::new("fuzz");
        let files = roots
            .iter()
            .flat_map(|root| dirs.iter().map(move |d| root.join(d)));
        for dir in files {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries {
                let path = e.unwrap().path();
                if path.is_dir() {
                    continue;
                }
                let text = std::fs::read_to_string(path).unwrap();
                let step = (text.len() / 40).max(1);
                for cut in (0..=text.len())
                    .step_by(step)
                    .filter(|c| text.is_char_boundary(*c))
                {
                    let t = &text[..cut];
                    let _ = super::super::go_bench::parse(p, t);
                    let _ = super::super::libtest_bench::parse(p, t);
                    let _ = super::super::catch2::parse(p, t);
                    let _ = super::super::catch2_xml::parse(p, t);
                    let _ = super::super::jmh::parse(p, t);
                    let _ = super::super::benchmarkdotnet::parse(p, t);
                    let _ = super::super::benchmarkjs::parse(p, t);
                    let _ = super::super::julia_benchmarktools::parse(p, t);
                    let _ = super::super::iai::parse(p, t);
                    let _ = super::super::gab_custom::parse(p, t);
                    let _ = super::super::bmf::parse(p, t);
                }
            }
        }
    }
}
