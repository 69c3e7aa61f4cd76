//! The reference that ships with the binary: shell completions and the man page are generated
//! from the clap definitions, and every CLI example of the book and the README is checked
//! against `--help` (docs/check-examples.sh), so none can name a command or flag that does
//! not exist.

use crate::common;

use std::process::Command;

use common::*;

fn perfhouse_out(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_perfhouse"))
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

/// Every visible subcommand, from `--help` (the list a user sees).
fn subcommands() -> Vec<String> {
    let help = perfhouse_out(&["--help"]);
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .filter(|s| s != "help")
        .collect()
}

#[test]
fn completions_name_every_subcommand_in_each_shell() {
    let subs = subcommands();
    assert!(subs.len() > 20, "{subs:?}");
    assert!(subs.contains(&"completions".to_string()) && subs.contains(&"man".to_string()));
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = perfhouse_out(&["completions", shell]);
        for sub in &subs {
            assert!(script.contains(sub.as_str()), "{shell}: no `{sub}`");
        }
        // A flag of one subcommand, and (where the shell completes values) a format.
        assert!(script.contains("fail-on-regression"), "{shell}");
        if ["bash", "zsh", "fish"].contains(&shell) {
            assert!(script.contains("metrics-json"), "{shell}");
        }
    }
    let bash = perfhouse_out(&["completions", "bash"]);
    assert!(bash.contains("complete -F _perfhouse"), "{bash}");
    let o = Command::new(env!("CARGO_BIN_EXE_perfhouse"))
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );
}

/// `triage`'s STATE is a closed list: `-h` lists it, `--help` says what each does, the
/// completions offer it, and a word outside it is a usage error that names the list.
#[test]
fn triage_lists_its_states_in_help_and_completions() {
    let short = perfhouse_out(&["triage", "-h"]);
    assert!(
        short.contains("[possible values: new, acknowledged, invalid, fixed, accepted]"),
        "{short}"
    );
    let long = perfhouse_out(&["triage", "--help"]);
    for line in [
        "- new:          Detected, nobody has looked",
        "- acknowledged: Someone is on it (still open)",
        "- accepted:     The new level is the new baseline",
    ] {
        assert!(long.contains(line), "no {line:?} in {long}");
    }
    let bash = perfhouse_out(&["completions", "bash"]);
    assert!(
        bash.contains("new acknowledged invalid fixed accepted"),
        "{bash}"
    );
    let o = Command::new(env!("CARGO_BIN_EXE_perfhouse"))
        .args(["triage", "abc", "wontfix"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "a usage error");
    let err = stderr(&o);
    assert!(
        err.contains("invalid value 'wontfix' for '<STATE>'")
            && err.contains("[possible values: new, acknowledged, invalid, fixed, accepted]"),
        "{err}"
    );
}

#[test]
fn the_man_page_is_roff_with_every_subcommand() {
    let man = perfhouse_out(&["man"]);
    assert!(man.contains(".TH perfhouse 1"));
    assert!(man.contains(".SH SUBCOMMANDS"));
    for sub in subcommands() {
        assert!(
            man.contains(&format!("perfhouse\\-{sub}(1)")),
            "no `{sub}` in the man page"
        );
    }
    // The global options with their defaults.
    assert!(
        man.contains("\\fB\\-\\-warehouse\\fR \\fI<WAREHOUSE>\\fR [default: datasets/warehouse]")
    );
}

#[test]
fn every_cli_example_in_the_book_and_readme_names_a_real_command_and_flag() {
    let o = Command::new("bash")
        .arg(repo().join("docs/check-examples.sh"))
        .arg(env!("CARGO_BIN_EXE_perfhouse"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}\n{}", stdout(&o), stderr(&o));
}

/// The long flags of `perfhouse ARGS --help`, without --help and --version.
fn help_flags(args: &[&str]) -> std::collections::BTreeSet<String> {
    let help = perfhouse_out(args);
    let flag = regex::Regex::new(r"(?m)^\s+(?:-\w, )?(--[a-z][a-z0-9-]*)").unwrap();
    flag.captures_iter(&help)
        .map(|c| c[1].to_string())
        .filter(|f| f != "--help" && f != "--version")
        .collect()
}

/// The book's CLI chapter (docs/src/cli.md) is the one synopsis (the README links it): each
/// subcommand `--help` lists has its line(s), each of its flags is there, and the synopsis
/// names no flag that `--help` does not have; the `global:` line holds the global options.
#[test]
fn the_cli_chapter_synopsis_is_the_help_of_every_subcommand() {
    let text = std::fs::read_to_string(repo().join("docs/src/cli.md")).unwrap();
    let block = text.split("```").nth(1).expect("the synopsis block");
    let mut synopsis: std::collections::BTreeMap<String, String> = Default::default();
    let mut current = String::new();
    for line in block.lines() {
        if let Some(rest) = line.strip_prefix("perfhouse ") {
            current = rest.split_whitespace().next().unwrap().to_string();
        } else if line.starts_with("global:") {
            current = "global".into();
        } else if !line.starts_with(' ') {
            current.clear();
        }
        if !current.is_empty() {
            // Trailing `# comments` explain; only the usage before them counts.
            let usage = line.split(" # ").next().unwrap();
            let entry = synopsis.entry(current.clone()).or_default();
            entry.push_str(usage);
            entry.push(' ');
        }
    }
    let flags_in = |s: &str| -> std::collections::BTreeSet<String> {
        let flag = regex::Regex::new(r"--[a-z][a-z0-9-]*").unwrap();
        flag.find_iter(s).map(|m| m.as_str().to_string()).collect()
    };
    let global = help_flags(&["--help"]);
    let mut wrong = Vec::new();
    let in_book = flags_in(synopsis.get("global").map_or("", String::as_str));
    if in_book != global {
        wrong.push(format!(
            "global: --help has {global:?}, the chapter {in_book:?}"
        ));
    }
    for sub in subcommands() {
        let Some(line) = synopsis.get(&sub) else {
            wrong.push(format!("{sub}: no synopsis line"));
            continue;
        };
        let help: std::collections::BTreeSet<String> = help_flags(&[&sub, "--help"])
            .difference(&global)
            .cloned()
            .collect();
        let book = flags_in(line);
        for f in help.difference(&book) {
            wrong.push(format!("{sub}: {f} is in --help, not in the chapter"));
        }
        for f in book.difference(&help) {
            wrong.push(format!("{sub}: {f} is in the chapter, not in --help"));
        }
    }
    assert!(
        wrong.is_empty(),
        "docs/src/cli.md vs --help:\n{}",
        wrong.join("\n")
    );
}

/// Every format the adapter registry reads is named in the book's format chapter and in the
/// CLI chapter's `F:` list, and those lists name no format the registry lacks.
#[test]
fn every_registered_format_is_in_the_book_and_the_cli_chapter() {
    let names: Vec<String> = perfhouse::ingest::Format::all()
        .iter()
        .map(|f| f.name().to_string())
        .collect();
    let formats = std::fs::read_to_string(repo().join("docs/src/formats.md")).unwrap();
    let cli = std::fs::read_to_string(repo().join("docs/src/cli.md")).unwrap();
    let f_list: Vec<String> = cli
        .lines()
        .skip_while(|l| !l.starts_with("F: "))
        .take_while(|l| l.starts_with("F: ") || l.trim_start().starts_with("| "))
        .flat_map(|l| l.trim_start_matches("F: ").split('|'))
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .collect();
    let mut wrong = Vec::new();
    for n in &names {
        let named = [
            format!("**{n}**"),
            format!("`--format {n}`"),
            format!("`{n}`"),
        ];
        if !named.iter().any(|m| formats.contains(m.as_str())) {
            wrong.push(format!(
                "{n}: not in docs/src/formats.md (as **{n}** or `{n}`)"
            ));
        }
        if !f_list.contains(n) {
            wrong.push(format!("{n}: not in docs/src/cli.md's F: list"));
        }
    }
    for n in &f_list {
        if !names.contains(n) {
            wrong.push(format!(
                "{n}: in docs/src/cli.md's F: list, not a registered format"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
