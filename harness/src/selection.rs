//! Whether a run checked what it was asked to: a filter that matches no
//! trial says so (naming what exists), and in strict mode a run that ran
//! no trial, or fewer than it selected, is not a pass.

use libtest_mimic::{Arguments, Trial};

use crate::config::{is_selected, Kind, PREFIX};
use crate::suite::Suite;

/// How many of `trials` the arguments select (not filtered out, not
/// skipped, not ignored by a flag): what the run must run.
pub fn selected(args: &Arguments, trials: &[Trial]) -> usize {
    trials.iter().filter(|t| is_selected(args, t)).count()
}

/// When the arguments select no trial: a line naming the filter and what
/// exists (languages, the trials of each), in any mode, `--list` included.
pub fn unmatched(args: &Arguments, suite: &Suite, selected: usize) -> Option<String> {
    if selected > 0 {
        return None;
    }
    let asked = match crate::config::arguments(args) {
        words if words.is_empty() => "the arguments".to_owned(),
        words => format!("the arguments `{words}`"),
    };
    let languages: Vec<&str> = suite.ports.iter().map(|p| p.name.as_str()).collect();
    let cases: Vec<&str> = suite.cases.iter().map(|c| c.name.as_str()).collect();
    let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
    Some(format!(
        "{asked} match no trial. Trials are named {PREFIX}/<language>/<trial>; the languages are {}; \
         the trials of each are {} and one per case ({}: {}). `--list` shows them all.",
        languages.join(", "),
        kinds.join(", "),
        cases.len(),
        cases.join(", ")
    ))
}

/// In strict mode, why a run that ran `ran` of its `selected` trials is
/// not a pass: it ran none, or fewer than it selected.
pub fn shortfall(strict: bool, selected: usize, ran: usize) -> Option<String> {
    let executed = match ran {
        0 => "no trial, so it checked nothing".to_owned(),
        ran if ran < selected => format!("{ran} of the {selected} trials it selected"),
        _ => return None,
    };
    strict.then(|| format!("PARITY_STRICT=1: the run executed {executed}: not a pass"))
}
