use std::process::ExitCode;

// DataFusion allocates and frees large buffers per batch; mimalloc keeps them out of the
// kernel (glibc's malloc spent ~0.6 s of system time in the 10M-row benchmark).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc.h (v2 and v3).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() -> ExitCode {
    // mimalloc hands freed memory back to the OS after 10 ms, and the kernel zeroes it again
    // when it is touched next: over 100 million request rows that page clearing was a third of
    // the CPU. perfhouse is a short-lived process: keep freed memory for reuse (peak RSS is
    // unchanged; MIMALLOC_PURGE_DELAY in the environment still wins).
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one allocator option, before any thread but this one exists.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    }
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
