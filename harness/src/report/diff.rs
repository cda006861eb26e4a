//! What changed since a base run: the cells whose state differs between
//! the base's results file and this run's, for the top of the page, the
//! end of the terminal run and the CI summary.

use std::collections::HashMap;

use super::results::{Results, State, TrialResult};
use crate::text::one_line;

/// The comparison of a run with its base.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    /// The base's commit, as its results file says.
    pub commit: String,
    /// The cells that changed, in this run's order, then the gone ones in
    /// the base's order.
    pub changes: Vec<Change>,
    /// When the base chose its trials otherwise than this run, the note
    /// that says so: only the cells both runs ran are compared, a cell one
    /// filter left out is neither new nor gone.
    pub note: Option<String>,
}

impl Base {
    /// The comparison in words, as the terminal and the Markdown summary
    /// print it: the filter note, the headline, a line per change. Each
    /// text from the base's file goes through `escape`, the output's, and a
    /// name (a commit, a cell) between two `quote`s.
    pub fn lines(
        &self,
        escape: impl Fn(&str) -> String,
        quote: &str,
    ) -> (Option<String>, String, Vec<String>) {
        let commit = format!("(commit {quote}{}{quote})", escape(&self.commit));
        let headline = match self.changes.len() {
            0 => format!("no change since the base {commit}."),
            n => format!("changed since the base {commit}: {n} cell(s)"),
        };
        let changes = self.changes.iter().map(|change| {
            let (cell, what) = (escape(&change.cell()), change.what());
            let mut line = format!("{quote}{cell}{quote}: {what}");
            if let Some(summary) = &change.summary {
                line += &format!(": {}", escape(summary));
            }
            line
        });
        let note = self.note.as_deref().map(&escape);
        (note, headline, changes.collect())
    }
}

/// One cell whose state changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The language.
    pub language: String,
    /// The case (or trial) name.
    pub case: String,
    /// Its state in the base; `None`: new in this run.
    pub before: Option<State>,
    /// Its state now; `None`: gone (not in this run).
    pub after: Option<State>,
    /// This run's one-line reason (the base's, for a gone cell).
    pub summary: Option<String>,
}

impl Change {
    /// What happened, in words: `pass → ✗ wrong answer`, `new`, `gone`.
    pub fn what(&self) -> String {
        match (&self.before, &self.after) {
            (Some(before), Some(after)) => format!("{} → {}", before.word(), after.word()),
            (None, Some(after)) => format!("new: {}", after.word()),
            (Some(before), None) => format!("gone (was {})", before.word()),
            (None, None) => "unchanged".to_owned(),
        }
    }

    /// `language/case`, the cell's name.
    pub fn cell(&self) -> String {
        format!("{}/{}", self.language, self.case)
    }
}

/// A cell's key across two runs: its language and its row's name.
fn key(trial: &TrialResult) -> (&str, &str) {
    (&trial.language, trial.row.name())
}

/// Compares `now` with `base`, cell by cell.
pub fn compare(base: &Results, now: &Results) -> Base {
    let before: HashMap<_, _> = base.trials.iter().map(|t| (key(t), &t.state)).collect();
    let after: HashMap<_, _> = now.trials.iter().map(|t| (key(t), &t.state)).collect();
    // Two runs that chose their trials otherwise are compared on the cells
    // both ran: a cell only one filter selected is neither new nor gone.
    let same_selection = base.run.filter == now.run.filter;
    let (mut changes, mut unmatched) = (Vec::new(), 0);
    let now_cells = (now.trials.iter()).map(|t| (t, before.get(&key(t)).copied(), Some(&t.state)));
    let gone = base.trials.iter().filter(|t| !after.contains_key(&key(t)));
    for (trial, before, after) in now_cells.chain(gone.map(|t| (t, Some(&t.state), None))) {
        if (before.is_none() || after.is_none()) && !same_selection {
            unmatched += 1;
        } else if before != after {
            changes.push(Change {
                language: trial.language.clone(),
                case: trial.row.name().to_owned(),
                before: before.cloned(),
                after: after.cloned(),
                summary: trial.summary.clone(),
            });
        }
    }
    let shown = |filter: &str| match filter {
        "" => "every trial".to_owned(),
        filter => format!("`{filter}`"),
    };
    let (was, is) = (shown(&base.run.filter), shown(&now.run.filter));
    let note = format!(
        "the base ran {was}, this run {is}: only the cells both ran are compared ({unmatched} \
         left out)"
    );
    Base {
        commit: base.run.commit.clone(),
        changes,
        note: (!same_selection).then_some(note),
    }
}

/// The comparison as the terminal prints it at the end of a run. Every
/// text but the state words comes from a file, the base's (a commit, a
/// filter, a case name, a reason), so each is escaped to one inert line:
/// an escape sequence or a `\r` in it would act on the terminal, a
/// newline would print a line that is not the harness's.
pub fn text(base: &Base) -> String {
    let (note, headline, changes) = base.lines(one_line, "");
    let note = note.map(|note| format!("parity: {note}.\n"));
    let changes: String = changes.iter().map(|c| format!("  {c}\n")).collect();
    format!("{}parity: {headline}\n{changes}", note.unwrap_or_default())
}
