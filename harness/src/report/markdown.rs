//! The run as Markdown, for a CI job's summary page (appended to the file
//! `GITHUB_STEP_SUMMARY` names): the matrix in compact form, the failures
//! with their one-line reasons, and what changed since the base.

use std::fmt::Write as _;

use super::diff::Base;
use super::results::{Outcome, State};
use super::{Matrix, Report};
use crate::text::one_line;

/// Makes `text` safe in one cell of a Markdown table or one list item:
/// no line break (a lone `\r` ends a Markdown line too, so a base file's
/// name could print a heading of its own), no other control or bidi
/// character (shown as its code, as on the terminal), no column separator,
/// no HTML.
fn cell(text: &str) -> String {
    one_line(text)
        .replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The state's symbol alone, for the compact matrix.
fn symbol(state: &State) -> String {
    let word = state.word();
    word.split(' ').next().unwrap_or("?").to_owned()
}

/// The summary of `report`: the commit and selection, what changed since
/// the base, the failures, then the matrix.
pub fn summary(report: &Report) -> String {
    let run = &report.results.run;
    let mut out = format!("## Parity: commit `{}`\n\n", cell(&run.commit));
    if !run.filter.is_empty() {
        let _ = writeln!(out, "Trials selected by `{}`.\n", cell(&run.filter));
    }
    if let Some(base) = &report.base {
        changes(&mut out, base);
    }
    failures(&mut out, report);
    matrix(&mut out, report);
    out
}

/// The cells that changed since the base, or that none did.
fn changes(out: &mut String, base: &Base) {
    let (note, mut headline, changes) = base.lines(cell, "`");
    if let Some(note) = note {
        let _ = writeln!(out, "Note: {note}.\n");
    }
    // The terminal's headline follows `parity: `; a heading starts upper-case.
    headline[..1].make_ascii_uppercase();
    let _ = writeln!(out, "### {headline}\n");
    for change in &changes {
        let _ = writeln!(out, "- {change}");
    }
    if !changes.is_empty() {
        out.push('\n');
    }
}

/// Every failed cell with its state and one-line reason.
fn failures(out: &mut String, report: &Report) {
    let trials = report.results.trials.iter();
    let failures: Vec<_> = trials.filter(|t| t.verdict == Outcome::Fail).collect();
    if failures.is_empty() {
        out.push_str("### No failures\n\n");
        return;
    }
    let _ = writeln!(out, "### Failures: {}\n", failures.len());
    for trial in failures {
        let (language, case) = (cell(&trial.language), cell(trial.row.name()));
        let summary = cell(trial.summary.as_deref().unwrap_or_default());
        let state = trial.state.word();
        let _ = writeln!(out, "- `{language}/{case}`: {state}: {summary}");
    }
    out.push('\n');
}

/// The matrix, one symbol a cell, and its legend.
fn matrix(out: &mut String, report: &Report) {
    let matrix = Matrix::new(report);
    let header: String = (matrix.languages())
        .map(|l| format!(" {} |", cell(l)))
        .collect();
    let rule = "---|".repeat(matrix.languages().count());
    let _ = writeln!(out, "### Matrix\n\n| case |{header}\n|---|{rule}");
    for row in &report.rows {
        let seed = if row.seed { " (seed)" } else { "" };
        let _ = write!(out, "| {}{seed} |", cell(row.id.name()));
        for language in matrix.languages() {
            let _ = write!(out, " {} |", symbol(&matrix.cell(row, language).1));
        }
        out.push('\n');
    }
    out.push('\n');
    let legend: Vec<String> = State::ALL.iter().map(State::word).collect();
    let _ = writeln!(out, "{}", legend.join(" · "));
}
