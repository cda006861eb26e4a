//! Keeping the known-failure lists easy: what a run says each list should
//! gain or lose, and the list `make known-failures LANG=...` writes from
//! the last run's results file.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use super::results::{Results, State, TrialResult, BUILD_FAILED};
use crate::config::{reserved_names, PREFIX};
use crate::judge::known_failures::{self, KnownFailures, PLACEHOLDER};

/// What a run asks of a trial's entry in its language's list.
enum Edit {
    Add,
    Remove,
    /// A failure a list may not name: not a case of the repository's table.
    LeftOut,
}

/// The trials of `language` whose entries in its `list` the run says to
/// edit. A port's failure (a wrong answer or a runner fault; a missing
/// toolchain or the harness's own fault is not the port's, and a language
/// that never got ready is its build's fault, not its cases') the list
/// lacks is added, unless it is not a case of `table`, the repository's
/// own, or a trial kind every language has (a list names no other); a
/// listed trial that passes now is removed.
fn edits<'a>(
    results: &'a Results,
    language: &'a str,
    list: &'a KnownFailures,
    table: &'a HashSet<&str>,
) -> impl Iterator<Item = (Edit, &'a TrialResult)> + 'a {
    let trials = (results.trials.iter()).filter(move |t| t.language == language);
    trials.filter_map(move |entry| {
        let (name, state) = (entry.row.name(), &entry.state);
        let listed = list.contains_key(name);
        let failed = matches!(state, State::WrongAnswer | State::RunnerFault);
        let edit = if failed && !listed && !not_ready(entry) {
            match table.contains(name) || reserved_names().contains(&name) {
                true => Edit::Add,
                false => Edit::LeftOut,
            }
        } else if listed && matches!(state, State::StaleKnownFailure | State::Pass) {
            Edit::Remove
        } else {
            return None;
        };
        Some((edit, entry))
    })
}

/// What the run says each language's list (of `lists`) should gain or
/// lose, as the terminal prints it at the end of a run; a language that
/// agrees with its list is left out, and so is a case not in `table`.
pub fn advice(
    results: &Results,
    lists: &HashMap<String, KnownFailures>,
    table: &HashSet<&str>,
) -> String {
    let (mut out, none) = (String::new(), KnownFailures::default());
    for language in results.run.languages() {
        let list = lists.get(language).unwrap_or(&none);
        let mut lines = String::new();
        for (edit, entry) in edits(results, language, list, table) {
            let (case, summary) = (
                entry.row.name(),
                entry.summary.as_deref().unwrap_or_default(),
            );
            let _ = match edit {
                Edit::Add => writeln!(lines, "  add    \"{case}\": why it fails ({summary})"),
                Edit::Remove => writeln!(lines, "  remove \"{case}\": it passes now"),
                Edit::LeftOut => Ok(()),
            };
        }
        if !lines.is_empty() {
            let _ = write!(
                out,
                "parity: {} and this run disagree (make known-failures LANG={language} rewrites \
                 it):\n{lines}",
                known_failures::path(language).display(),
            );
        }
    }
    out
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
        let count = errors.len();
        format!("the case table has {count} problem(s), first: {first}")
    })?;
    let names: HashSet<&str> = table.iter().map(|c| c.name.as_str()).collect();
    let existing = known_failures::load(root, language, &names, true)?;
    let (list, notes) = rewrite(results, language, &existing, &names);
    let relative = known_failures::path(language);
    let at = relative.display();
    let path = root.join(&relative);
    // A list left unchanged may still have its notes: cases left out.
    let mut out = if list == existing {
        format!("{at}: unchanged\n")
    } else if list.is_empty() && !path.is_symlink() {
        std::fs::remove_file(&path).map_err(|e| format!("{at}: {e}"))?;
        format!("{at}: removed, nothing is known to fail\n")
    } else {
        // One entry a line, in name order.
        super::write_json(&path, &list).map_err(|e| e.to_string())?;
        format!("{at}: written\n")
    };
    for note in notes {
        let _ = writeln!(out, "  {note}");
    }
    Ok(out)
}

/// `language`'s list rewritten from `results` as [`edits`] says:
/// existing reasons kept, a failing trial added with [`PLACEHOLDER`] (which
/// the loader refuses, so the list is not usable until a person says why).
/// Trials the run did not run keep their entries. Also returns one line
/// per change, for the person.
pub fn rewrite(
    results: &Results,
    language: &str,
    existing: &KnownFailures,
    table: &HashSet<&str>,
) -> (KnownFailures, Vec<String>) {
    let mut list = existing.clone();
    let notes = edits(results, language, existing, table).map(|(edit, entry)| {
        let name = entry.row.name();
        match edit {
            Edit::LeftOut => format!(
                "left out \"{name}\": not a case of the repository's table (cases/), only of the \
                 run's PARITY_CASES; every run reads the list, and a plain run refuses a name it \
                 does not have"
            ),
            Edit::Add => {
                list.insert(name.to_owned(), PLACEHOLDER.to_owned());
                let summary = entry.summary.as_deref().unwrap_or("");
                format!("added \"{name}\" ({summary}): replace the placeholder with why it fails")
            }
            Edit::Remove => {
                list.remove(name);
                format!("removed \"{name}\": it passes now")
            }
        }
    });
    let notes = notes.collect();
    (list, notes)
}
