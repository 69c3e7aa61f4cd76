//! Folded stacks (`frame;frame;frame weight`), as written by stackcollapse/inferno-collapse-*
//! and by bcc's `offcputime -f` / `-df`. Upstream definition: inferno's
//! `flamegraph::merge::frames` line parser (github.com/jonhoo/inferno, src/flamegraph/merge.rs).
//!
//! The weight is the last space-separated token and may be fractional; everything before it is
//! the stack, so frames may contain spaces (C++ templates, `[T; 4]`). Lines that do not end in a
//! number are skipped and counted, as inferno does, and reported once. Differential files (two
//! counts per line, inferno-diff-folded's output) are refused: they are a comparison, not a
//! profile. Lines starting with `#` are comments (austin writes `# key: value` metadata
//! before and after its samples) and are neither stacks nor counted as invalid.
//!
//! Kind: `offcpu` (weights in µs, bcc's unit) when the file name says `offcpu`/`offcputime`,
//! otherwise `oncpu` (weights are samples); `--stack-kind` says it explicitly. The content
//! cannot tell: bcc's `-` frame between user and kernel stacks (`-d`) appears in on-CPU
//! `profile -df` output as much as in `offcputime -df`. Frames are kept as written, `-`
//! included, so flamegraphs can grey the separator as inferno does.

use std::io::BufRead;
use std::path::Path;

use super::IngestError;
use super::text::line_error;
use crate::model::{Stack, StackKind};

pub use super::adapter::Folded;

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.parse::<f64>().is_ok_and(f64::is_finite)
}

/// Whether a line looks like folded output (used by `--format auto`).
pub fn sniff(first_line: &str) -> bool {
    let line = first_line.trim_end();
    match line.rsplit_once(' ') {
        Some((stack, w)) => {
            is_number(w) && !stack.is_empty() && !stack.trim_start().starts_with('{')
        }
        None => false,
    }
}

pub fn parse(path: &Path, reader: impl BufRead) -> Result<Folded, IngestError> {
    let mut out = Folded::default();
    let mut skipped = 0usize;
    let offcpu = {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        name.contains("offcpu")
    };
    for (i, line) in reader.lines().enumerate() {
        let line = line.map_err(|source| IngestError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let line = line.trim_end();
        // Blank lines and `#` comments (austin's `# interval: 100`, `# duration: 23873`,
        // header and footer, even after samples) are not stacks, and not malformed lines.
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let Some((stack, weight)) = line.rsplit_once(' ') else {
            skipped += 1;
            continue;
        };
        if !is_number(weight) || stack.trim().is_empty() {
            skipped += 1;
            continue;
        }
        if let Some((_, prev)) = stack.rsplit_once(' ')
            && is_number(prev)
        {
            return Err(line_error(
                path,
                i + 1,
                "two counts on one line: this is a differential folded file (inferno-diff-folded); \
                 ingest the two profiles it was made from instead",
            ));
        }
        let stack = stack.trim_start();
        out.stacks.push(Stack {
            trial_id: 0,
            target: String::new(),
            kind: StackKind::Oncpu,
            stack: stack.to_string(),
            weight: weight.parse().expect("checked above"),
        });
    }
    let kind = if offcpu {
        StackKind::Offcpu
    } else {
        StackKind::Oncpu
    };
    for s in &mut out.stacks {
        s.kind = kind;
    }
    if skipped > 0 {
        out.warnings.push(format!(
            "{}: ignored {skipped} lines with invalid format",
            path.display()
        ));
    }
    if out.stacks.is_empty() {
        return Err(line_error(
            path,
            1,
            "no folded stacks (expected lines of `frame;frame;frame count`)",
        ));
    }
    Ok(out)
}


/// For "unrecognised input": text whose first stack-like line (frames joined by `;`) does not
/// end in a count names that line.
fn near(input: &super::adapter::Sniff) -> Option<String> {
    let line = input.first_text_line(true)?;
    if !line.contains(';') {
        return None;
    }
    let n = input.text()?.lines().position(|l| std::ptr::eq(l, line))? + 1;
    Some(format!(
        "line {n}, {}, has `;`-joined frames but does not end in a count (`frame;frame count`)",
        super::adapter::shown(line)
    ))
}

/// Folded stacks as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Near = super::adapter::Near {
    document: super::adapter::Document {
        name: "folded",
        description: "Folded stacks (stackcollapse/inferno, bcc offcputime -f): one profile per file",
        hint: "stack count",
        claims: super::adapter::no_name,
        walks: |_, name| {
            [".folded", ".collapsed", ".txt"]
                .iter()
                .any(|e| name.ends_with(e))
        },
        sniff: |input| input.first_text_line(true).is_some_and(sniff),
        parse: super::adapter::Reader::Stacks(parse),
    },
    near,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spaces_in_frames_and_fractions() {
        let f = parse(
            Path::new("p.folded"),
            "a;std::vec<int, alloc> 1.5\nb;[T; 4] 2\n".as_bytes(),
        )
        .unwrap();
        assert_eq!(f.stacks[0].stack, "a;std::vec<int, alloc>");
        assert_eq!(f.stacks[0].weight, 1.5);
        assert_eq!(f.stacks[1].stack, "b;[T; 4]");
        assert_eq!(f.stacks[0].kind, StackKind::Oncpu);
    }

    #[test]
    fn kind_comes_from_the_name_not_the_separator() {
        let line = "app;main;read;-;sys_read;schedule 120\n";
        let f = parse(Path::new("profile-df.folded"), line.as_bytes()).unwrap();
        assert_eq!(f.stacks[0].kind, StackKind::Oncpu);
        assert_eq!(f.stacks[0].stack, "app;main;read;-;sys_read;schedule");
        let f = parse(Path::new("app.offcputime.folded"), line.as_bytes()).unwrap();
        assert_eq!(f.stacks[0].kind, StackKind::Offcpu);
    }

    proptest::proptest! {
        #[test]
        fn never_panics(text in ".{0,400}") {
            let _ = parse(Path::new("fuzz"), text.as_bytes());
        }
    }
}
