//! The parity report: one self-contained HTML page a person looks at.
//!
//! The terminal output suits whoever runs `make test`; a course author
//! checking every language at a glance, a reader learning what a case
//! means, and a CI artifact need a page: the language-by-case matrix, a
//! summary per language, and a picture of every case drawn from the
//! reference's run of it, watched by the report's own broker (see
//! `trace.rs`).
//!
//! Every output is a pure function of the run's one record
//! ([`results::Results`], whose serde form is `results.json`): the page
//! (`html`, `picture`), the CI summary (`markdown`), JUnit (`junit`), the
//! diff against a base (`diff`) and the known-failure advice (`known`); a
//! picture is drawn from the reference's own run of its scenario
//! (`trace`). `run` makes the record and the rows from what the suite hands
//! in, and `code` reads the source files the manifests name. Nothing here
//! starts a runner, so the page can be built (and tested) without one. The
//! page needs no network: no CDN, no external font or script, and it works
//! from `file://`.

pub mod code;
pub mod diff;
#[doc(hidden)]
pub mod fixture;
mod html;
pub mod junit;
pub mod known;
pub mod markdown;
mod markup;
mod picture;
pub mod results;
pub mod run;
mod trace;
pub mod trial;

use std::io;
use std::path::Path;

pub use crate::table::{Failure, Scenario};
use results::{Results, State, TrialResult};

/// Everything the page shows about one run of the suite.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The run's record: the commit, the filter, the toolchains (the
    /// matrix's columns) and every trial's result.
    pub results: Results,
    /// The matrix's rows, in order: table cases, then e.g. `generated`,
    /// `demo`, `unit`.
    pub rows: Vec<Row>,
    /// The code panel: the whole scenario in every language
    /// ([`code::panel`]); no language leaves the panel out.
    pub code: code::Panel,
    /// What changed since a base run, when one was given (`BASE=`).
    pub base: Option<diff::Base>,
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
}

/// A report's rows against its trials, indexed once for a rendering.
struct Matrix<'a> {
    report: &'a Report,
    cells: std::collections::HashMap<(&'a trial::RowId, &'a str), &'a TrialResult>,
}

impl<'a> Matrix<'a> {
    fn new(report: &'a Report) -> Self {
        Matrix {
            report,
            cells: report.results.cells(),
        }
    }

    /// The columns.
    fn languages(&self) -> impl Iterator<Item = &'a str> {
        self.report.results.run.languages()
    }

    /// `language`'s result for `row`, if it ran, and what its cell says:
    /// not selected when it did not run.
    fn cell(&self, row: &Row, language: &str) -> (Option<&'a TrialResult>, State) {
        let trial = self.cells.get(&(&row.id, language)).copied();
        (trial, trial.map_or(State::NotSelected, |t| t.state.clone()))
    }

    /// The counts of `language`'s column: [passed, failed, ignored, known
    /// failures, not run]; the page prints them in one line per language,
    /// with `data-` attributes a test compares with libtest's counts.
    fn summary(&self, language: &str) -> [usize; 5] {
        let mut counts = [0; 5];
        for row in &self.report.rows {
            // An outcome's place is its order in `Outcome`; not run is last.
            counts[self.cell(row, language).0.map_or(4, |t| t.verdict as usize)] += 1;
        }
        counts
    }
}

/// The whole page: matrix, summaries, and every case's picture and failure
/// details, as one HTML document with its style inline.
pub fn render(report: &Report) -> String {
    html::page(&Matrix::new(report))
}

/// Writes the page to `path` so that a reader (or CI's artifact upload)
/// never sees half a page. Creates the folder if needed.
pub fn write(path: &Path, report: &Report) -> io::Result<()> {
    write_file(path, &render(report))
}

/// Writes `text` to `path` atomically (a temporary file in the same
/// folder, flushed, then renamed over `path`), creating the folder; the
/// error names the file.
pub(crate) fn write_file(path: &Path, text: &str) -> io::Result<()> {
    // `create_dir_all` of a bare file name's parent, "", does nothing.
    let dir = path.parent().map_or(Ok(()), std::fs::create_dir_all);
    let written = dir.and_then(|()| crate::atomic::write(path, text.as_bytes()));
    written.map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// Writes `value` as pretty JSON, one field a line and a final newline, so
/// a diff of two versions of the file reads (see [`write_file`]).
pub(crate) fn write_json(path: &Path, value: &impl serde::Serialize) -> io::Result<()> {
    let text = serde_json::to_string_pretty(value).expect("plain data serializes");
    write_file(path, &(text + "\n"))
}

#[cfg(test)]
mod tests;
