//! Where a verdict becomes text ([`text`], [`summary`]), once, for the
//! terminal as a trial ends and for the run's record, from which every
//! other output is drawn; a [`Reason::Wrong`] comes worded by its judge.

use std::fmt::Write as _;

use libtest_mimic::{Completion, Failed};
use serde_json::Value;

use super::compare::Difference;
use super::{Reason, Unsupported, Verdict};
use crate::fault::Fault;
use crate::text::{excerpt, first_line, for_terminal};
use crate::toolchain::NotReady;

/// What libtest-mimic prints for a trial: what a runner printed reaches the
/// terminal, so nothing in it may act (see [`for_terminal`]). The other
/// outputs are drawn from the run's record (`report::results`), whose
/// reasons are worded here too.
pub fn terminal(verdict: &Verdict) -> Result<Completion, Failed> {
    match verdict {
        Verdict::Pass => Ok(Completion::Completed),
        Verdict::Fail(reason) => Err(for_terminal(&text(reason)).into()),
        Verdict::Ignore(why) => Ok(Completion::ignored_with(for_terminal(why))),
        // A known failure's line, or why a case is unsupported.
        other => Ok(Completion::ignored_with(for_terminal(&in_brief(other)))),
    }
}

/// Why a case was not run on a port: the language, the case and the
/// feature, and where the port would declare it.
pub fn unsupported_text(why: &Unsupported) -> String {
    let (language, case, feature) = (&why.language, &why.case, &why.feature);
    format!(
        "unsupported: case `{case}` uses the feature `{feature}`, which {language} does not \
         support (runners/{language}/language.toml lists none such in `features`)"
    )
}

/// A known failure's one line, as every output shows it.
pub fn known_failure(why: &str) -> String {
    format!("known failure: {why}")
}

/// A reason's full text: the case, what happened, and the details (the
/// fields that differ, the runner's stderr tail, ...).
pub fn text(reason: &Reason) -> String {
    match reason {
        Reason::Mismatch { case, differences } => {
            format!("{case}\n{}", self::differences(differences))
        }
        Reason::ErrorAnswer {
            case,
            language,
            error,
        } => format!("{case}\nthe {language} runner answered with an error: {error}"),
        Reason::Fault { case, fault } => format!("{case}\n{fault}"),
        Reason::NotReady(why @ NotReady::Missing { .. }) => {
            format!("{why} (PARITY_STRICT=1 makes this a failure)")
        }
        Reason::NotReady(why) => why.to_string(),
        Reason::Runner { fault, own } => runner_text(fault, own),
        Reason::Wrong(why) | Reason::Harness(why) => why.clone(),
        Reason::Unsupported(unsupported) => format!(
            "{}; PARITY_STRICT=1 makes an unsupported case a failure",
            unsupported_text(unsupported)
        ),
        Reason::StaleKnownFailure {
            trial,
            language,
            reason,
        } => format!(
            "`{trial}` is listed as a known failure of {language} ({reason}) but passes now: \
             remove it from {}",
            super::known_failures::path(language).display()
        ),
    }
}

/// One line saying what kind of failure a reason is, for a report's
/// summary column (JUnit's `message`, the page's cell, the CI summary).
pub fn summary(reason: &Reason) -> String {
    match reason {
        Reason::Mismatch { case, differences } => {
            let paths: Vec<String> = differences.iter().map(Difference::path).collect();
            let at = excerpt(&paths.join(", "), 100);
            format!("`{}`: the result differs from expect at {at}", case.name)
        }
        Reason::ErrorAnswer { case, .. } => {
            format!("`{}`: the runner answered with an error", case.name)
        }
        Reason::Fault { case, fault } => format!(
            "`{}`: runner fault: {}",
            case.name,
            excerpt(first_line(&fault.to_string()), 200)
        ),
        Reason::NotReady(NotReady::Missing { language, .. }) => {
            format!("the {language} toolchain is missing")
        }
        Reason::NotReady(NotReady::BuildFailed { language, .. }) => {
            format!("building {language} failed")
        }
        Reason::StaleKnownFailure { trial, .. } => {
            format!("known failure `{trial}` passes now")
        }
        // These say what kind they are in their first line.
        Reason::Wrong(_) | Reason::Runner { .. } | Reason::Harness(_) | Reason::Unsupported(_) => {
            excerpt(first_line(&text(reason)), 200)
        }
    }
}

fn runner_text(fault: &Fault, own: &Verdict) -> String {
    let mut text = format!(
        "{} faulted after its last answer: the runner's fault, not this trial's, which carries \
         it as a part of the runner's stream (on its own: {}).\n{fault}",
        fault.runner,
        in_brief(own)
    );
    if let Verdict::Fail(reason) = own {
        text += &format!("\n\nThis trial's own failure:\n{}", self::text(reason));
    }
    text
}

/// A verdict in a few words, as a list of verdicts shows it.
pub fn in_brief(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Pass => "pass".to_owned(),
        Verdict::Fail(reason) => format!("fail: {}", summary(reason)),
        Verdict::Ignore(why) => format!("ignored: {why}"),
        Verdict::KnownFailure(why) => known_failure(why),
        Verdict::Unsupported(unsupported) => unsupported_text(unsupported),
    }
}

/// The fields that differ, a few lines each: a list's first item that
/// differs with a window of both lists around it, a value with both
/// values, a field one side lacks with the other's.
pub fn differences(differences: &[Difference]) -> String {
    let mut text = String::new();
    for difference in differences {
        let field = &difference.field;
        let _ = match (&difference.first, sides(difference)) {
            (Some((at, word)), [Some(e), Some(a)]) => writeln!(
                text,
                "{field}: first differs at {word} {} ({field}[{at}])\n  expected: {e}\n  actual:   {a}",
                at + 1
            ),
            (_, [Some(e), Some(a)]) => writeln!(text, "{field}: expected {e}, actual {a}"),
            (_, [Some(e), None]) => writeln!(text, "{field}: expected {e}, absent from the answer"),
            (_, [None, a]) => writeln!(text, "{field}: not expected, answered {}", a.unwrap_or_default()),
        };
    }
    text
}

/// Each side of a difference as messages show it: a list's window around
/// its first difference, else the value, cut to a bound; `None` for a side
/// without the field.
fn sides(difference: &Difference) -> [Option<String>; 2] {
    let show = |value: &Value| match (&difference.first, value) {
        (Some((at, _)), Value::Array(items)) => window(items, *at),
        (_, value) => excerpt(&one_value(value), 300),
    };
    [&difference.expected, &difference.actual].map(|side| side.as_ref().map(show))
}

/// An answer's fields in one line, as a list of replies shows them:
/// `sent [[2], [1, 3]], journal ["order-1 OrderPlaced"], duplicates 0`.
pub fn fields(fields: &crate::contract::Fields) -> String {
    let field = |(name, value): (&String, &Value)| format!("{name} {}", one_value(value));
    fields.iter().map(field).collect::<Vec<_>>().join(", ")
}

/// A value as messages show it: JSON, with a space after each comma of a
/// list, as people write one.
fn one_value(value: &Value) -> String {
    match value {
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(one_value).collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

/// The list around index `at`, short enough to read when the list is long
/// (or an item is): an item a runner made huge is cut, as a message quotes
/// runner text within a bound.
fn window(items: &[Value], at: usize) -> String {
    const CONTEXT: usize = 3;
    let start = at.saturating_sub(CONTEXT);
    let end = (at + CONTEXT + 1).min(items.len());
    let item = |item| excerpt(&one_value(item), 300);
    let shown = items.get(start..end).unwrap_or_default();
    let mut shown: Vec<String> = shown.iter().map(item).collect();
    if start == 0 && end >= items.len() {
        return format!("[{}]", shown.join(", "));
    }
    if start > 0 {
        shown.insert(0, "…".to_owned());
    }
    if end < items.len() {
        shown.push("…".to_owned());
    }
    format!("[{}] ({} in all)", shown.join(", "), items.len())
}
