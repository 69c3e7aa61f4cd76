use std::process::ExitCode;

// DataFusion allocates and frees large buffers per batch; mimalloc keeps them out of the
// kernel (glibc's malloc spent ~0.6 s of system time in the 10M-row benchmark).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = perfhouse::cli::Cli::parse_args();
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
            if err
                .downcast_ref::<perfhouse::commands::NothingToBisect>()
                .is_some()
            {
                eprintln!("{err}");
                return ExitCode::from(4);
            }
            eprintln!("error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::FAILURE
        }
    }
}
