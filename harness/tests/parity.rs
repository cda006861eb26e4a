//! `cargo test --test parity`: every language against the shared case table.
//! Takes libtest's arguments (a filter such as
//! `patterns/enterprise/outbox/practice/go`, `--exact`, `--skip`, `--list`).

use std::process::ExitCode;
use std::sync::Arc;

use libtest_mimic::Arguments;
use parity::suite::{trials, Settings, Suite};

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let root = parity::repo_root();
    let suite = match Settings::from_env().and_then(|settings| Suite::load(&root, settings)) {
        Ok(suite) => Arc::new(suite),
        Err(message) => {
            eprintln!("parity: {message}");
            eprintln!("parity: nothing was run.");
            return ExitCode::FAILURE;
        }
    };
    let trials = trials(suite, &args);
    libtest_mimic::run(&args, trials).exit_code()
}
