//! `cargo test --test parity`: every language against the shared case table.
//! Takes libtest's arguments (a filter such as
//! `patterns/enterprise/outbox/practice/go/`, `--exact`, `--skip`, `--list`,
//! `--format json`); `PARITY_JUNIT=path` also writes a JUnit XML report and
//! `PARITY_REPORT=path` the HTML report page. Every run writes its results
//! file (`PARITY_RESULTS`, default `target/parity/results.json`);
//! `PARITY_BASE=path` compares the run with an earlier results file (on the
//! page, at the end of the terminal output and in the CI summary), and
//! when `GITHUB_STEP_SUMMARY` names a file the run appends its Markdown
//! summary there. A relative path is taken from the repository root, like
//! `PARITY_CASES`'s; the files are written atomically.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, PoisonError};

use libtest_mimic::Arguments;
use parity::report::junit;
use parity::report::results::Results;
use parity::report::trial::Recorded;
use parity::suite::Recorder;
use parity::suite::{trials, Executor, Port, Suite};
use parity::{report, selection, text};

fn main() -> ExitCode {
    // From the start: a signal during loading ends with 128 + it too, and
    // what a killed earlier run left is swept.
    parity::exec::guard_the_harness();
    let args = Arguments::from_args();
    let outputs = Outputs::from_env(&parity::repo_root());
    // The base is read before anything runs (a wrong path is a mistake to
    // hear about now, not after the whole suite) and before this run's
    // results replace it, so BASE may be the last run's own file.
    let base = match outputs.base.as_deref().map(Results::load).transpose() {
        Ok(base) => base,
        Err(e) => return nothing_run(&format!("PARITY_BASE: {e}")),
    };
    // A run that stops early (a bad case file, Ctrl-C) must not leave the
    // last run's report behind, as if it were this run's. `--list` runs
    // nothing and reports nothing: the last reports stay as they are.
    if !args.list {
        outputs.remove_old();
    }
    let suite = match Suite::from_env() {
        Ok(suite) => Arc::new(suite),
        Err(message) => return nothing_run(&text::for_terminal(&message)),
    };
    let recorder = Recorder::default();
    let trials = trials(Arc::clone(&suite), &args, &recorder);
    let selected = selection::selected(&args, &trials);
    if let Some(message) = selection::unmatched(&args, &suite, selected) {
        eprintln!("parity: {}", text::for_terminal(&message));
    }
    let conclusion = libtest_mimic::run(&args, trials);
    let records = recorder.lock().unwrap_or_else(PoisonError::into_inner);
    if args.list {
        return conclusion.exit_code();
    }
    let shortfall = selection::shortfall(suite.settings.strict, selected, records.len());
    if let Some(why) = &shortfall {
        eprintln!("parity: {why}");
    }
    let written = outputs.write(&suite, &records, &args, base);
    if written && shortfall.is_none() {
        conclusion.exit_code()
    } else {
        ExitCode::FAILURE
    }
}

/// Says why nothing was run, and fails.
fn nothing_run(why: &str) -> ExitCode {
    eprintln!("parity: {why}");
    eprintln!("parity: nothing was run.");
    ExitCode::FAILURE
}

/// The files a run writes or reads, from the environment (a relative path
/// is taken from the repository root).
struct Outputs {
    junit: Option<PathBuf>,
    report: Option<PathBuf>,
    results: PathBuf,
    base: Option<PathBuf>,
}

impl Outputs {
    fn from_env(root: &Path) -> Self {
        let output = |variable: &str| parity::config::env_path(root, variable);
        Outputs {
            junit: output("PARITY_JUNIT"),
            report: output("PARITY_REPORT"),
            results: parity::config::results_file(root),
            base: output("PARITY_BASE"),
        }
    }

    /// Removes the last run's reports, so none outlives a run that stops;
    /// a link stays, for the new report to be written through.
    fn remove_old(&self) {
        for path in self.junit.iter().chain(&self.report).chain([&self.results]) {
            let _ = std::fs::remove_file(parity::atomic::through_links(path));
        }
    }

    /// Writes the JUnit file, the results file, the step summary and the
    /// page, and prints the changes since the base and the known-failure
    /// advice; false when a file could not be written.
    fn write(
        &self,
        suite: &Arc<Suite>,
        records: &[Recorded],
        args: &Arguments,
        base: Option<Results>,
    ) -> bool {
        let mut written = true;
        let mut page = Executor::new(Arc::clone(suite)).report(records, args);
        let results = page.results.clone();
        if let Some(path) = &self.junit {
            let xml = junit::report(&results);
            let what = format!("write the JUnit report {}", path.display());
            written &= done(parity::atomic::write(path, xml.as_bytes()), &what);
        }
        written &= done(results.write(&self.results), "write the results file");
        page.base = base.map(|base| report::diff::compare(&base, &results));
        let summary_file = parity::config::env_path(&parity::repo_root(), "GITHUB_STEP_SUMMARY");
        if let Some(path) = summary_file {
            let summary = report::markdown::summary(&page);
            let appended = parity::files::append_regular(&path, &summary, "a step summary");
            let what = format!("append the summary to {}", path.display());
            written &= done(appended, &what);
        }
        if let Some(path) = &self.report {
            let page_written = done(report::write(path, &page), "write the report");
            if page_written {
                eprintln!("parity: report written to {}", path.display());
            }
            written &= page_written;
        }
        if let Some(base) = &page.base {
            eprint!("{}", report::diff::text(base));
        }
        let cases = suite.root.join("cases");
        let table = suite.cases.iter().filter(|c| c.file.starts_with(&cases));
        let table = table.map(|c| c.name.as_str()).collect();
        let known = |port: &Arc<Port>| (port.name.clone(), port.known.clone());
        let lists = suite.ports.iter().map(known).collect();
        let advice = report::known::advice(&results, &lists, &table);
        eprint!("{advice}");
        written
    }
}

/// Whether `result` is done, saying why not: "parity: cannot <what>: <why>".
fn done(result: Result<(), impl std::fmt::Display>, what: &str) -> bool {
    let failed = result.map_err(|e| eprintln!("parity: cannot {what}: {e}"));
    failed.is_ok()
}
