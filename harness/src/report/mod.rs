//! The parity report: one self-contained HTML page a person looks at.
//!
//! The terminal output suits whoever runs `make test`; a course author
//! checking every language at a glance, a reader learning what a case
//! means, and a CI artifact need a page: the language-by-case matrix, a
//! summary per language, and a picture of every case drawn from the
//! reference's run of it, watched by the report's own broker (see
//! `trace.rs`).
//!
//! The page and the CI summary (`html`, `picture`, `markdown`) are drawn
//! from the plain structs below, and a picture from the reference's own
//! run of its scenario (`trace`): no runner, suite or file behind them, so
//! the page can be built (and tested) without running a runner. The rest
//! of the module fills them: `run` maps the suite's recorded verdicts
//! onto them, `results` and `diff` write and compare the results file,
//! `known` turns it into known-failure advice, and `code` reads the source
//! files the manifests name. The page needs no network: no CDN, no
//! external font or script, and it works from `file://`.

pub mod code;
pub mod diff;
mod html;
pub mod junit;
pub mod known;
pub mod markdown;
mod markup;
mod picture;
pub mod results;
pub mod run;
mod style;
mod trace;
pub mod trial;

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

pub use crate::judge::ReasonKind;
pub use crate::table::{Failure, Scenario};

/// Everything the page shows about one run of the suite.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The commit, the date, the filter and the toolchains.
    pub run: results::RunRecord,
    /// The matrix's columns, in order.
    pub languages: Vec<String>,
    /// The matrix's rows, in order: table cases, then e.g. `generated`,
    /// `demo`, `unit`.
    pub rows: Vec<Row>,
    /// The code panel: each part in every language ([`code::parts`]); empty
    /// leaves the panel out.
    pub code: Vec<code::Part>,
    /// What changed since a base run, when one was given (`BASE=`).
    pub base: Option<diff::Base>,
}

/// One toolchain's version, as its own `--version` says it (the results
/// file keeps it as it is).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Toolchain {
    /// E.g. `Go`.
    pub name: String,
    /// E.g. `go1.22.2 linux/amd64`; printed verbatim.
    pub version: String,
}

/// One row of the matrix: a case or another trial (`generated`, `demo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The case, or the trial kind; its name is unique within the report.
    pub id: trial::RowId,
    /// What the case shows, printed above its picture.
    pub description: String,
    /// One of the practice's five seed cases (`cases/seed.json`), which the
    /// page lists first and marks.
    pub seed: bool,
    /// The case's input, for its picture; `None` for trials that are not a
    /// single scenario (`generated`, `demo`, `unit`).
    pub scenario: Option<Scenario>,
    /// The result per language; a language without an entry did not run
    /// this row (e.g. filtered out) and its cell says so.
    pub cells: BTreeMap<String, Cell>,
}

/// One language's result for one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// The trial passed.
    Pass,
    /// The trial failed, for a reason of this kind; the text is what the
    /// terminal shows (its first line the one-line summary, then the diff,
    /// or a runner fault's output and stderr tail), printed verbatim.
    Fail(ReasonKind, String),
    /// The trial did not run, e.g. the toolchain is missing; the reason.
    Ignored(String),
    /// The trial failed as the known-failures list expects; the reason.
    KnownFailure(String),
}

/// What a cell says happened, in one word the page, the results file and
/// the CI summary share; the results file writes it as its [`State::id`].
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Passed.
    Pass,
    /// Failed: the port's answer is wrong.
    WrongAnswer,
    /// Failed: the runner crashed, hung or printed garbage.
    RunnerFault,
    /// Not run: the toolchain is missing (a failure under strict).
    NotRun,
    /// Failed as the known-failures list expects.
    KnownFailure,
    /// Listed as a known failure, but passes now.
    StaleKnownFailure,
    /// Not selected by the run's filter.
    NotSelected,
    /// The reference or the harness failed; in a results file, also a
    /// state this harness does not know (a newer one's), so it shows as a
    /// change rather than vanishing.
    #[serde(other)]
    HarnessFault,
}

impl State {
    /// Every state, in the order a legend lists them.
    pub const ALL: [State; 8] = [
        State::Pass,
        State::WrongAnswer,
        State::RunnerFault,
        State::NotRun,
        State::KnownFailure,
        State::StaleKnownFailure,
        State::HarnessFault,
        State::NotSelected,
    ];

    /// The id the results file and the page's `data-status` use.
    pub fn id(self) -> &'static str {
        match self {
            State::Pass => "pass",
            State::WrongAnswer => "wrong_answer",
            State::RunnerFault => "runner_fault",
            State::NotRun => "not_run",
            State::KnownFailure => "known_failure",
            State::StaleKnownFailure => "stale_known_failure",
            State::HarnessFault => "harness_fault",
            State::NotSelected => "not_selected",
        }
    }

    /// Its symbol and word: colour is never the only signal, and the
    /// Markdown matrix shows the symbol alone, so no two states share one
    /// (a stale known failure asks for a list to be refreshed, a harness
    /// fault for the harness to be fixed, a wrong answer for the port).
    pub fn word(self) -> &'static str {
        match self {
            State::Pass => "✓ pass",
            State::WrongAnswer => "✗ wrong answer",
            State::RunnerFault => "⚠ runner fault",
            State::NotRun => "– not run",
            State::KnownFailure => "! known failure",
            State::StaleKnownFailure => "↻ stale known failure",
            State::HarnessFault => "⊗ harness fault",
            State::NotSelected => "· not selected",
        }
    }
}

impl From<ReasonKind> for State {
    fn from(kind: ReasonKind) -> State {
        match kind {
            ReasonKind::WrongAnswer => State::WrongAnswer,
            ReasonKind::RunnerFault => State::RunnerFault,
            ReasonKind::NotRun => State::NotRun,
            ReasonKind::StaleKnownFailure => State::StaleKnownFailure,
            ReasonKind::HarnessFault => State::HarnessFault,
        }
    }
}

impl Row {
    /// The case's (or the kind's) name.
    pub fn name(&self) -> &str {
        self.id.name()
    }
}

impl Cell {
    /// What the cell says happened.
    pub fn state(&self) -> State {
        match self {
            Cell::Pass => State::Pass,
            Cell::Fail(kind, _) => State::from(*kind),
            Cell::Ignored(_) => State::NotRun,
            Cell::KnownFailure(_) => State::KnownFailure,
        }
    }

    /// The cell's reason, if it has one, printed verbatim.
    pub fn text(&self) -> Option<&str> {
        match self {
            Cell::Pass => None,
            Cell::Fail(_, text) | Cell::Ignored(text) | Cell::KnownFailure(text) => Some(text),
        }
    }

    /// The cell's one-line reason, if it has one.
    pub fn summary(&self) -> Option<&str> {
        self.text().map(first_line)
    }
}

/// The first line of `text` with something on it, trimmed.
pub(crate) fn first_line(text: &str) -> &str {
    text.lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("")
}

/// How many cells of one language's column say what; the page prints one
/// line of these per language, and a test can compare them with libtest's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Cells that passed.
    pub passed: usize,
    /// Cells that failed.
    pub failed: usize,
    /// Cells ignored, with a reason.
    pub ignored: usize,
    /// Cells that failed as expected.
    pub known_failures: usize,
    /// Rows this language did not run at all.
    pub not_run: usize,
}

impl Report {
    /// The counts of `language`'s column.
    pub fn summary(&self, language: &str) -> Summary {
        let mut summary = Summary::default();
        for row in &self.rows {
            match row.cells.get(language) {
                Some(Cell::Pass) => summary.passed += 1,
                Some(Cell::Fail(..)) => summary.failed += 1,
                Some(Cell::Ignored(_)) => summary.ignored += 1,
                Some(Cell::KnownFailure(_)) => summary.known_failures += 1,
                None => summary.not_run += 1,
            }
        }
        summary
    }
}

/// The whole page: matrix, summaries, and every case's picture and failure
/// details, as one HTML document with its style inline.
pub fn render(report: &Report) -> String {
    html::page(report)
}

/// Writes the page to `path` so that a reader (or CI's artifact upload)
/// never sees half a page: a temporary file in the same folder, flushed to
/// disk, then renamed over `path`. Creates the folder if needed.
pub fn write(path: &Path, report: &Report) -> io::Result<()> {
    let written = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => std::fs::create_dir_all(dir),
        _ => Ok(()),
    }
    .and_then(|()| crate::atomic::write(path, render(report).as_bytes()));
    written.map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

#[cfg(test)]
mod tests;
