//! What changed since a base run: the cells whose state differs between
//! the base's results file and this run's, for the top of the page, the
//! end of the terminal run and the CI summary.

use std::collections::HashMap;

use super::results::Results;
use super::State;

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
        let shown = |f: &str| {
            if f.is_empty() {
                "every trial".to_owned()
            } else {
                format!("`{f}`")
            }
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

/// Compares `now` with `base`, cell by cell.
pub fn compare(base: &Results, now: &Results) -> Base {
    let key = |language: &str, case: &str| (language.to_owned(), case.to_owned());
    let before: HashMap<(String, String), &super::results::Entry> = base
        .trials
        .iter()
        .map(|e| (key(&e.language, &e.case), e))
        .collect();
    // Two runs that chose their trials otherwise are compared on the cells
    // both ran: a cell only one filter selected is neither new nor gone.
    let same_selection = base.filter == now.filter;
    let mut seen = std::collections::HashSet::new();
    let mut changes = Vec::new();
    let mut unmatched = 0;
    for entry in &now.trials {
        let k = key(&entry.language, &entry.case);
        let was = before.get(&k).map(|e| e.state());
        seen.insert(k);
        if was.is_none() && !same_selection {
            unmatched += 1;
            continue;
        }
        if was != Some(entry.state()) {
            changes.push(Change {
                language: entry.language.clone(),
                case: entry.case.clone(),
                before: was,
                after: Some(entry.state()),
                summary: entry.summary.clone(),
            });
        }
    }
    for entry in &base.trials {
        if !seen.contains(&key(&entry.language, &entry.case)) {
            if !same_selection {
                unmatched += 1;
                continue;
            }
            changes.push(Change {
                language: entry.language.clone(),
                case: entry.case.clone(),
                before: Some(entry.state()),
                after: None,
                summary: entry.summary.clone(),
            });
        }
    }
    Base {
        commit: base.commit.clone(),
        changes,
        filters: (!same_selection).then(|| (base.filter.clone(), now.filter.clone())),
        unmatched,
    }
}

/// The comparison as the terminal prints it at the end of a run.
pub fn text(base: &Base) -> String {
    let note = base
        .filter_note()
        .map_or_else(String::new, |note| format!("parity: {note}.\n"));
    if base.changes.is_empty() {
        return format!(
            "{note}parity: no change since the base (commit {}).\n",
            base.commit
        );
    }
    let mut out = format!(
        "{note}parity: changed since the base (commit {}): {} cell(s)\n",
        base.commit,
        base.changes.len()
    );
    for change in &base.changes {
        out.push_str(&format!("  {}: {}", change.cell(), change.what()));
        if let Some(summary) = &change.summary {
            out.push_str(&format!(": {summary}"));
        }
        out.push('\n');
    }
    out
}
