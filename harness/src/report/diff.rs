//! What changed since a base run: the cells whose state differs between
//! the base's results file and this run's, for the top of the page, the
//! end of the terminal run and the CI summary.

use std::collections::HashMap;
use std::fmt::Write as _;

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
    /// When the base chose its trials otherwise than this run: (the base's
    /// filter, this run's). Then only the cells both runs ran are compared:
    /// a cell one filter left out is neither new nor gone.
    pub filters: Option<(String, String)>,
    /// How many cells only one of the two runs ran, when their filters
    /// differ (not compared, so not changes).
    pub unmatched: usize,
}

impl Base {
    /// The filter note, if the two runs chose their trials differently.
    pub fn filter_note(&self) -> Option<String> {
        let shown = |f: &str| match f {
            "" => "every trial".to_owned(),
            f => format!("`{f}`"),
        };
        self.filters.as_ref().map(|(base, now)| {
            format!(
                "the base ran {}, this run {}: only the cells both ran are compared ({} left out)",
                shown(base),
                shown(now),
                self.unmatched
            )
        })
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
        match (self.before, self.after) {
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
    let before: HashMap<_, _> = base.trials.iter().map(|t| (key(t), t.state)).collect();
    let after: HashMap<_, _> = now.trials.iter().map(|t| (key(t), t.state)).collect();
    // Two runs that chose their trials otherwise are compared on the cells
    // both ran: a cell only one filter selected is neither new nor gone.
    let same_selection = base.run.filter == now.run.filter;
    let mut changes = Vec::new();
    let mut unmatched = 0;
    let mut change = |trial: &TrialResult, before: Option<State>, after: Option<State>| {
        if (before.is_none() || after.is_none()) && !same_selection {
            unmatched += 1;
        } else if before != after {
            changes.push(Change {
                language: trial.language.clone(),
                case: trial.row.name().to_owned(),
                before,
                after,
                summary: trial.summary.clone(),
            });
        }
    };
    for trial in &now.trials {
        change(trial, before.get(&key(trial)).copied(), Some(trial.state));
    }
    for trial in base.trials.iter().filter(|t| !after.contains_key(&key(t))) {
        change(trial, Some(trial.state), None);
    }
    Base {
        commit: base.run.commit.clone(),
        changes,
        filters: (!same_selection).then(|| (base.run.filter.clone(), now.run.filter.clone())),
        unmatched,
    }
}

/// The comparison as the terminal prints it at the end of a run. Every
/// text but the state words comes from a file, the base's (a commit, a
/// filter, a case name, a reason), so each is escaped to one inert line:
/// an escape sequence or a `\r` in it would act on the terminal, a
/// newline would print a line that is not the harness's.
pub fn text(base: &Base) -> String {
    let note = base.filter_note().map_or_else(String::new, |note| {
        format!("parity: {}.\n", one_line(&note))
    });
    let commit = one_line(&base.commit);
    if base.changes.is_empty() {
        return format!("{note}parity: no change since the base (commit {commit}).\n");
    }
    let mut out = format!(
        "{note}parity: changed since the base (commit {commit}): {} cell(s)\n",
        base.changes.len()
    );
    for change in &base.changes {
        let (cell, what) = (one_line(&change.cell()), change.what());
        let summary = change.summary.as_deref().map(one_line);
        let summary = summary.map(|s| format!(": {s}")).unwrap_or_default();
        let _ = writeln!(out, "  {cell}: {what}{summary}");
    }
    out
}
