//! Keeping the known-failure lists easy: what a run says each list should
//! gain or lose, and the list `make known-failures LANG=...` writes from
//! the last run's results file.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::results::Results;
use super::State;
use crate::judge::known_failures::{self, KnownFailures, PLACEHOLDER};

/// Where one language's list and its run disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Advice {
    /// The language.
    pub language: String,
    /// Failing trials the list lacks, with their one-line reasons.
    pub add: Vec<(String, String)>,
    /// Listed trials that pass now.
    pub remove: Vec<String>,
}

/// Whether a failure belongs on a port's list: its answer is wrong or its
/// runner faults. A missing toolchain or the harness's own fault is not the
/// port's, and a stale entry is the list's.
fn listable(state: State) -> bool {
    matches!(state, State::WrongAnswer | State::RunnerFault)
}

/// Per language, what the run says its list should gain or lose; languages
/// that agree with their list are left out.
pub fn advice(results: &Results, lists: &HashMap<String, KnownFailures>) -> Vec<Advice> {
    let mut order: Vec<&str> = Vec::new();
    let mut by_language: HashMap<&str, Advice> = HashMap::new();
    for entry in &results.trials {
        let listed = lists
            .get(&entry.language)
            .is_some_and(|l| l.contains_key(&entry.case));
        let state = entry.state();
        let add = listable(state) && !listed;
        let remove = state == State::StaleKnownFailure;
        if !add && !remove {
            continue;
        }
        let advice = by_language.entry(&entry.language).or_insert_with(|| {
            order.push(&entry.language);
            Advice {
                language: entry.language.clone(),
                add: Vec::new(),
                remove: Vec::new(),
            }
        });
        if add {
            let summary = entry.summary.clone().unwrap_or_default();
            advice.add.push((entry.case.clone(), summary));
        } else {
            advice.remove.push(entry.case.clone());
        }
    }
    order
        .into_iter()
        .filter_map(|language| by_language.remove(language))
        .collect()
}

/// The advice as the terminal prints it at the end of a run.
pub fn text(advice: &[Advice]) -> String {
    let mut out = String::new();
    for a in advice {
        let list = known_failures::path(&a.language);
        let _ = writeln!(
            out,
            "parity: {} and this run disagree (make known-failures LANG={} rewrites it):",
            list.display(),
            a.language
        );
        for (case, summary) in &a.add {
            let _ = writeln!(out, "  add    \"{case}\": why it fails ({summary})");
        }
        for case in &a.remove {
            let _ = writeln!(out, "  remove \"{case}\": it passes now");
        }
    }
    out
}

/// `language`'s list rewritten from `results`: existing reasons kept,
/// entries that pass now dropped, failing trials added with
/// [`PLACEHOLDER`] (which the loader refuses, so the list is not usable
/// until a person says why). Trials the run did not run keep their entries.
/// Also returns one line per change, for the person.
pub fn rewrite(
    results: &Results,
    language: &str,
    existing: &KnownFailures,
) -> (KnownFailures, Vec<String>) {
    let mut list = existing.clone();
    let mut notes = Vec::new();
    for entry in results.trials.iter().filter(|e| e.language == language) {
        let state = entry.state();
        let listed = list.contains_key(&entry.case);
        if listable(state) && !listed {
            list.insert(entry.case.clone(), PLACEHOLDER.to_owned());
            notes.push(format!(
                "added \"{}\" ({}): replace the placeholder with why it fails",
                entry.case,
                entry.summary.as_deref().unwrap_or("")
            ));
        } else if listed && matches!(state, State::StaleKnownFailure | State::Pass) {
            list.remove(&entry.case);
            notes.push(format!("removed \"{}\": it passes now", entry.case));
        }
    }
    (list, notes)
}

/// The list as its file holds it: one entry a line, in name order.
pub fn to_json(list: &KnownFailures) -> String {
    let mut text = serde_json::to_string_pretty(list).expect("strings serialize");
    text.push('\n');
    text
}
