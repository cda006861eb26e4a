//! Checking a case file against every rule of the case format (SPEC.md,
//! "Case file format") and turning it into [`Case`]s.
//!
//! Files are read into the strict [`Json`] tree first, so repeated keys,
//! `1.0` for an integer and lone surrogates are refused before any rule;
//! then each case through serde into the model's [`CaseSpec`] ([`de`]),
//! which knows the fields; then the rules, on the typed case.

use std::path::Path;

use outbox_cases::{CaseFile, CaseSpec};
use serde::de::IgnoredAny;

use super::checker::{get, Checker};
use super::de;
use super::json::Json;
use super::problems::{Numbers, Problem, Required};
use super::{
    is_valid_name, Case, CaseError, Draft, Outcome, Row, MAX_ID, MAX_NAME_CHARS, MAX_PASSES,
};
use crate::config::RESERVED_NAMES;

/// The cases of one file's text; what is wrong goes to `errors`.
pub fn parse_file(file: &Path, text: &str, errors: &mut Vec<CaseError>) -> Vec<Case> {
    parse_cases(file, text, errors, ExpectRule::Required)
        .into_iter()
        .map(|draft| draft.case)
        .collect()
}

/// Like [`parse_file`], for `make bless`: a case may lack `expect`.
pub fn parse_drafts(file: &Path, text: &str, errors: &mut Vec<CaseError>) -> Vec<Draft> {
    parse_cases(file, text, errors, ExpectRule::Optional)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ExpectRule {
    Required,
    Optional,
}

fn parse_cases(
    file: &Path,
    text: &str,
    errors: &mut Vec<CaseError>,
    rule: ExpectRule,
) -> Vec<Draft> {
    if text.starts_with('\u{feff}') {
        // serde_json would say "expected value at line 1 column 1", and an
        // editor does not show the mark: name it.
        errors.push(CaseError::file(
            file,
            "starts with a UTF-8 byte order mark: save it without one".into(),
        ));
        return Vec::new();
    }
    let root = match Json::parse_for_people(text) {
        Ok(root) => root,
        Err(e) => {
            errors.push(CaseError::file(file, format!("not valid JSON: {e}")));
            return Vec::new();
        }
    };
    let mut check = Checker {
        file,
        case: None,
        errors,
    };
    // The file's own fields first, each case left unread: a case's
    // problems are its own, named with its name.
    let mut required = Required::new();
    let (_, problems) = de::read::<CaseFile<IgnoredAny>>(&root, &CaseNumbers, &mut required);
    // A bad `$schema` is no reason not to read the cases as well.
    let readable = problems.iter().all(|(at, _)| at == "$schema");
    check.report(problems);
    if !readable {
        return Vec::new();
    }
    let items = match &root {
        Json::Object(fields) => match get(fields, "cases") {
            Some(Json::Array(items)) => items.as_slice(),
            _ => &[],
        },
        _ => &[],
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(index, item)| parse_case(&mut check, &mut required, index, item, rule))
        .collect()
}

/// One case: read into the model (every problem of its fields' shapes
/// found at once), then the rules on what was read. A rule runs when the
/// fields it needs were read without a problem, so it does not report
/// what a zero in the place of a bad value would break.
fn parse_case(
    check: &mut Checker<'_>,
    required: &mut Required,
    index: usize,
    item: &Json,
    rule: ExpectRule,
) -> Option<Draft> {
    check.case = Some(format!("#{} (cases[{index}])", index + 1));
    let before = check.errors.len();
    let (spec, problems) = de::read::<CaseSpec>(item, &CaseNumbers, required);
    let clean = |field: &str| !problems.iter().any(|(at, _)| within(at, field));
    let [name_ok, description_ok, messages_ok, passes_ok] =
        ["name", "description", "messages", "passes"].map(clean);
    // A case that is no object has no fields to miss: `make bless` would
    // not help it.
    let is_object = matches!(item, Json::Object(_));
    // A bad list in `expect.sent` reads as an empty one: the count of lists
    // is still the file's.
    let lists_ok = !problems
        .iter()
        .any(|(at, _)| ["", "expect", "expect.sent"].contains(&at.as_str()));
    let Some(spec) = spec else {
        check.report(problems);
        return None;
    };
    if name_ok {
        check.name(&spec.name);
    }
    check.report(problems);
    if spec.expect.is_none() && rule == ExpectRule::Required && is_object {
        check.fail(
            "expect",
            "required field is missing: run `make bless` to compute it from the Rust reference, then review \
             the diff"
                .into(),
        );
    }
    if description_ok {
        check.description(&spec.description);
    }
    if messages_ok {
        check.ids_increase(&spec.messages);
    }
    if messages_ok && passes_ok {
        check.written_after(&spec.messages, spec.passes);
    }
    if let (Some(expect), true, true) = (&spec.expect, lists_ok, passes_ok) {
        check.one_list_per_pass(expect, spec.passes);
    }
    if check.errors.len() > before {
        return None;
    }
    let has_expect = spec.expect.is_some();
    let (name, description, scenario, expect) = spec.into_parts();
    let case = Case {
        file: check.file.to_path_buf(),
        name,
        description,
        scenario,
        expect: expect.unwrap_or_default(),
    };
    Some(Draft { case, has_expect })
}

/// Whether a problem at `at` is about `field` (itself, or a part of it);
/// a problem with the whole case is about every field.
fn within(at: &str, field: &str) -> bool {
    at.is_empty()
        || at
            .strip_prefix(field)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
}

/// The case format's ranges and keys (SPEC.md, "Case file format"): every
/// id and attempt number from 1 to [`MAX_ID`], passes up to
/// [`MAX_PASSES`], any other count from 0 to [`MAX_ID`].
struct CaseNumbers;

impl Numbers for CaseNumbers {
    fn range(&self, field: &str) -> (u64, u64) {
        let is = |shape: &str| shaped(field, shape);
        if is("batch_size") || is("messages[].id") || is("expect.sent[][]") {
            (1, MAX_ID)
        } else if is("passes") || is("messages[].written_after_pass") {
            (0, MAX_PASSES)
        } else {
            (0, MAX_ID)
        }
    }

    fn key(&self, _field: &str, key: &str) -> Result<u64, String> {
        parse_attempt(key).ok_or_else(|| {
            format!(
                "{key:?} is not an attempt number: write a decimal from 1 to {MAX_ID} \
                 without sign, leading zero or spaces"
            )
        })
    }
}

/// Whether a field's path is `shape` once its indices are left out
/// (`messages[3].id` is `messages[].id`), without building a string for
/// each of a large file's numbers.
fn shaped(field: &str, shape: &str) -> bool {
    let mut in_index = false;
    let kept = field.bytes().filter(|&b| {
        let keep = !in_index || b == b']';
        in_index = (in_index || b == b'[') && b != b']';
        keep
    });
    kept.eq(shape.bytes())
}

impl Checker<'_> {
    /// What [`de::read`] found, each under the case being read.
    fn report(&mut self, problems: Vec<Problem>) {
        for (field, problem) in problems {
            self.fail(&field, problem);
        }
    }

    /// The name's rules; a good name names the case in later messages.
    fn name(&mut self, name: &str) {
        if name.chars().count() > MAX_NAME_CHARS {
            self.fail(
                "name",
                format!(
                    "is {} characters long, over the limit of {MAX_NAME_CHARS}: shorten it",
                    name.chars().count()
                ),
            );
        } else if RESERVED_NAMES.contains(&name) {
            self.fail(
                "name",
                format!("{name:?} is reserved for a trial of each language: pick another name"),
            );
        } else if is_valid_name(name) {
            self.case = Some(format!("`{name}`"));
        } else {
            self.fail(
                "name",
                format!("{name:?} is not a valid name: use lowercase letters, digits and `_` only"),
            );
        }
    }

    fn description(&mut self, description: &str) {
        if description.trim().is_empty() {
            self.fail(
                "description",
                "must say what the case shows, not be empty".into(),
            );
        }
        if description.contains("TODO") {
            self.fail(
                "description",
                "still holds the template's TODO: say what the case shows".into(),
            );
        }
    }

    fn ids_increase(&mut self, messages: &[Row]) {
        for (i, pair) in messages.windows(2).enumerate() {
            let (last, id) = (pair[0].id, pair[1].id);
            if id <= last {
                self.fail(
                    &format!("messages[{}].id", i + 1),
                    format!(
                        "{id} is not greater than the previous id {last}: ids must strictly increase"
                    ),
                );
            }
        }
    }

    /// Rows are written at pass boundaries that exist and never go back in
    /// time, so ids still increase in the order rows are written.
    fn written_after(&mut self, messages: &[Row], passes: u64) {
        let mut previous = 0;
        for (i, row) in messages.iter().enumerate() {
            let field = format!("messages[{i}].written_after_pass");
            let pass = row.written_after_pass;
            if pass > passes {
                self.fail(
                    &field,
                    format!(
                        "{pass} is after the last pass ({passes}): a row is written after pass 0 (before \
                         the first) to {passes} (after the last)"
                    ),
                );
            } else if pass < previous {
                self.fail(
                    &field,
                    format!(
                        "{pass} is before the previous row's {previous}: rows are written in id order, so \
                         written_after_pass never decreases along `messages`"
                    ),
                );
            }
            previous = previous.max(pass);
        }
    }

    fn one_list_per_pass(&mut self, expect: &Outcome, passes: u64) {
        if expect.sent.len() as u64 != passes {
            self.fail(
                "expect.sent",
                format!(
                    "has {} lists but passes is {passes}: write one list per pass (`[]` for a pass that sends nothing)",
                    expect.sent.len()
                ),
            );
        }
    }
}

/// A failure key: a canonical decimal attempt number from 1 to 2^53-1.
fn parse_attempt(key: &str) -> Option<u64> {
    let canonical = !key.is_empty()
        && key.len() <= 16
        && key.bytes().all(|b| b.is_ascii_digit())
        && !key.starts_with('0');
    canonical
        .then(|| key.parse::<u64>().ok())
        .flatten()
        .filter(|n| (1..=MAX_ID).contains(n))
}

#[cfg(test)]
mod tests {
    use super::shaped;

    #[test]
    fn a_shape_leaves_out_indices_only() {
        assert!(shaped("messages[12].id", "messages[].id"));
        assert!(shaped("expect.sent[0][3]", "expect.sent[][]"));
        assert!(shaped("passes", "passes"));
        assert!(!shaped("messages[1].idx", "messages[].id"));
        assert!(!shaped("messages.id", "messages[].id"));
    }
}
