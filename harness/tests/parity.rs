//! `cargo test --test parity`: every language against the shared case table.
//! Takes libtest's arguments (a filter such as
//! `patterns/enterprise/outbox/practice/go`, `--exact`, `--skip`, `--list`,
//! `--format json`); `PARITY_JUNIT=path` also writes a JUnit XML report.
//! A relative path is taken from the repository root, like `PARITY_CASES`'s.

use std::process::ExitCode;
use std::sync::Arc;

use libtest_mimic::Arguments;
use parity::suite::junit::{self, Recorder};
use parity::suite::{trials, Suite};

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let root = parity::repo_root();
    let suite = match Suite::from_env() {
        Ok(suite) => Arc::new(suite),
        Err(message) => {
            eprintln!("parity: {message}");
            eprintln!("parity: nothing was run.");
            return ExitCode::FAILURE;
        }
    };
    let recorder = Recorder::default();
    let conclusion = libtest_mimic::run(&args, trials(suite, &args, &recorder));
    if let Some(path) = std::env::var_os("PARITY_JUNIT").filter(|p| !p.is_empty()) {
        let path = root.join(path);
        let records = recorder
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Err(e) = std::fs::write(&path, junit::report(&records)) {
            eprintln!(
                "parity: cannot write the JUnit report {}: {e}",
                path.to_string_lossy()
            );
            return ExitCode::FAILURE;
        }
    }
    conclusion.exit_code()
}
