//! Checking a case file against every rule of the case format (SPEC.md,
//! "Case file format") and turning it into [`Case`]s.
//!
//! A file is read strictly first ([`json::parse_value`]: no byte order
//! mark, no repeated key, no lone surrogate); then checked against
//! `cases/schema.json` ([`problems`]: every problem at once, each with its
//! field, and `1.0` where an integer belongs); then each case against the
//! rules a schema cannot say (below); and a case with no problem is read
//! into the model ([`CaseSpec`]) by serde's derive.

use std::path::Path;

use outbox_cases::CaseSpec;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::json;
use super::problems::{self, not_an_attempt, Found};
use super::{Case, CaseError, Draft, MAX_ID};

/// The cases of one file's text; what is wrong goes to `errors`.
pub fn parse_file(file: &Path, text: &str, errors: &mut Vec<CaseError>) -> Vec<Case> {
    let drafts = parse_cases(file, text, errors, false);
    drafts.into_iter().map(|draft| draft.case).collect()
}

/// Like [`parse_file`], for `make bless`: a case may lack `expect`.
pub fn parse_drafts(file: &Path, text: &str, errors: &mut Vec<CaseError>) -> Vec<Draft> {
    parse_cases(file, text, errors, true)
}

fn parse_cases(file: &Path, text: &str, errors: &mut Vec<CaseError>, bless: bool) -> Vec<Draft> {
    if text.starts_with('\u{feff}') {
        // serde_json would say "expected value at line 1 column 1", and an
        // editor does not show the mark: name it.
        errors.push(CaseError::new(
            file,
            "starts with a UTF-8 byte order mark: save it without one".into(),
        ));
        return Vec::new();
    }
    let parsed = if text.trim().is_empty() {
        Err("the file is empty (a case file is at least `{\"cases\": []}`)".to_owned())
    } else {
        json::parse_value(text).map_err(|e| json::explain(text, &e))
    };
    let (root, floats) = match parsed {
        Ok(parsed) => parsed,
        Err(e) => {
            errors.push(CaseError::new(file, format!("not valid JSON: {e}")));
            return Vec::new();
        }
    };
    // `case`: `""`, or `case <its name>: `.
    let error = |case: &str, (field, problem): Found| match field.as_str() {
        "" => CaseError::new(file, format!("{case}{problem}")),
        field => CaseError::new(file, format!("{case}field `{field}`: {problem}")),
    };
    let (own, by_case) = problems::of(&root, floats, bless);
    errors.extend(own.into_iter().map(|found| error("", found)));
    let items = root.get("cases").and_then(Value::as_array);
    let mut drafts = Vec::new();
    for ((index, item), problems) in items.into_iter().flatten().enumerate().zip(by_case) {
        let (case, found) = check_case(index, item, problems);
        let case = format!("case {case}: ");
        if !found.is_empty() {
            errors.extend(found.into_iter().map(|found| error(&case, found)));
            continue;
        }
        // The model refusing what the schema accepted is the two drifting
        // apart: said, never a panic.
        match CaseSpec::deserialize(item) {
            Ok(spec) => drafts.push(draft(file, spec)),
            Err(e) => {
                let problem =
                    format!("cases/schema.json accepts it but the case model does not: {e}");
                errors.push(error(&case, (String::new(), problem)));
            }
        }
    }
    drafts
}

/// One case's name in messages, and its problems: the schema's, then the
/// rules a schema cannot say, each run when the fields it needs have no
/// problem (so it does not report what a bad value breaks).
fn check_case(index: usize, item: &Value, mut found: Vec<Found>) -> (String, Vec<Found>) {
    let empty = Map::new();
    let fields = item.as_object().unwrap_or(&empty);
    let clean = |field: &str| !found.iter().any(|(at, _)| within(at, field));
    let [name_ok, messages_ok, passes_ok, sent_ok] =
        ["name", "messages", "passes", "expect.sent"].map(clean);
    // A good name names the case in every message; a bad one, its place.
    let case = match fields.get("name").and_then(Value::as_str) {
        Some(name) if name_ok => format!("`{name}`"),
        _ => format!("#{} (cases[{index}])", index + 1),
    };
    if let Some(description) = fields.get("description").and_then(Value::as_str) {
        describes(description, &mut found);
    }
    if let Some(failures) = fields.get("failures").and_then(Value::as_object) {
        attempts(failures, &mut found);
    }
    let rows = fields.get("messages").and_then(Value::as_array);
    let passes = fields.get("passes").and_then(Value::as_u64);
    let sent = fields.get("expect").and_then(|e| e.get("sent"));
    // A row's integer field, 0 when absent (the schema has checked its type).
    let number = |row: &Value, field| row.get(field).and_then(Value::as_u64).unwrap_or(0);
    if let (true, Some(rows)) = (messages_ok, rows) {
        ids_increase(rows.iter().map(|row| number(row, "id")), &mut found);
        if let (true, Some(passes)) = (passes_ok, passes) {
            let passes_of_rows = rows.iter().map(|row| number(row, "written_after_pass"));
            written_after(passes_of_rows, passes, &mut found);
        }
    }
    if let (true, true, Some(sent), Some(passes)) = (sent_ok, passes_ok, sent, passes) {
        let lists = sent.as_array().map_or(0, Vec::len);
        if lists as u64 != passes {
            found.push((
                "expect.sent".into(),
                format!(
                    "has {lists} lists but passes is {passes}: write one list per pass (`[]` for a pass that sends nothing)"
                ),
            ));
        }
    }
    (case, found)
}

/// A case read into the model, from `file`.
pub(super) fn draft(file: &Path, spec: CaseSpec) -> Draft {
    let has_expect = spec.expect.is_some();
    let (name, description, scenario, expect) = spec.into_parts();
    let case = Case {
        file: file.to_path_buf(),
        name,
        description,
        scenario,
        expect: expect.unwrap_or_default(),
    };
    Draft { case, has_expect }
}

/// Whether a problem at `at` is about `field` (itself, or a part of it);
/// a problem with the whole case is about every field.
fn within(at: &str, field: &str) -> bool {
    at.is_empty()
        || at
            .strip_prefix(field)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
}

fn describes(description: &str, found: &mut Vec<Found>) {
    let mut fail = |problem: &str| found.push(("description".into(), problem.into()));
    if description.trim().is_empty() {
        fail("must say what the case shows, not be empty");
    }
    if description.contains("TODO") {
        fail("still holds the template's TODO: say what the case shows");
    }
}

/// Every failure key an attempt number up to [`MAX_ID`]: the schema's
/// pattern refuses any other spelling, but cannot bound the value.
fn attempts(failures: &Map<String, Value>, found: &mut Vec<Found>) {
    let too_large = |key: &&String| key.parse::<u64>().is_ok_and(|n| n > MAX_ID);
    for key in failures.keys().filter(too_large) {
        found.push((format!("failures.{key:?}"), not_an_attempt(key)));
    }
}

fn ids_increase(ids: impl Iterator<Item = u64>, found: &mut Vec<Found>) {
    let mut last = None;
    for (i, id) in ids.enumerate() {
        let previous = last.replace(id);
        if let Some(last) = previous.filter(|&last| id <= last) {
            found.push((
                format!("messages[{i}].id"),
                format!(
                    "{id} is not greater than the previous id {last}: ids must strictly increase"
                ),
            ));
        }
    }
}

/// Rows are written at pass boundaries that exist and never go back in
/// time, so ids still increase in the order rows are written.
fn written_after(passes_of_rows: impl Iterator<Item = u64>, passes: u64, found: &mut Vec<Found>) {
    let mut previous = 0;
    for (i, pass) in passes_of_rows.enumerate() {
        let problem = if pass > passes {
            format!(
                "{pass} is after the last pass ({passes}): a row is written after pass 0 (before the first) to \
                 {passes} (after the last)"
            )
        } else if pass < previous {
            format!(
                "{pass} is before the previous row's {previous}: rows are written in id order, so \
                 written_after_pass never decreases along `messages`"
            )
        } else {
            String::new()
        };
        previous = previous.max(pass);
        if !problem.is_empty() {
            found.push((format!("messages[{i}].written_after_pass"), problem));
        }
    }
}
