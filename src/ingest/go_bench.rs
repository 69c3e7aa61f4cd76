//! `go test -bench` text output (with `-benchmem`, `-count N`, `b.SetBytes`,
//! `b.ReportMetric`), as `testing.BenchmarkResult.String` and the benchfmt spec
//! (golang.org/design/14313-benchmark-format) define it.
//!
//! A result line `BenchmarkName/sub-8  <iterations>  <value> <unit> [<value> <unit>]…` is one
//! trial. The arm is the name up to its first `/`; the `-N` GOMAXPROCS suffix becomes param
//! `procs=N`; each later `/`-part becomes a param as gbench's names do (`key=value` as itself,
//! a bare part as `arg0`, `arg1`…). Configuration lines (`pkg: …`, `note: …`) that precede a
//! result become params of it (so one name in two packages stays two series), except
//! `goos`, `goarch` and `cpu`, which describe the machine. `-count N` prints a name N times:
//! its lines are repeats 0..N-1 of one arm × params, in file order.
//!
//! Metrics per line: `ns/op` → `time_per_op` (ns, lower is better), `MB/s` → `mb_per_s`
//! (MB/s = 1e6 bytes/s, higher), `-benchmem`'s `B/op` → `bytes_per_op` (B, lower) and
//! `allocs/op` → `allocs_per_op` (allocs, lower); any other unit `u` (`ReportMetric`) is kept
//! as metric `slug(u)` with unit `u`, higher is better when `u` ends in `/s`, lower otherwise.
//! The iteration count is not kept (it is how long Go ran, not a measurement).

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::text::{line_error, metric, name_params, no_benchmarks, slug};
use super::{IngestError, ParsedTrial};
use crate::model::{Better, Params};

static RESULT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(Benchmark\S*)\s+(\d+)((?:\s+[-+]?[0-9.]+(?:[eE][-+]?\d+)?\s+\S+)+)\s*$").unwrap()
});
/// A benchfmt configuration line.
static CONFIG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([a-z][^\s:A-Z]*):\s*(.*?)\s*$").unwrap());
/// The start of a result line (name, then an iteration count).
static STARTS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^Benchmark\S*\s+\d+\s").unwrap());

pub fn sniff(text: &str) -> bool {
    text.lines()
        .any(|l| RESULT.is_match(l.trim_end_matches('\r')))
}

/// `BenchmarkFib/sub-8` → (`BenchmarkFib`, {procs: 8, arg0: sub}).
pub fn split_name(name: &str) -> (String, Params) {
    let (base, procs) = match name.rsplit_once('-') {
        Some((b, n)) if !b.is_empty() && !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => {
            (b, Some(n))
        }
        _ => (name, None),
    };
    let parts: Vec<&str> = base.split('/').collect();
    let mut params = name_params(&parts[1..]);
    if let Some(n) = procs {
        params.insert("procs".to_string(), n.to_string());
    }
    (parts[0].to_string(), params)
}

pub fn parse(path: &Path, text: &str) -> Result<Vec<ParsedTrial>, IngestError> {
    let mut config = Params::new();
    let mut repeats: std::collections::BTreeMap<(String, Params), i32> = Default::default();
    let mut trials = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_end_matches('\r');
        let Some(c) = RESULT.captures(line) else {
            if STARTS.is_match(line) {
                return Err(line_error(
                    path,
                    i + 1,
                    "expected `<name> <iterations> <value> <unit>…` (pairs of a number and a unit after the iteration count)",
                ));
            }
            if let Some(k) = CONFIG.captures(line)
                && !line.starts_with("Benchmark")
            {
                let key = &k[1];
                if !matches!(key, "goos" | "goarch" | "cpu") {
                    config.insert(key.to_string(), k[2].to_string());
                }
            }
            continue;
        };
        let (arm, mut params) = split_name(&c[1]);
        for (k, v) in &config {
            params.entry(k.clone()).or_insert_with(|| v.clone());
        }
        let fields: Vec<&str> = c[3].split_whitespace().collect();
        let mut metrics = Vec::new();
        for pair in fields.chunks(2) {
            let value: f64 = pair[0].parse().map_err(|_| {
                let found = format!("expected a number before `{}`, found `{}`", pair[1], pair[0]);
                line_error(path, i + 1, found)
            })?;
            let unit = pair[1];
            metrics.push(match unit {
                "ns/op" => metric("go", "time_per_op", value, "ns", Better::Lower),
                "MB/s" => metric("go", "mb_per_s", value, "MB/s", Better::Higher),
                "B/op" => metric("go", "bytes_per_op", value, "B", Better::Lower),
                "allocs/op" => metric("go", "allocs_per_op", value, "allocs", Better::Lower),
                u => {
                    let better = if u.ends_with("/s") {
                        Better::Higher
                    } else {
                        Better::Lower
                    };
                    metric("go", &slug(u), value, u, better)
                }
            });
        }
        let counter = repeats.entry((arm.clone(), params.clone())).or_insert(0);
        let repeat = *counter;
        *counter += 1;
        trials.push(ParsedTrial {
            arm: Some(arm),
            params,
            repeat: Some(repeat),
            metrics,
            ..Default::default()
        });
    }
    if trials.is_empty() {
        return Err(no_benchmarks(
            path,
            "`go test -bench` lines `BenchmarkName-8  1000  1234 ns/op`",
        ));
    }
    Ok(trials)
}

/// `go test -bench` output as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document = super::adapter::Document {
    name: "go-bench",
    description: "go test -bench output (-benchmem, -count N): each result line is a trial",
    hint: "`go test -bench` text",
    claims: super::adapter::no_name,
    walks: |p, n| super::adapter::text_file(p, n) || n.ends_with(".bench"),
    sniff: |input| input.doc().is_none() && input.text().is_some_and(sniff),
    parse: super::adapter::Reader::Text(|path, text| {
        Ok(super::adapter::Parsed::trials(parse(path, text)?))
    }),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn procs_suffix_only_at_the_end() {
        let (arm, p) = split_name("BenchmarkFib/my_tabled_benchmark_-_10-8");
        assert_eq!(arm, "BenchmarkFib");
        assert_eq!(p["procs"], "8");
        assert_eq!(p["arg0"], "my_tabled_benchmark_-_10");
        let (_, p) = split_name("BenchmarkFib/my_tabled_benchmark_-_20");
        assert!(!p.contains_key("procs"));
        assert_eq!(p["arg0"], "my_tabled_benchmark_-_20");
        let (arm, p) = split_name("BenchmarkNew/text=opticks/size=100K/bits=32-8");
        assert_eq!((arm.as_str(), p["bits"].as_str()), ("BenchmarkNew", "32"));
    }

    #[test]
    fn benchmem_mb_s_custom_units_and_repeats() {
        let text = "pkg: a/b\nBenchmarkX-4 \t 21228057\t 55.76 ns/op\t2833.37 MB/s\t  0 B/op\t 2 allocs/op\n\
                    BenchmarkX-4 \t 21228057\t 56 ns/op\t2833.37 MB/s\t  0 B/op\t 2 allocs/op\n\
                    BenchmarkSize 1 100 text-bytes\nBenchmarkFib10\nPASS\nok  \ta/b\t3.6s\n";
        let t = parse(Path::new("x"), text).unwrap();
        assert_eq!(t.len(), 3);
        assert_eq!((t[0].repeat, t[1].repeat), (Some(0), Some(1)));
        assert_eq!(t[0].params["pkg"], "a/b");
        let names: Vec<_> = t[0].metrics.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(
            names,
            ["time_per_op", "mb_per_s", "bytes_per_op", "allocs_per_op"]
        );
        assert_eq!(t[0].metrics[1].better, Better::Higher);
        assert_eq!(t[2].metrics[0].name, "text_bytes");
        assert_eq!(t[2].metrics[0].unit, "text-bytes");
        let e = parse(Path::new("f.txt"), "BenchmarkX-4 100 12 ns/op 7\n").unwrap_err();
        assert!(e.to_string().starts_with("f.txt:1: expected"), "{e}");
        assert!(
            parse(Path::new("f"), "PASS\n")
                .unwrap_err()
                .to_string()
                .contains("no benchmark lines found")
        );
    }
}
