//! Keeping the known-failure lists easy: what a run says each list should
//! gain or lose, and the list `make known-failures LANG=...` writes from
//! the last run's results file.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use super::results::{Results, State, TrialResult, BUILD_FAILED};
use crate::config::{reserved_names, PREFIX};
use crate::judge::known_failures::{self, KnownFailures, PLACEHOLDER};

/// Where one language's list and its run disagree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
/// that agree with their list are left out, and so are the failures of a
/// language that never got ready (its build's fault, not its cases') and
/// of cases not in `table`, the repository's own (a list names no other).
pub fn advice(
    results: &Results,
    lists: &HashMap<String, KnownFailures>,
    table: &HashSet<&str>,
) -> Vec<Advice> {
    let mut advice: Vec<Advice> = Vec::new();
    for entry in &results.trials {
        let listed = lists
            .get(&entry.language)
            .is_some_and(|l| l.contains_key(entry.row.name()));
        let state = entry.state;
        let add = listable(state) && !listed && !not_ready(entry) && ours(entry, table);
        if !add && state != State::StaleKnownFailure {
            continue;
        }
        let at = advice.iter().position(|a| a.language == entry.language);
        let at = at.unwrap_or_else(|| {
            let language = entry.language.clone();
            advice.push(Advice {
                language,
                ..Advice::default()
            });
            advice.len() - 1
        });
        let (name, summary) = (entry.row.name().to_owned(), entry.summary.clone());
        match add {
            true => advice[at].add.push((name, summary.unwrap_or_default())),
            false => advice[at].remove.push(name),
        }
    }
    advice
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

/// Whether `entry` is a trial a list may name: a case of `table`, the
/// repository's own, or a trial kind every language has.
fn ours(entry: &TrialResult, table: &HashSet<&str>) -> bool {
    table.contains(entry.row.name()) || reserved_names().contains(&entry.row.name())
}

/// Whether `entry` says its language never got ready (its build failed,
/// or its toolchain's probe did): no case of it ran, so none is to blame.
fn not_ready(entry: &TrialResult) -> bool {
    entry.state == State::NotRun || entry.fault.as_deref() == Some(BUILD_FAILED)
}

/// What `make known-failures LANG=...` does at `root`: rewrites
/// `language`'s list from `results` and returns what to tell the person.
/// It refuses a run in which the language never got ready, and lists only
/// the cases of the repository's own table (`cases/`), since every run
/// reads the list and a plain run refuses any other name.
pub fn update(root: &Path, language: &str, results: &Results) -> Result<String, String> {
    let mut trials = results.trials.iter().filter(|e| e.language == language);
    if let Some(entry) = trials.find(|e| not_ready(e)) {
        return Err(format!(
            "the last run could not get {language} ready ({}): a failed build or toolchain \
             probe is a fault of the language's setup, not of each case, so no list is written \
             from it; fix that first (make test T={PREFIX}/{language}), then run this again",
            entry.summary.as_deref().unwrap_or(entry.state.id())
        ));
    }
    let table = crate::table::load(&[root.join("cases")]).map_err(|errors| {
        let first = errors.first().map(ToString::to_string).unwrap_or_default();
        format!(
            "the case table has {} problem(s), first: {first}",
            errors.len()
        )
    })?;
    let names: HashSet<&str> = table.iter().map(|c| c.name.as_str()).collect();
    let existing = known_failures::load(root, language, &names, true)?;
    let (list, notes) = rewrite(results, language, &existing, &names);
    let relative = known_failures::path(language);
    let at = relative.display();
    let path = root.join(&relative);
    let mut out = if list == existing && notes.is_empty() {
        format!("{at}: agrees with the last run, unchanged\n")
    } else if list == existing {
        format!("{at}: unchanged\n")
    } else if list.is_empty() && !path.is_symlink() {
        std::fs::remove_file(&path).map_err(|e| format!("{at}: {e}"))?;
        format!("{at}: removed, nothing is known to fail\n")
    } else {
        crate::atomic::write(&path, to_json(&list).as_bytes()).map_err(|e| format!("{at}: {e}"))?;
        format!("{at}: written\n")
    };
    for note in notes {
        let _ = writeln!(out, "  {note}");
    }
    Ok(out)
}

/// `language`'s list rewritten from `results`: existing reasons kept,
/// entries that pass now dropped, failing trials added with
/// [`PLACEHOLDER`] (which the loader refuses, so the list is not usable
/// until a person says why), except cases not in `table` (the repository's
/// own), which are left out. Trials the run did not run keep their
/// entries. Also returns one line per change, for the person.
pub fn rewrite(
    results: &Results,
    language: &str,
    existing: &KnownFailures,
    table: &HashSet<&str>,
) -> (KnownFailures, Vec<String>) {
    let mut list = existing.clone();
    let mut notes = Vec::new();
    for entry in results.trials.iter().filter(|e| e.language == language) {
        let state = entry.state;
        let listed = list.contains_key(entry.row.name());
        if listable(state) && !listed && !ours(entry, table) {
            notes.push(format!(
                "left out \"{}\": not a case of the repository's table (cases/), only of the \
                 run's PARITY_CASES; every run reads the list, and a plain run refuses a name \
                 it does not have",
                entry.row.name()
            ));
        } else if listable(state) && !listed {
            list.insert(entry.row.name().to_owned(), PLACEHOLDER.to_owned());
            notes.push(format!(
                "added \"{}\" ({}): replace the placeholder with why it fails",
                entry.row.name(),
                entry.summary.as_deref().unwrap_or("")
            ));
        } else if listed && matches!(state, State::StaleKnownFailure | State::Pass) {
            list.remove(entry.row.name());
            notes.push(format!("removed \"{}\": it passes now", entry.row.name()));
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
