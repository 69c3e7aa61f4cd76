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

/// Whether the first non-comment line looks like a `perf script` event line
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
    let not_perf = |line: usize| IngestError::Parse {
        path: path.to_path_buf(),
        line,
        message:
            "no samples with stacks (expected `perf script` output of a `perf record -g` profile: \
                  an event line `comm pid time: period event:` followed by indented frames)"
                .to_string(),
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
    let first = String::from_utf8_lossy(&text)
        .lines()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|(i, l)| (i + 1, sniff(l)));
    match first {
        Some((_, true)) => {}
        Some((line, false)) => return Err(not_perf(line)),
        None => return Err(not_perf(1)),
    }
    let mut options = Options::default();
    options.nthreads = 1;
    options.annotate_kernel = annotate_kernel;
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
        return Err(IngestError::Parse {
            path: path.to_path_buf(),
            line: 1,
            message: "no samples with stacks (expected `perf script` output of a `perf record -g` profile)"
                .to_string(),
        });
    }
    let mut folded = folded::parse(path, &collapsed[..])?;
    // perf prints symbol names as the binary holds them; bytes that are not UTF-8 become U+FFFD
    // in the stored frames: said, naming the first such line, rather than landed silently.
    let bad: Vec<usize> = text
        .split(|b| *b == b'\n')
        .enumerate()
        .filter(|(_, l)| std::str::from_utf8(l).is_err())
        .map(|(i, _)| i + 1)
        .collect();
    if let Some(first) = bad.first() {
        folded.warnings.push(format!(
            "{}:{first}: {} line(s) are not valid UTF-8; their frames are stored with U+FFFD in place of the bad bytes",
            path.display(),
            bad.len()
        ));
    }
    Ok(folded)
}

/// `perf script` text as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document = super::adapter::Document {
    name: "perf-script",
    description: "Raw `perf script` text, collapsed by inferno's collapse-perf into on-CPU stacks",
    hint: "perf script text",
    claims: super::adapter::no_name,
    walks: super::adapter::text_file,
    sniff: |input| input.first_text_line(true).is_some_and(sniff),
    parse: super::adapter::Reader::Stacks(parse),
};
