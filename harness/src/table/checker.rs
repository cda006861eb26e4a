//! Recording what is wrong with a case file (file, case, field) instead of
//! stopping at the first problem, and the small helpers the schema's
//! problems ([`super::problems`]) and the rules ([`super::validate`]) share.

use std::path::Path;

use super::{CaseError, MAX_ID};

/// A field's path: `prefix.field`, or `field` at the top.
pub(super) fn join(prefix: &str, field: &str) -> String {
    if prefix.is_empty() {
        field.to_owned()
    } else {
        format!("{prefix}.{field}")
    }
}

/// Records the problems of one file, each under the case being checked.
pub(super) struct Checker<'a> {
    pub(super) file: &'a Path,
    pub(super) case: Option<String>,
    pub(super) errors: &'a mut Vec<CaseError>,
}

impl Checker<'_> {
    /// Records a problem with `field` (`""`: the case, or the file, itself).
    pub(super) fn fail(&mut self, field: impl Into<String>, problem: String) {
        let field: String = field.into();
        self.errors.push(CaseError {
            file: self.file.to_path_buf(),
            case: self.case.clone(),
            field: (!field.is_empty()).then_some(field),
            problem,
        });
    }
}

/// What is wrong with a failure key that is no attempt number.
pub(super) fn not_an_attempt(key: &str) -> String {
    format!(
        "{key:?} is not an attempt number: write a decimal from 1 to {MAX_ID} without sign, leading \
         zero or spaces"
    )
}

/// A float as a message shows it: whole digits where they are exact.
pub(super) fn plain(x: f64) -> String {
    if x.abs() < 1e21 {
        format!("{x:.0}")
    } else {
        format!("{x:e}")
    }
}
