//! `[valgrind]`: the measured command under valgrind's cachegrind or callgrind with the cache
//! simulation on, for counts that do not move with the machine's load: the instructions a
//! deterministic program executes are the same on every run and every machine of one
//! architecture (and, with the fixed simulated caches below, so are its cache hits).
//!
//! Every process of the command is followed (`--trace-children=yes`: bash, and what it
//! starts or execs), each writing its own output file in the trial's directory; a trial's
//! counts are their sum. From them, as iai-callgrind computes them:
//!
//! ```text
//! L1 hits   = (Ir + Dr + Dw) − (I1mr + D1mr + D1mw)
//! LL hits   = (I1mr + D1mr + D1mw) − (ILmr + DLmr + DLmw)
//! RAM hits  = ILmr + DLmr + DLmw
//! estimated cycles = L1 hits + 5 · LL hits + 35 · RAM hits
//! ```
//!
//! The simulated caches are fixed (`--I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64`):
//! valgrind otherwise takes the host's, and the estimated cycles of one program would differ
//! between a laptop and a 384 MiB-L3 server. `[valgrind] args` can set others.
//!
//! The command runs 20–100× slower (BENCHMARKS.md: measured here), and its wall time, CPU
//! time and peak RSS (`trials`) are valgrind's: use it for short benchmarks, for the counts.

use std::path::Path;
use std::process::Command;

use super::counters::shell_quote;
use super::plan::ValgrindTool;
use crate::model::{Better, Metric};

/// The simulated caches: 32 KiB 8-way L1 instruction and data caches and an 8 MiB 16-way
/// last-level cache, 64-byte lines (a common x86-64 desktop's; fixed so counts compare
/// across machines).
pub const CACHES: [&str; 3] = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"];

/// Whether valgrind runs here, or why not.
pub fn available() -> Result<String, String> {
    let out = Command::new("valgrind")
        .arg("--version")
        .output()
        .map_err(|e| format!("valgrind could not start ({e}): is it installed?"))?;
    if !out.status.success() {
        return Err("`valgrind --version` failed".to_string());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The output files' prefix in the trial's directory (`cachegrind.out.<pid>`).
fn prefix(tool: ValgrindTool) -> String {
    format!("{}.out.", tool.as_str())
}

/// `command` under valgrind: every process followed, each writing `<tool>.out.<pid>` and its
/// log (`valgrind.<pid>.log`, so the command's stderr stays its own) into `dir`.
pub fn wrap(command: &str, tool: ValgrindTool, args: &[String], dir: &Path) -> String {
    let out = dir.join(format!("{}%p", prefix(tool)));
    let log = dir.join("valgrind.%p.log");
    let mut words: Vec<String> = vec![
        "valgrind".into(),
        format!("--tool={}", tool.as_str()),
        "--cache-sim=yes".into(),
        "--trace-children=yes".into(),
        format!("--{}-out-file={}", tool.as_str(), out.display()),
        format!("--log-file={}", log.display()),
    ];
    words.extend(CACHES.iter().map(|c| c.to_string()));
    words.extend(args.iter().cloned());
    let mut line = vec!["exec".to_string()];
    line.extend(words.iter().map(|w| shell_quote(w)));
    line.extend(["bash".to_string(), "-c".to_string(), shell_quote(command)]);
    line.join(" ")
}

/// The events of one output file (or a sum of several).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub ir: u64,
    pub dr: u64,
    pub dw: u64,
    pub i1mr: u64,
    pub d1mr: u64,
    pub d1mw: u64,
    pub ilmr: u64,
    pub dlmr: u64,
    pub dlmw: u64,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.ir += o.ir;
        self.dr += o.dr;
        self.dw += o.dw;
        self.i1mr += o.i1mr;
        self.d1mr += o.d1mr;
        self.d1mw += o.d1mw;
        self.ilmr += o.ilmr;
        self.dlmr += o.dlmr;
        self.dlmw += o.dlmw;
    }

    pub fn accesses(&self) -> u64 {
        self.ir + self.dr + self.dw
    }
    fn l1_misses(&self) -> u64 {
        self.i1mr + self.d1mr + self.d1mw
    }
    pub fn ram_hits(&self) -> u64 {
        self.ilmr + self.dlmr + self.dlmw
    }
    pub fn l1_hits(&self) -> u64 {
        self.accesses().saturating_sub(self.l1_misses())
    }
    pub fn ll_hits(&self) -> u64 {
        self.l1_misses().saturating_sub(self.ram_hits())
    }
    /// L1 hits + 5 · LL hits + 35 · RAM hits (iai-callgrind's estimate).
    pub fn estimated_cycles(&self) -> u64 {
        self.l1_hits() + 5 * self.ll_hits() + 35 * self.ram_hits()
    }
}

/// The counts of one cachegrind or callgrind output file: its `events:` line names the
/// columns of its `summary:` line (callgrind: the `totals:` of its parts where no summary).
pub fn parse(text: &str) -> Result<Counts, String> {
    let mut events: Option<Vec<&str>> = None;
    let mut summary: Option<Vec<u64>> = None;
    let mut totals: Option<Vec<u64>> = None;
    let numbers = |rest: &str| -> Result<Vec<u64>, String> {
        rest.split_whitespace()
            .map(|n| n.parse().map_err(|_| format!("`{n}` is not a count")))
            .collect()
    };
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("events:") {
            events = Some(rest.split_whitespace().collect());
        } else if let Some(rest) = line.strip_prefix("summary:") {
            summary = Some(numbers(rest)?);
        } else if let Some(rest) = line.strip_prefix("totals:") {
            let t = numbers(rest)?;
            let sum = totals.get_or_insert_with(|| vec![0; t.len()]);
            for (s, v) in sum.iter_mut().zip(t) {
                *s += v;
            }
        }
    }
    let events = events.ok_or("no `events:` line")?;
    let values = summary
        .or(totals)
        .ok_or("no `summary:` or `totals:` line")?;
    let get = |name: &str| -> Result<u64, String> {
        let i = events.iter().position(|e| *e == name).ok_or_else(|| {
            format!("no `{name}` event (is the cache simulation on? --cache-sim=yes)")
        })?;
        // A trailing zero may be left out.
        Ok(values.get(i).copied().unwrap_or(0))
    };
    Ok(Counts {
        ir: get("Ir")?,
        dr: get("Dr")?,
        dw: get("Dw")?,
        i1mr: get("I1mr")?,
        d1mr: get("D1mr")?,
        d1mw: get("D1mw")?,
        ilmr: get("ILmr")?,
        dlmr: get("DLmr")?,
        dlmw: get("DLmw")?,
    })
}

/// The trial's counts: the sum over every process's output file in `dir`, as two metrics
/// (origin `valgrind`, unit `count`, lower is better; named as the `iai` ingest format names
/// iai-callgrind's): `instructions` and `estimated_cycles`; and how many processes there
/// were. The hits the estimate is made of stay in the output files (`--keep-scratch` keeps
/// them): as rows of their own they would only widen the family of tests a comparison
/// corrects for (Holm) without deciding anything the estimate does not.
pub fn read(dir: &Path, tool: ValgrindTool, trial_id: i32) -> Result<(Vec<Metric>, usize), String> {
    let prefix = prefix(tool);
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&prefix))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!(
            "valgrind wrote no {prefix}* file (see valgrind.*.log in the trial's directory)"
        ));
    }
    let mut sum = Counts::default();
    for f in &files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        sum.add(&parse(&text).map_err(|e| format!("{}: {e}", f.display()))?);
    }
    let m = |name: &str, v: u64| Metric {
        trial_id,
        name: name.to_string(),
        value: v as f64,
        unit: "count".to_string(),
        better: Better::Lower,
        origin: "valgrind".to_string(),
        version: None,
    };
    Ok((
        vec![
            m("instructions", sum.ir),
            m("estimated_cycles", sum.estimated_cycles()),
        ],
        files.len(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimated_cycles_follow_the_formula_on_hand_computed_counts() {
        let c = Counts {
            ir: 1000,
            dr: 300,
            dw: 200,
            i1mr: 10,
            d1mr: 20,
            d1mw: 5,
            ilmr: 2,
            dlmr: 3,
            dlmw: 1,
        };
        // accesses 1500; L1 misses 35; RAM 6; L1 hits 1465; LL hits 29.
        assert_eq!((c.l1_hits(), c.ll_hits(), c.ram_hits()), (1465, 29, 6));
        assert_eq!(c.estimated_cycles(), 1465 + 5 * 29 + 35 * 6);
    }

    #[test]
    fn cachegrind_and_callgrind_files_read_by_their_events_line() {
        // valgrind 3.19 here: cachegrind's column order, then callgrind's (another order,
        // a `totals:` per part beside the summary).
        let cg = "desc: I1 cache: 32768 B, 64 B, 8-way associative\ncmd: /usr/bin/gzip -6\n\
                  events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw \nfl=x.c\nfn=main\n1 2 0 0 0 0 0 0 0 0\n\
                  summary: 365770560 1346 1321 78332811 3502494 2216 24843524 81621 7669\n";
        let c = parse(cg).unwrap();
        assert_eq!((c.ir, c.dr, c.dw), (365_770_560, 78_332_811, 24_843_524));
        assert_eq!((c.i1mr, c.d1mr, c.d1mw), (1346, 3_502_494, 81_621));
        assert_eq!((c.ilmr, c.dlmr, c.dlmw), (1321, 2216, 7669));
        let cl = "cmd:  /usr/bin/gzip -6\npart: 1\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n\
                  summary: 364596599 77531550 25644787 1338 3501866 82249 1314 1976 7909\n\
                  totals: 364596597 77531550 25644787 1337 3501866 82249 1313 1976 7909\n";
        let c = parse(cl).unwrap();
        assert_eq!(
            (c.ir, c.dr, c.dw, c.ilmr),
            (364_596_599, 77_531_550, 25_644_787, 1314)
        );
        let no_sim = "events: Ir\nsummary: 100\n";
        assert!(parse(no_sim).unwrap_err().contains("--cache-sim=yes"));
    }

    #[test]
    fn the_command_is_one_quoted_word_after_valgrinds_options() {
        let w = wrap(
            "gzip < 'in' > out",
            ValgrindTool::Callgrind,
            &["--LL=4194304,16,64".into()],
            Path::new("/tmp/t0"),
        );
        assert_eq!(
            w,
            "exec 'valgrind' '--tool=callgrind' '--cache-sim=yes' '--trace-children=yes' \
             '--callgrind-out-file=/tmp/t0/callgrind.out.%p' '--log-file=/tmp/t0/valgrind.%p.log' \
             '--I1=32768,8,64' '--D1=32768,8,64' '--LL=8388608,16,64' '--LL=4194304,16,64' \
             bash -c 'gzip < '\\''in'\\'' > out'"
        );
    }
}
