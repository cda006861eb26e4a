//! The parity report: one self-contained HTML page a person looks at.
//!
//! The terminal output suits whoever runs `make test`; a course author
//! checking five languages at a glance, a reader learning what a case
//! means, and a CI artifact need a page: the language-by-case matrix, a
//! summary per language, and a picture of every case drawn from the
//! reference's own trace of it (see `outbox::trace`).
//!
//! This module only knows the plain structs below; the suite maps its own
//! case and trial model onto them, so the page can be built (and tested)
//! without running any runner. The page needs no network: no CDN, no
//! external font or script, and it works from `file://`.

pub mod code;
mod html;
mod picture;
pub mod run;

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

pub use crate::table::{Failure, Scenario};

/// Everything the page shows about one run of the suite.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// When the run happened, as the page should print it (e.g. RFC 3339).
    pub date: String,
    /// The commit the run tested (a hash, possibly with a `-dirty` mark).
    pub commit: String,
    /// The libtest arguments that chose the trials (a filter, `--skip`),
    /// empty when every trial ran, so a filtered run is not taken for a
    /// broken one.
    pub selection: String,
    /// The toolchains the run used, in the order the page lists them.
    pub toolchains: Vec<Toolchain>,
    /// The matrix's columns, in order.
    pub languages: Vec<String>,
    /// The matrix's rows, in order: table cases, then e.g. `generated`,
    /// `demo`, `unit`.
    pub rows: Vec<Row>,
    /// The code panel: each part in every language ([`code::read`]); empty
    /// leaves the panel out.
    pub code: Vec<code::Part>,
}

/// One toolchain's version, as its own `--version` says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolchain {
    /// E.g. `Go`.
    pub name: String,
    /// E.g. `go1.22.2 linux/amd64`; printed verbatim.
    pub version: String,
}

/// One row of the matrix: a case or another trial (`generated`, `demo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The case's (or trial's) name, unique within the report.
    pub name: String,
    /// What the case shows, printed above its picture.
    pub description: String,
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
    /// The trial failed; the text is what the terminal shows (the diff, or
    /// a runner fault's output and stderr tail), printed verbatim.
    Fail(String),
    /// The trial did not run, e.g. the toolchain is missing; the reason.
    Ignored(String),
    /// The trial failed as the known-failures list expects; the reason.
    KnownFailure(String),
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
                Some(Cell::Fail(_)) => summary.failed += 1,
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
