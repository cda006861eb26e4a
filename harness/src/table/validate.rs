//! Checking a case file against every rule of the case format (SPEC.md,
//! "Case file format") and turning it into [`Case`]s.
//!
//! A file is read strictly first ([`json::parse_value`]: no byte order
//! mark, no repeated key, no lone surrogate); then checked against
//! `cases/schema.json` ([`Contract::case_problems`]: every problem at
//! once, each with its field, and `1.0` where an integer belongs); then
//! each case against the rules a schema cannot say (below); and a case
//! with no problem is read into the model ([`CaseSpec`]) by serde's
//! derive, which can then meet no unknown field: the schema refused it.

use std::collections::BTreeSet;
use std::path::Path;

use outbox_cases::{CaseFile, CaseSpec};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{CaseError, MAX_ID};
use crate::contract::{not_an_attempt, Contract, Found};
use crate::json;

/// The cases of one file's text, with its `$schema`, and the features each
/// uses; what is wrong goes to `errors`. `bless`: for `make bless`, where
/// a case may lack `expect`.
pub fn parse(
    contract: &Contract,
    file: &Path,
    text: &str,
    errors: &mut Vec<CaseError>,
    bless: bool,
) -> (CaseFile, Vec<BTreeSet<String>>) {
    let parsed = if text.starts_with('\u{feff}') {
        // serde_json would say "expected value at line 1 column 1", and an
        // editor does not show the mark: name it.
        Err("starts with a UTF-8 byte order mark: save it without one".to_owned())
    } else if text.trim().is_empty() {
        Err("not valid JSON: the file is empty (a case file is at least `{\"cases\": []}`)".into())
    } else {
        json::parse_value(text).map_err(|e| format!("not valid JSON: {}", json::explain(text, &e)))
    };
    let (mut schema, mut cases, mut features) = (None, Vec::new(), Vec::new());
    let (root, floats) = match parsed {
        Ok(parsed) => parsed,
        Err(problem) => {
            errors.push(CaseError::new(file, problem));
            return (CaseFile { schema, cases }, features);
        }
    };
    // `case`: `""`, or `case <its name>: `.
    let error = |case: &str, (field, problem): Found| match field.as_str() {
        "" => CaseError::new(file, format!("{case}{problem}")),
        field => CaseError::new(file, format!("{case}field `{field}`: {problem}")),
    };
    let mut found = contract.case_problems(&root, floats, bless);
    let own = found.remove(&None).unwrap_or_default();
    errors.extend(own.into_iter().map(|found| error("", found)));
    let items = root.get("cases").and_then(Value::as_array);
    for (index, item) in items.into_iter().flatten().enumerate() {
        let problems = found.remove(&Some(index)).unwrap_or_default();
        let (case, mut problems) = check_case(index, item, problems);
        // The model refusing what the schema accepted is the two drifting
        // apart: said, never a panic.
        if problems.is_empty() {
            match CaseSpec::deserialize(item) {
                Ok(spec) => {
                    cases.push(spec);
                    features.push(contract.features_of(item));
                }
                Err(e) => problems.push((
                    String::new(),
                    format!("cases/schema.json accepts it but the case model does not: {e}"),
                )),
            }
        }
        let case = format!("case {case}: ");
        errors.extend(problems.into_iter().map(|found| error(&case, found)));
    }
    schema = root.get("$schema").and_then(Value::as_str).map(Into::into);
    (CaseFile { schema, cases }, features)
}

/// One case's name in messages, and its problems: the schema's, then the
/// rules a schema cannot say, each run when the fields it needs have no
/// problem (so it does not report what a bad value breaks).
fn check_case(index: usize, item: &Value, mut found: Vec<Found>) -> (String, Vec<Found>) {
    let clean = |field: &str| !found.iter().any(|(at, _)| within(at, field));
    let [name_ok, messages_ok, passes_ok, sent_ok] =
        ["name", "messages", "passes", "expect.sent"].map(clean);
    // A good name names the case in every message; a bad one, its place.
    let case = match item.get("name").and_then(Value::as_str) {
        Some(name) if name_ok => format!("`{name}`"),
        _ => format!("#{} (cases[{index}])", index + 1),
    };
    if let Some(description) = item.get("description").and_then(Value::as_str) {
        let mut fail = |problem: &str| found.push(("description".into(), problem.into()));
        if description.trim().is_empty() {
            fail("must say what the case shows, not be empty");
        }
        if description.contains("TODO") {
            fail("still holds the template's TODO: say what the case shows");
        }
    }
    // Every failure key an attempt number up to MAX_ID: the schema's
    // pattern refuses any other spelling, but cannot bound the value.
    let failures = item.get("failures").and_then(Value::as_object);
    let too_large = |key: &&String| key.parse::<u64>().is_ok_and(|n| n > MAX_ID);
    for key in failures.into_iter().flat_map(Map::keys).filter(too_large) {
        found.push((format!("failures.{key:?}"), not_an_attempt(key)));
    }
    let rows = item.get("messages").and_then(Value::as_array);
    let passes = item.get("passes").and_then(Value::as_u64);
    let passes = passes.filter(|_| passes_ok);
    if let Some(rows) = rows.filter(|_| messages_ok) {
        rows_in_order(rows, passes, &mut found);
    }
    let sent = item.pointer("/expect/sent").and_then(Value::as_array);
    let lists = sent.filter(|_| sent_ok).map(|sent| sent.len() as u64);
    if let Some((lists, passes)) = lists.zip(passes).filter(|(lists, passes)| lists != passes) {
        let problem = format!(
            "has {lists} lists but passes is {passes}: write one list per pass (`[]` for a pass that sends nothing)"
        );
        found.push(("expect.sent".into(), problem));
    }
    (case, found)
}

/// Whether a problem at `at` is about `field` (itself, or a part of it);
/// a problem with the whole case is about every field.
fn within(at: &str, field: &str) -> bool {
    at.is_empty()
        || at
            .strip_prefix(field)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
}

/// Ids strictly increase along `messages`; and rows are written at pass
/// boundaries that exist (checked when `passes` has no problem) and never
/// go back in time, so ids still increase in the order rows are written.
fn rows_in_order(rows: &[Value], passes: Option<u64>, found: &mut Vec<Found>) {
    // A row's integer field, 0 when absent (the schema has checked its type).
    let number = |row: &Value, field| row.get(field).and_then(Value::as_u64).unwrap_or(0);
    // Ids start at 1, so the first row's is greater than this 0.
    let (mut last_id, mut previous) = (0, 0);
    for (i, row) in rows.iter().enumerate() {
        let (id, pass) = (number(row, "id"), number(row, "written_after_pass"));
        let last = std::mem::replace(&mut last_id, id);
        if id <= last {
            found.push((
                format!("messages[{i}].id"),
                format!(
                    "{id} is not greater than the previous id {last}: ids must strictly increase"
                ),
            ));
        }
        let before = previous;
        previous = previous.max(pass);
        let problem = match passes {
            Some(passes) if pass > passes => format!(
                "{pass} is after the last pass ({passes}): a row is written after pass 0 (before the first) to \
                 {passes} (after the last)"
            ),
            Some(_) if pass < before => format!(
                "{pass} is before the previous row's {before}: rows are written in id order, so \
                 written_after_pass never decreases along `messages`"
            ),
            _ => continue,
        };
        found.push((format!("messages[{i}].written_after_pass"), problem));
    }
}
