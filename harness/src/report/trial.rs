//! A trial's identity and its result as the suite hands them over: typed
//! data, made where the trial is made, so nothing downstream parses a
//! trial's name back into its language and case.

use std::time::Duration;

use crate::config::{trial_name, Kind};
use crate::judge::Verdict;

/// The `fault` of every trial of a language whose build step failed: no
/// runner ran, so no case is to blame.
pub const BUILD_FAILED: &str = "build_failed";

/// Which trial: a language's case of the table, or its trial of a kind.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TrialId {
    /// The language, e.g. `go`.
    pub language: String,
    /// The case or the kind: the report's row.
    pub row: RowId,
}

/// A row of the report: a case of the table, or a trial kind every
/// language has.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RowId {
    /// The case of this name.
    Case(String),
    /// The trial of this kind.
    Kind(Kind),
}

impl RowId {
    /// The case's name, or the kind's.
    pub fn name(&self) -> &str {
        match self {
            RowId::Case(name) => name,
            RowId::Kind(kind) => kind.name(),
        }
    }

    /// What the results file calls it: `case`, or the kind's name.
    pub fn kind(&self) -> &'static str {
        match self {
            RowId::Case(_) => "case",
            RowId::Kind(kind) => kind.name(),
        }
    }
}

impl TrialId {
    /// The trial's full name, as libtest lists it.
    pub fn name(&self) -> String {
        trial_name(&self.language, self.row.name())
    }
}

/// One trial's result, as it finished.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// Which trial.
    pub id: TrialId,
    /// How it ended.
    pub verdict: Verdict,
    /// How long the trial waited and judged.
    pub time: Duration,
}

impl Recorded {
    /// The fault that failed the trial, if one did: the runner's fault's
    /// kind ([`crate::fault::FaultKind::id`]) and the log it kept, or a
    /// failed build ([`BUILD_FAILED`]), the language's fault and not its
    /// cases', which `make known-failures` must tell from theirs.
    pub fn fault(&self) -> Option<(&'static str, Option<String>)> {
        let Verdict::Fail(reason) = &self.verdict else {
            return None;
        };
        if reason.is_build_failure() {
            return Some((BUILD_FAILED, None));
        }
        let fault = reason.fault()?;
        Some((fault.id(), fault.log().map(|log| log.display().to_string())))
    }
}
