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
    let schema_found: Vec<String> = found.iter().map(|(at, _)| at.clone()).collect();
    let clean = |field: &str| !schema_found.iter().any(|at| within(at, field));
    let [name_ok, messages_ok, passes_ok] = ["name", "messages", "passes"].map(clean);
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
    let runs = passes.and_then(|passes| runs(item, passes, &clean, &mut found));
    features(item, (passes, runs), &clean, &mut found);
    (case, found)
}

/// Said of an attempt cap's field (or its answer) without `max_attempts`.
const ONLY_WITH_CAP: &str =
    "is set but `max_attempts` is not: only an attempt cap gives up on a row";

/// The most runs a case plays: each is a list of the answer (SPEC.md,
/// "Several relays").
const MAX_RUNS: u64 = 1_000_000;

/// The features' rules that compare two fields (SPEC.md, "The practice's
/// limits, played"), and one list of `expect.sent` (and of
/// `expect.dead_letters`) per run, each checked when what it reads is good.
fn features(
    item: &Value,
    (passes, runs): (Option<u64>, Option<u64>),
    clean: &dyn Fn(&str) -> bool,
    found: &mut Vec<Found>,
) {
    let has = |pointer: &str| item.pointer(pointer).is_some();
    let (cap, dead) = (has("/max_attempts"), has("/expect/dead_letters"));
    let park = item.get("on_exhausted").and_then(Value::as_str) == Some("park");
    let missing = "required field is missing: a case with `max_attempts` expects one list per \
                   run of the ids dead-lettered in it";
    let unparked = "is set but `on_exhausted` is not \"park\": only a parked order is unparked";
    let mut say = |wrong: bool, field: &str, problem: &str| {
        if wrong {
            found.push((field.into(), problem.into()));
        }
    };
    say(has("/on_exhausted") && !cap, "on_exhausted", ONLY_WITH_CAP);
    say(dead && !cap, "expect.dead_letters", ONLY_WITH_CAP);
    say(
        has("/expect") && !dead && cap,
        "expect.dead_letters",
        missing,
    );
    say(has("/unpark") && !park, "unpark", unparked);
    let unparks = item.get("unpark").and_then(Value::as_array);
    let unparks = unparks.filter(|_| clean("unpark")).into_iter().flatten();
    let last = passes.unwrap_or(u64::MAX);
    for (i, unpark) in unparks.enumerate() {
        let after = unpark["after_pass"].as_u64().unwrap_or(0);
        if after > last {
            let problem = format!(
                "{after} is after the last pass ({last}): an order is unparked after pass 1 to {last}"
            );
            found.push((format!("unpark[{i}].after_pass"), problem));
        }
    }
    let per = match has("/relays") || has("/schedule") {
        false => format!("passes is {last}: write one list per pass (`[]` for a pass"),
        true => format!(
            "the case plays {} runs: write one list per run (`[]` for a run",
            runs.unwrap_or(0)
        ),
    };
    for (field, verb) in [("sent", "sends"), ("dead_letters", "dead-letters")] {
        let lists = item.get("expect").and_then(|e| e.get(field)?.as_array());
        let lists = lists
            .filter(|_| clean(&format!("expect.{field}")))
            .map(Vec::len);
        if let Some((lists, _)) = lists.zip(runs).filter(|&(n, runs)| n as u64 != runs) {
            let problem = format!("has {lists} lists but {per} that {verb} nothing)");
            found.push((format!("expect.{field}"), problem));
        }
    }
}

/// The runs a case plays, when `relays` and `schedule` are good: the
/// schedule holds one list per pass of relays that exist, and the runs are
/// at most [`MAX_RUNS`].
fn runs(
    item: &Value,
    passes: u64,
    clean: &dyn Fn(&str) -> bool,
    found: &mut Vec<Found>,
) -> Option<u64> {
    let relays = item.get("relays").map_or(Some(1), Value::as_u64);
    let relays = relays.filter(|_| clean("relays"))?;
    let (mut runs, mut field) = (passes.saturating_mul(relays), "relays");
    if let Some(schedule) = item.get("schedule") {
        let lists = schedule.as_array().filter(|_| clean("schedule"))?;
        let before = found.len();
        if lists.len() as u64 != passes {
            let problem = format!(
                "has {} lists but passes is {passes}: write one list of relay indices per pass \
                 (`[]` for a pass no relay runs in)",
                lists.len()
            );
            found.push(("schedule".to_owned(), problem));
        }
        for (i, list) in lists.iter().enumerate() {
            let indices = list.as_array().into_iter().flatten().enumerate();
            for (j, index) in indices.filter(|(_, r)| r.as_u64() >= Some(relays)) {
                let last = relays - 1;
                let problem =
                    format!("{index} is no relay: relays is {relays}, so an index is 0 to {last}");
                found.push((format!("schedule[{i}][{j}]"), problem));
            }
        }
        let lengths = lists.iter().filter_map(Value::as_array).map(Vec::len);
        (runs, field) = (lengths.sum::<usize>() as u64, "schedule");
        if found.len() > before {
            return None;
        }
    }
    if runs > MAX_RUNS {
        let problem = format!(
            "makes {runs} runs, over the limit of {MAX_RUNS} a case may play (each run is a list of \
             the answer)"
        );
        found.push((field.into(), problem));
        return None;
    }
    Some(runs)
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
