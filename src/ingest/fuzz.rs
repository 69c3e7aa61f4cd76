//! A fuzzer for every input format (issue 39 item 3): each adapter of the registry
//! ([`super::ADAPTERS`], so a new format is fuzzed from its first line) is fed its real
//! fixtures mutated (bit flips, interesting bytes and numbers, cut, duplicated and spliced
//! ranges, repeated lines, deep nesting) through the same calls `ingest` makes: its content
//! sniff, its "came close" check and its parser (for a history format, its directory or file
//! read whole, one of its files mutated). A panic or an input parsed for longer than the hang
//! limit is a finding: the input is saved and the run fails.
//!
//! Coverage-free but guided: an input whose outcome is new (parsed, with how many trials and
//! warnings; or refused, by its error message with numbers and quoted text blanked) joins the
//! corpus, so mutations build on inputs that got somewhere else. cargo-fuzz (libFuzzer, with
//! real edge coverage) would rebuild every dependency, DataFusion included, instrumented: more
//! than the cold release build this VM takes (BENCHMARKS.md, RELIABILITY.md "Fuzzing").
//!
//! A short run is a test (`fuzz_every_format`, a fraction of a second a format); a long one is
//! `benches/fuzz.sh` (`PERFHOUSE_FUZZ_SECONDS` a format). Settings, all optional:
//! `PERFHOUSE_FUZZ_SECONDS` (per format, default 0.25), `PERFHOUSE_FUZZ_FORMATS` (comma list),
//! `PERFHOUSE_FUZZ_SEED` (default: the time), `PERFHOUSE_FUZZ_OUT` (where findings go,
//! default a temporary directory), `PERFHOUSE_FUZZ_HANG_MS` (default 10000).

use std::collections::{HashMap, HashSet};
use std::io::Cursor;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::adapter::{Adapter, Sniff};
use super::{ADAPTERS, IngestError};
use crate::model::Request;

/// Inputs past this are cut (a parser's time on a large file is not what is searched for).
const MAX_INPUT: usize = 1 << 20;
/// Fixtures past this are not seeds (a history's big files are mutated where they are small).
const MAX_SEED: u64 = 512 << 10;
/// What a format's corpus is held to.
const MAX_CORPUS: usize = 2000;

/// xorshift64*: fast, seedable, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const BYTES: &[u8] = b"\0\xff\x7f\x80\"'{}[],:\n\r\t -+.eE09/\\<>=;#|@xX";
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "-1",
    "1e400",
    "-1e400",
    "1e-400",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "Infinity",
    "18446744073709551616",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "4294967296",
    "2147483648",
    "1.7976931348623157e308",
    "0.0000000001",
    "1e18",
    "",
    "99999999999999999999999999999999999999",
    "0x10",
    "1_000",
    "1,5",
];
const TOKENS: &[&str] = &[
    "null", "true", "false", "{}", "[]", "\"\"", "{\"\":", "[[[[[[[[", "]]]]", "\\u0000",
    "\\ud800", "\u{feff}", "é", "\u{202e}", "\r\n", "\n\n", "ns", "ms", "s", "µs",
];

/// One to four mutations of `input`, `other` a second input of the same format to splice from.
fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    // Never shorter than a large seed's own size (a history file of megabytes).
    let limit = MAX_INPUT.max(input.len());
    let mut out = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = out.len();
        match rng.below(12) {
            0 if len > 0 => {
                let i = rng.below(len);
                out[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                out[i] = *rng.pick(BYTES);
            }
            2 if len > 0 => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(64)).min(len);
                out.drain(a..b);
            }
            3 if len > 0 => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(256)).min(len);
                let piece = out[a..b].to_vec();
                let at = rng.below(len + 1);
                out.splice(at..at, piece);
            }
            4 => {
                let at = rng.below(len + 1);
                let n = 1 + rng.below(16);
                let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                out.splice(at..at, bytes);
            }
            5 if len > 0 => out.truncate(rng.below(len)),
            6 => replace_number(rng, &mut out),
            7 if !other.is_empty() => {
                let cut = rng.below(len + 1);
                let from = rng.below(other.len());
                out.truncate(cut);
                out.extend_from_slice(&other[from..]);
            }
            8 => repeat_line(rng, &mut out),
            9 => swap_lines(rng, &mut out),
            10 => {
                let at = rng.below(len + 1);
                let token = rng.pick(TOKENS).as_bytes().to_vec();
                out.splice(at..at, token);
            }
            11 => {
                let depth = 1 + rng.below(300);
                let mut nested = vec![b'['; depth];
                nested.extend_from_slice(&out);
                nested.extend(std::iter::repeat_n(b']', depth));
                out = nested;
            }
            _ => {}
        }
    }
    out.truncate(limit);
    out
}

/// A run of digits (with its sign, point and exponent) replaced by an interesting number.
fn replace_number(rng: &mut Rng, out: &mut Vec<u8>) {
    let starts: Vec<usize> = (0..out.len())
        .filter(|&i| out[i].is_ascii_digit() && (i == 0 || !out[i - 1].is_ascii_alphanumeric()))
        .collect();
    if starts.is_empty() {
        return;
    }
    let mut a = *rng.pick(&starts);
    if a > 0 && out[a - 1] == b'-' {
        a -= 1;
    }
    let mut b = a + 1;
    while b < out.len() && (out[b].is_ascii_digit() || b".eE+-".contains(&out[b])) {
        b += 1;
    }
    out.splice(a..b, rng.pick(NUMBERS).bytes());
}

fn line_bounds(out: &[u8]) -> Vec<(usize, usize)> {
    let mut lines = Vec::new();
    let mut start = 0;
    for (i, &b) in out.iter().enumerate() {
        if b == b'\n' {
            lines.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < out.len() {
        lines.push((start, out.len()));
    }
    lines
}

fn repeat_line(rng: &mut Rng, out: &mut Vec<u8>) {
    let lines = line_bounds(out);
    if lines.is_empty() {
        return;
    }
    let (a, b) = *rng.pick(&lines);
    let most = if rng.below(8) == 0 { 2000 } else { 8 };
    let times = 1 + rng.below(most);
    let line = out[a..b].to_vec();
    let mut copies = Vec::with_capacity(line.len() * times);
    for _ in 0..times {
        if copies.len() + line.len() > MAX_INPUT {
            break;
        }
        copies.extend_from_slice(&line);
    }
    out.splice(b..b, copies);
}

fn swap_lines(rng: &mut Rng, out: &mut Vec<u8>) {
    let lines = line_bounds(out);
    if lines.len() < 2 {
        return;
    }
    let i = rng.below(lines.len() - 1);
    let (a, m) = lines[i];
    let (_, b) = lines[i + 1];
    let mut swapped = out[m..b].to_vec();
    swapped.extend_from_slice(&out[a..m]);
    out.splice(a..b, swapped);
}

/// What an outcome looks like, with what varies from input to input blanked: the corpus
/// keeps one input per distinct look.
fn signature(outcome: &Result<(usize, usize), String>, path: &Path) -> String {
    match outcome {
        Ok((trials, warnings)) => format!("ok {} {}", trials.min(&4), warnings.min(&4)),
        Err(message) => {
            let message = message.replace(&path.display().to_string(), "");
            let mut out = String::with_capacity(96);
            let mut quoted = false;
            let mut digit = false;
            for c in message.chars() {
                if c == '`' || c == '"' || c == '\'' {
                    quoted = !quoted;
                    out.push(c);
                    continue;
                }
                if quoted {
                    continue;
                }
                if c.is_ascii_digit() {
                    if !digit {
                        out.push('#');
                    }
                    digit = true;
                    continue;
                }
                digit = false;
                out.push(c);
                if out.len() >= 96 {
                    break;
                }
            }
            out
        }
    }
}

/// A format with the inputs it starts from.
struct Target {
    adapter: &'static dyn Adapter,
    /// Plain formats: (the fixture's path, its bytes). Histories: the files of one seed root
    /// (mutated one at a time in a copy of it), as (path relative to the root, bytes).
    seeds: Vec<(PathBuf, Vec<u8>)>,
    /// A history format's root, copied into `work` before fuzzing.
    history_root: Option<PathBuf>,
}

/// Where fixtures are: this repository's and the third-party folder beside the clone.
fn fixture_roots() -> Vec<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut roots = vec![repo.join("tests/fixtures"), repo.join("datasets")];
    if let Some(shared) = crate::fixtures::third_party_fixtures(repo) {
        roots.push(shared.join("tests/fixtures"));
        roots.push(shared.join("datasets"));
    }
    roots.into_iter().filter(|r| r.is_dir()).collect()
}

/// Runs `f` with no panic message printed (a seed that makes a parser panic is found again,
/// and reported, by the fuzzing itself).
fn quietly<T>(f: impl FnOnce() -> T) -> std::thread::Result<T> {
    catch_unwind(AssertUnwindSafe(f))
}

/// Every format with its seeds: each fixture file a plain format's parser accepts, each
/// fixture directory or file (with at most 40 small files) a history format reads.
fn targets(only: &Option<HashSet<String>>) -> Vec<Target> {
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    // A history may be one large file (github-action-benchmark's data.js of 2.5 MB).
    let mut large = Vec::new();
    for root in fixture_roots() {
        for e in walkdir::WalkDir::new(&root).into_iter().flatten() {
            let p = e.path().to_path_buf();
            if e.file_type().is_dir() {
                dirs.push(p);
            } else if e.file_type().is_file() && p.extension().is_none_or(|x| x != "parquet") {
                if e.metadata().is_ok_and(|m| m.len() <= MAX_SEED) {
                    files.push(p);
                } else if e.metadata().is_ok_and(|m| m.len() <= 8 * MAX_SEED) {
                    large.push(p);
                }
            }
        }
    }
    let mut out = Vec::new();
    for &adapter in ADAPTERS {
        if only.as_ref().is_some_and(|o| !o.contains(adapter.name())) {
            continue;
        }
        if adapter.many_runs() {
            // The smallest root it reads with at least one run.
            let mut best: Option<(usize, PathBuf)> = None;
            for root in dirs.iter().chain(files.iter()).chain(large.iter()) {
                let n = walkdir::WalkDir::new(root).into_iter().flatten().count();
                if n > 40 || best.as_ref().is_some_and(|(b, _)| *b <= n) {
                    continue;
                }
                if let Ok(Ok(h)) = quietly(|| adapter.history(root))
                    && !h.runs.is_empty()
                {
                    best = Some((n, root.clone()));
                }
            }
            let Some((_, root)) = best else { continue };
            let seeds = walkdir::WalkDir::new(&root)
                .into_iter()
                .flatten()
                .filter(|e| e.file_type().is_file())
                .filter_map(|e| {
                    let rel = e.path().strip_prefix(&root).ok()?.to_path_buf();
                    Some((rel, std::fs::read(e.path()).ok()?))
                })
                .collect();
            out.push(Target {
                adapter,
                seeds,
                history_root: Some(root),
            });
            continue;
        }
        let mut seeds = Vec::new();
        for f in &files {
            let Ok(bytes) = std::fs::read(f) else {
                continue;
            };
            if let Ok(Ok(_)) = quietly(|| parse(adapter, f, &bytes)) {
                seeds.push((f.clone(), bytes));
            }
        }
        if seeds.is_empty() {
            seeds.push((PathBuf::from("fuzz.txt"), Vec::new()));
        }
        out.push(Target {
            adapter,
            seeds,
            history_root: None,
        });
    }
    out
}

/// What `ingest` does with one file of a plain format, from its bytes.
fn parse(
    adapter: &dyn Adapter,
    path: &Path,
    bytes: &[u8],
) -> Result<super::adapter::Parsed, IngestError> {
    let mut discard = |_: Vec<Request>| Ok::<(), IngestError>(());
    let sink: Option<super::RequestSink> = adapter.streams().then_some(&mut discard);
    adapter.parse(path, Box::new(Cursor::new(bytes.to_vec())), sink)
}

/// What one format's run found.
#[derive(Debug, Default)]
pub struct Stats {
    pub format: &'static str,
    pub seeds: usize,
    pub execs: u64,
    pub seconds: f64,
    /// Distinct outcomes seen (the guidance's coverage).
    pub outcomes: usize,
    pub corpus: usize,
    /// Saved inputs that made it panic (or hang), with what happened.
    pub findings: Vec<(PathBuf, String)>,
}

/// The input being run, for the watchdog to save should it hang.
struct Running {
    started_ms: AtomicU64,
    busy: AtomicBool,
    input: Mutex<(String, Vec<u8>)>,
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn save(out: &Path, format: &str, kind: &str, input: &[u8], what: &str) -> PathBuf {
    let _ = std::fs::create_dir_all(out);
    let digest = crate::warehouse::checksum::digest_of(input);
    let path = out.join(format!("{format}-{kind}-{digest:016x}"));
    let _ = std::fs::write(&path, input);
    let _ = std::fs::write(path.with_extension("txt"), what);
    path
}

/// A history's working copy in `work`: a copy of the seed root (or file), whose files are
/// mutated one at a time. None for a plain format.
fn history_copy(target: &Target, work: &Path) -> Option<PathBuf> {
    let root = target.history_root.as_ref()?;
    let copy = work.join("root");
    if root.is_dir() {
        for (rel, bytes) in &target.seeds {
            let dest = copy.join(rel);
            std::fs::create_dir_all(dest.parent().expect("in the root")).expect("a directory");
            std::fs::write(&dest, bytes).expect("written");
        }
        Some(copy)
    } else {
        std::fs::create_dir_all(&copy).expect("a directory");
        let dest = copy.join(root.file_name().expect("a file"));
        std::fs::write(&dest, &target.seeds[0].1).expect("written");
        Some(dest)
    }
}

/// Runs one input of seed `seed` through the calls `ingest` makes: a history read with the
/// seed's file replaced by it, or a plain format's sniff, "came close" check and parser.
/// The trials and warnings it gave or its error message; a panic is caught.
fn exec(
    target: &Target,
    history_root: Option<&Path>,
    work: &Path,
    seed: usize,
    input: &[u8],
) -> std::thread::Result<Result<(usize, usize), String>> {
    let (path, seed_bytes) = &target.seeds[seed];
    quietly(|| match history_root {
        Some(root) => {
            // The seed's file (a history's files are all seeds of it) gets the input.
            let file = if root.is_dir() {
                root.join(path)
            } else {
                root.to_path_buf()
            };
            std::fs::write(&file, input).expect("written");
            let h = target.adapter.history(root);
            std::fs::write(&file, seed_bytes).expect("restored");
            h.map(|h| (h.runs.len(), h.warnings.len()))
                .map_err(|e| e.to_string())
        }
        None => {
            let file = work.join(path.file_name().unwrap_or_default());
            std::fs::write(&file, input).expect("written");
            let sniff = Sniff::new(&file);
            let _ = target.adapter.sniff(&sniff);
            let _ = target.adapter.near(&sniff);
            parse(target.adapter, path, input)
                .map(|p| (p.trials.len(), p.warnings.len()))
                .map_err(|e| e.to_string())
        }
    })
}

/// What a caught panic said.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic".into())
}

/// Fuzzes one format until `deadline`.
fn fuzz(target: &Target, deadline: Instant, rng: &mut Rng, out: &Path, running: &Running) -> Stats {
    let format = target.adapter.name();
    let work = tempfile::tempdir().expect("a temporary directory");
    let history_root = history_copy(target, work.path());
    let mut corpus: Vec<(usize, Vec<u8>)> = target
        .seeds
        .iter()
        .enumerate()
        .map(|(i, (_, b))| (i, b.clone()))
        .collect();
    let mut seen: HashSet<String> = HashSet::new();
    let mut stats = Stats {
        format,
        seeds: target.seeds.len(),
        ..Default::default()
    };
    let mut found: HashMap<String, PathBuf> = HashMap::new();
    let start = Instant::now();
    // The seeds as they are first, then mutations until the deadline.
    let mut unmutated = 0;
    while unmutated < target.seeds.len() || Instant::now() < deadline {
        let (seed, input) = if unmutated < target.seeds.len() {
            unmutated += 1;
            (unmutated - 1, target.seeds[unmutated - 1].1.clone())
        } else {
            let (seed, base) = &corpus[rng.below(corpus.len())];
            let other = &corpus[rng.below(corpus.len())].1;
            (*seed, mutate(rng, base, other))
        };
        let path = &target.seeds[seed].0;
        *running.input.lock().expect("not poisoned") = (format.to_string(), input.clone());
        running.started_ms.store(now_ms(), Ordering::SeqCst);
        running.busy.store(true, Ordering::SeqCst);
        let result = exec(target, history_root.as_deref(), work.path(), seed, &input);
        running.busy.store(false, Ordering::SeqCst);
        stats.execs += 1;
        match result {
            Ok(outcome) => {
                let sig = signature(&outcome, path);
                if seen.insert(sig) && corpus.len() < MAX_CORPUS {
                    corpus.push((seed, input));
                }
            }
            Err(panic) => {
                let message = panic_message(&*panic);
                // One finding per distinct message.
                if !found.contains_key(&message) {
                    let what = format!("{format}: panicked: {message} (seed {})", path.display());
                    let saved = save(out, format, "panic", &input, &what);
                    found.insert(message.clone(), saved.clone());
                    stats.findings.push((saved, what));
                }
            }
        }
    }
    stats.seconds = start.elapsed().as_secs_f64();
    stats.outcomes = seen.len();
    stats.corpus = corpus.len();
    stats
}

/// Fuzzes every format (or those named) for `seconds` each; returns what each run found.
pub fn run(seconds: f64, only: Option<HashSet<String>>, seed: u64, out: &Path) -> Vec<Stats> {
    let hang_ms: u64 = std::env::var("PERFHOUSE_FUZZ_HANG_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let running = Arc::new(Running {
        started_ms: AtomicU64::new(0),
        busy: AtomicBool::new(false),
        input: Mutex::new((String::new(), Vec::new())),
    });
    let done = Arc::new(AtomicBool::new(false));
    // The watchdog: an input that keeps a parser past the hang limit is saved, and the
    // process stops (a thread cannot be stopped from outside).
    let watchdog = {
        let (running, done, out) = (Arc::clone(&running), Arc::clone(&done), out.to_path_buf());
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(100));
                if running.busy.load(Ordering::SeqCst)
                    && now_ms().saturating_sub(running.started_ms.load(Ordering::SeqCst)) > hang_ms
                {
                    let (format, input) = running.input.lock().expect("not poisoned").clone();
                    let what = format!("{format}: still parsing after {hang_ms} ms");
                    let saved = save(&out, &format, "hang", &input, &what);
                    eprintln!("fuzz: HANG: {what}; input saved as {}", saved.display());
                    std::process::exit(3);
                }
            }
        })
    };
    // A parser that catches a library's panic (perf-script: inferno's) would print each one
    // through the default hook: quiet for long runs (findings carry their message anyway).
    let hook = std::env::var_os("PERFHOUSE_FUZZ_QUIET").map(|_| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        previous
    });
    let mut rng = Rng(seed | 1);
    let mut all = Vec::new();
    for target in targets(&only) {
        let deadline = Instant::now() + Duration::from_secs_f64(seconds);
        all.push(fuzz(&target, deadline, &mut rng, out, &running));
    }
    done.store(true, Ordering::SeqCst);
    let _ = watchdog.join();
    if let Some(previous) = hook {
        std::panic::set_hook(previous);
    }
    all
}

/// The table `benches/fuzz.sh` puts in RELIABILITY.md.
pub fn table(stats: &[Stats]) -> String {
    let mut t = String::from(
        "| format | seeds | executions | per second | distinct outcomes | corpus | findings |\n|---|---:|---:|---:|---:|---:|---|\n",
    );
    for s in stats {
        t.push_str(&format!(
            "| {} | {} | {} | {:.0} | {} | {} | {} |\n",
            s.format,
            s.seeds,
            s.execs,
            s.execs as f64 / s.seconds.max(1e-9),
            s.outcomes,
            s.corpus,
            if s.findings.is_empty() {
                "none".to_string()
            } else {
                s.findings
                    .iter()
                    .map(|(_, what)| what.clone())
                    .collect::<Vec<_>>()
                    .join("; ")
            }
        ));
    }
    t
}

/// The short run (and, with `PERFHOUSE_FUZZ_SECONDS`, the long one of `benches/fuzz.sh`):
/// every format fuzzed; any panic or hang fails it, naming the saved input.
#[test]
fn fuzz_every_format() {
    let seconds: f64 = std::env::var("PERFHOUSE_FUZZ_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.25);
    let only = std::env::var("PERFHOUSE_FUZZ_FORMATS")
        .ok()
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect());
    let seed = std::env::var("PERFHOUSE_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(now_ms);
    let tmp = tempfile::tempdir().unwrap();
    let out = std::env::var_os("PERFHOUSE_FUZZ_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| tmp.path().to_path_buf());
    let stats = run(seconds, only, seed, &out);
    println!("seed {seed}\n{}", table(&stats));
    // Every plain format has seeds or at least an empty input; a history format needs a
    // fixture root it reads (the third-party folder holds some).
    for a in ADAPTERS.iter().filter(|a| !a.many_runs()) {
        assert!(
            stats.iter().any(|s| s.format == a.name())
                || std::env::var_os("PERFHOUSE_FUZZ_FORMATS").is_some(),
            "{} was not fuzzed",
            a.name()
        );
    }
    let findings: Vec<_> = stats.iter().flat_map(|s| &s.findings).collect();
    assert!(
        findings.is_empty(),
        "seed {seed}: {}",
        findings
            .iter()
            .map(|(p, what)| format!("{what} ({})", p.display()))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
