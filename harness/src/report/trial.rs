//! A trial's identity and its result as the suite hands them over: typed
//! data, made where the trial is made, so nothing downstream parses a
//! trial's name back into its language and case.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::config::{trial_name, Kind, LanguageId};
use crate::judge::Verdict;

/// Which trial: a language's case of the table, or its trial of a kind.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TrialId {
    /// The language, e.g. `go`.
    pub language: LanguageId,
    /// The case or the kind: the report's row.
    pub row: RowId,
}

/// A row of the report: a case of the table, or a trial kind every
/// language has. The results file writes it as two fields, `kind` (`case`
/// or the kind's name) and `case` (the case's or the kind's name), which
/// tools outside the harness read.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "RowFields", from = "RowFields")]
pub enum RowId {
    /// The case of this name.
    Case(String),
    /// The trial of this kind.
    Kind(Kind),
}

/// [`RowId`] as the results file's fields.
#[derive(Serialize, Deserialize)]
struct RowFields {
    kind: String,
    case: String,
}

impl From<RowId> for RowFields {
    fn from(row: RowId) -> RowFields {
        let kind = match &row {
            RowId::Case(_) => "case",
            RowId::Kind(kind) => kind.name(),
        };
        RowFields {
            kind: kind.to_owned(),
            case: row.name().to_owned(),
        }
    }
}

impl From<RowFields> for RowId {
    /// A kind this harness does not know (a newer one's) reads as a case of
    /// that name: a base's row is compared by its name alone.
    fn from(RowFields { kind, case }: RowFields) -> RowId {
        RowId::named(&kind, &case)
    }
}

impl RowId {
    /// The row of the kind named `kind`, else the case `case`.
    pub fn named(kind: &str, case: &str) -> RowId {
        let kind = Kind::ALL.into_iter().find(|k| k.name() == kind);
        kind.map_or_else(|| RowId::Case(case.to_owned()), RowId::Kind)
    }

    /// The case's name, or the kind's.
    pub fn name(&self) -> &str {
        match self {
            RowId::Case(name) => name,
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

/// One trial's result, as it finished: what the suite hands the report,
/// which turns it into its record ([`super::results::TrialResult`]) once.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// Which trial.
    pub id: TrialId,
    /// How it ended.
    pub verdict: Verdict,
    /// How long the trial waited and judged.
    pub time: Duration,
}
