//! `cargo test --test parity`: every language against the shared case table.
//! Takes libtest's arguments (a filter such as
//! `patterns/enterprise/outbox/practice/go`, `--exact`, `--skip`, `--list`,
//! `--format json`); `PARITY_JUNIT=path` also writes a JUnit XML report and
//! `PARITY_REPORT=path` the HTML report page. A relative path is taken from
//! the repository root, like `PARITY_CASES`'s; both files are written
//! atomically.

use std::process::ExitCode;
use std::sync::Arc;

use libtest_mimic::Arguments;
use parity::suite::junit::{self, Recorder};
use parity::suite::{trials, Suite};
use parity::{report, selection, text};

fn main() -> ExitCode {
    // From the start: a signal during loading ends with 128 + it too, and
    // what a killed earlier run left is swept.
    parity::exec::guard_the_harness();
    let args = Arguments::from_args();
    let root = parity::repo_root();
    let output = |variable: &str| {
        std::env::var_os(variable)
            .filter(|p| !p.is_empty())
            .map(|p| root.join(p))
    };
    let (junit_path, report_path) = (output("PARITY_JUNIT"), output("PARITY_REPORT"));
    // A run that stops early (a bad case file, Ctrl-C) must not leave the
    // last run's report behind, as if it were this run's. `--list` runs
    // nothing and reports nothing: the last reports stay as they are.
    let (junit_path, report_path) = if args.list {
        (None, None)
    } else {
        (junit_path, report_path)
    };
    for path in junit_path.iter().chain(&report_path) {
        let _ = std::fs::remove_file(path);
    }
    let suite = match Suite::from_env() {
        Ok(suite) => Arc::new(suite),
        Err(message) => {
            eprintln!("parity: {}", text::for_terminal(&message));
            eprintln!("parity: nothing was run.");
            return ExitCode::FAILURE;
        }
    };
    let recorder = Recorder::default();
    let trials = trials(Arc::clone(&suite), &args, &recorder);
    let selected = selection::selected(&args, &trials);
    if let Some(message) = selection::unmatched(&args, &suite, selected) {
        eprintln!("parity: {}", text::for_terminal(&message));
    }
    let conclusion = libtest_mimic::run(&args, trials);
    let records = recorder
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let shortfall = if args.list {
        None
    } else {
        selection::shortfall(suite.settings.strict, selected, records.len())
    };
    if let Some(why) = &shortfall {
        eprintln!("parity: {why}");
    }
    let mut written = true;
    if let Some(path) = junit_path {
        if let Err(e) = parity::atomic::write(&path, junit::report(&records).as_bytes()) {
            eprintln!(
                "parity: cannot write the JUnit report {}: {e}",
                path.display()
            );
            written = false;
        }
    }
    if let Some(path) = report_path {
        let page = report::run::from_run(&suite, &records, &args);
        match report::write(&path, &page) {
            Ok(()) => eprintln!("parity: report written to {}", path.display()),
            Err(e) => {
                eprintln!("parity: cannot write the report: {e}");
                written = false;
            }
        }
    }
    if written && shortfall.is_none() {
        conclusion.exit_code()
    } else {
        ExitCode::FAILURE
    }
}
