//! Raw `perf script` text, collapsed by inferno's collapse-perf library
//! (`inferno::collapse::perf::Folder`, github.com/jonhoo/inferno src/collapse/perf.rs), then read
//! as folded stacks. Nothing of perf's format is reimplemented here: inferno decides which
//! lines are events and frames, and skips what it cannot read as stackcollapse-perf.pl does.

use std::io::BufRead;
use std::path::Path;

use inferno::collapse::Collapse;
use inferno::collapse::perf::{Folder, Options};

use super::IngestError;
use super::folded::{self, Folded};
use super::text::line_error;

/// Whether the first non-comment line looks like a `perf script` event line with a timestamp
/// (`comm pid[/tid] [cpu] seconds.micros: [period] event:`).
pub fn sniff(first_line: &str) -> bool {
    let line = first_line.trim();
    if line.is_empty() || line.starts_with('#') || line.starts_with('{') {
        return false;
    }
    line.split_whitespace().any(|tok| {
        tok.strip_suffix(':').is_some_and(|t| {
            t.split_once('.').is_some_and(|(s, us)| {
                !s.is_empty()
                    && !us.is_empty()
                    && s.bytes().all(|b| b.is_ascii_digit())
                    && us.bytes().all(|b| b.is_ascii_digit())
            })
        })
    })
}

/// Whether a line is an event line of older perf, which printed no timestamp, cpu or period
/// (`java  3244 cpu-clock: `, FlameGraph's `perf-vertx-stacks-01.txt`): `comm pid[/tid]
/// event:`, the pid a number and the event its last token. Alone this shape is too loose to
/// name a format, so [`sniff_text`] also wants a frame line after it.
pub fn old_event_line(line: &str) -> bool {
    let toks: Vec<&str> = line.split_whitespace().collect();
    let [.., pid, event] = toks[..] else {
        return false;
    };
    toks.len() >= 3
        && !line.starts_with(char::is_whitespace)
        && event.len() > 1
        && event.ends_with(':')
        && pid.split('/').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether a line is a stack frame of `perf script -g` output: indented, a hex address, then
/// the symbol (`\t  7f9c33ac176d __libc_start_main (/lib/…/libc-2.15.so)`).
pub fn frame_line(line: &str) -> bool {
    line.starts_with(char::is_whitespace)
        && line
            .split_whitespace()
            .next()
            .is_some_and(|a| a.bytes().all(|b| b.is_ascii_hexdigit()))
        && line.split_whitespace().nth(1).is_some()
}

/// Whether text is `perf script` output: its first line that is neither blank nor a `#` header
/// is an event line, with a timestamp ([`sniff`]) or, as older perf wrote it, without one
/// ([`old_event_line`]) and then followed by a frame line. Returns that line's number (1-based)
/// and whether it is one.
fn sniff_lines<'a>(mut lines: impl Iterator<Item = &'a str>) -> (usize, bool) {
    let mut n = 0;
    for line in lines.by_ref() {
        n += 1;
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if sniff(line) {
            return (n, true);
        }
        return (n, old_event_line(line) && lines.next().is_some_and(frame_line));
    }
    (n.max(1), false)
}

/// [`sniff_lines`] over a whole text (auto-detection).
pub fn sniff_text(text: &str) -> bool {
    sniff_lines(text.lines()).1
}

pub fn parse(path: &Path, reader: impl BufRead) -> Result<Folded, IngestError> {
    parse_with(path, reader, false)
}

/// As [`parse`]; `annotate_kernel` suffixes kernel frames with `_[k]` (inferno's option), which
/// the runner uses so profile tables can find the innermost user frame.
pub fn parse_with(
    path: &Path,
    mut reader: impl BufRead,
    annotate_kernel: bool,
) -> Result<Folded, IngestError> {
    let not_perf = |line: usize| {
        line_error(
            path,
            line,
            "no samples with stacks (expected `perf script` output of a `perf record -g` profile: \
                  an event line `comm pid [time:] [period] event:` followed by indented frames)",
        )
    };
    let mut text = Vec::new();
    reader
        .read_to_end(&mut text)
        .map_err(|source| IngestError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    // inferno (0.12) asserts that the first stack starts with an event line; check it here so
    // other input is an error rather than a panic.
    match sniff_lines(String::from_utf8_lossy(&text).lines()) {
        (_, true) => {}
        (line, false) => return Err(not_perf(line)),
    }
    let mut options = Options::default();
    options.nthreads = 1;
    options.annotate_kernel = annotate_kernel;
    let mut folder = Folder::from(options);
    let mut collapsed = Vec::new();
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        folder.collapse(&text[..], &mut collapsed)
    }));
    match run {
        Ok(r) => r.map_err(|source| IngestError::Io {
            path: path.to_path_buf(),
            source,
        })?,
        Err(_) => return Err(not_perf(1)),
    }
    if collapsed.iter().all(u8::is_ascii_whitespace) {
        return Err(line_error(
            path,
            1,
            "no samples with stacks (expected `perf script` output of a `perf record -g` profile)",
        ));
    }
    let mut folded = folded::parse(path, &collapsed[..])?;
    // perf prints symbol names as the binary holds them; bytes that are not UTF-8 become U+FFFD
    // in the stored frames: said, naming the first such line, rather than landed silently.
    let bad: Vec<usize> = if std::str::from_utf8(&text).is_ok() {
        Vec::new()
    } else {
        text.split(|b| *b == b'\n')
            .enumerate()
            .filter(|(_, l)| std::str::from_utf8(l).is_err())
            .map(|(i, _)| i + 1)
            .collect()
    };
    if let Some(first) = bad.first() {
        folded.warnings.push(format!(
            "{}:{first}: {} line(s) are not valid UTF-8; their frames are stored with U+FFFD in place of the bad bytes",
            path.display(),
            bad.len()
        ));
    }
    Ok(folded)
}


/// For "unrecognised input": text with `perf script` frame lines whose first line is not an
/// event line names that line.
fn near(input: &super::adapter::Sniff) -> Option<String> {
    if input.doc().is_some() {
        return None;
    }
    let text = input.text()?;
    text.lines().take(1000).find(|l| frame_line(l))?;
    let (n, _) = sniff_lines(text.lines());
    let line = text.lines().nth(n - 1).unwrap_or_default();
    Some(format!(
        "has indented frame lines, but line {n}, {}, is not an event line \
         `comm pid [cpu] [time:] [period] event:` followed by frames",
        super::adapter::shown(line)
    ))
}

/// `perf script` text as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Near = super::adapter::Near {
    document: super::adapter::Document {
        name: "perf-script",
        description: "Raw `perf script` text, collapsed by inferno's collapse-perf into on-CPU stacks",
        hint: "perf script text",
        claims: super::adapter::no_name,
        walks: super::adapter::text_file,
        sniff: |input| input.doc().is_none() && input.text().is_some_and(sniff_text),
        parse: super::adapter::Reader::Stacks(parse),
    },
    near,
};
