use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = perfhouse::cli::Cli::parse();
    match perfhouse::commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // A closed pipe (`perfhouse query … | head`) is not a failure.
            if err.chain().any(|e| {
                e.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            if err
                .downcast_ref::<perfhouse::commands::RegressionFound>()
                .is_some()
            {
                return ExitCode::from(3);
            }
            eprintln!("error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::FAILURE
        }
    }
}
