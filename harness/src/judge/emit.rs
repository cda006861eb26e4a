//! Where a verdict becomes text ([`text`], [`summary`]), once, for the
//! terminal as a trial ends and for the run's record, from which every
//! other output is drawn; a [`Reason::Wrong`] comes worded by its judge.

use std::fmt::Write as _;

use libtest_mimic::{Completion, Failed};

use super::{Reason, Verdict};
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
        Verdict::KnownFailure(why) => {
            Ok(Completion::ignored_with(for_terminal(&known_failure(why))))
        }
    }
}

/// A known failure's one line, as every output shows it.
pub fn known_failure(why: &str) -> String {
    format!("known failure: {why}")
}

/// A reason's full text: the case, what happened, and the details (the
/// fields that differ, the runner's stderr tail, ...).
pub fn text(reason: &Reason) -> String {
    match reason {
        Reason::Mismatch { case, differences } => format!("{case}\n{differences}"),
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
        Reason::Wrong(why) | Reason::Reference(why) | Reason::Harness(why) => why.clone(),
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
        Reason::Mismatch { case, .. } => {
            format!("`{}`: the result differs from expect", case.name)
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
        Reason::Wrong(_) | Reason::Runner { .. } | Reason::Reference(_) | Reason::Harness(_) => {
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
        let _ = write!(
            text,
            "\n\nThis trial's own failure:\n{}",
            self::text(reason)
        );
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
    }
}
