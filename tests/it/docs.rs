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
