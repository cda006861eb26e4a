//! Checking a case file against every rule of the case format (SPEC.md,
//! "Case file format") and turning it into [`Case`]s.
//!
//! Files are read into the strict [`Json`] tree first, so repeated keys,
//! `1.0` for an integer and lone surrogates are refused before any rule.

use std::collections::BTreeMap;
use std::path::Path;

use super::checker::{get, Checker};
use super::json::Json;
use super::{
    is_valid_name, Case, CaseError, Draft, Failure, Outcome, Row, Scenario, MAX_ID, MAX_NAME_CHARS,
    MAX_PASSES,
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
    let Some(top) = check.object("", &root) else {
        return Vec::new();
    };
    if !check.fields("", top, &["cases"], &["$schema"]) {
        return Vec::new();
    }
    if let Some(schema) = get(top, "$schema") {
        check.string("$schema", schema);
    }
    let Some(items) = get(top, "cases").and_then(|v| check.array("cases", v)) else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(index, item)| parse_case(&mut check, index, item, rule))
        .collect()
}

fn parse_case(
    check: &mut Checker<'_>,
    index: usize,
    item: &Json,
    rule: ExpectRule,
) -> Option<Draft> {
    let position = format!("#{} (cases[{index}])", index + 1);
    check.case = Some(position.clone());
    let fields = check.object("", item)?;
    let before = check.errors.len();

    let name = get(fields, "name").and_then(|v| check.string("name", v));
    match &name {
        Some(name) if name.chars().count() > MAX_NAME_CHARS => check.fail(
            "name",
            format!(
                "is {} characters long, over the limit of {MAX_NAME_CHARS}: shorten it",
                name.chars().count()
            ),
        ),
        Some(name) if RESERVED_NAMES.contains(&name.as_str()) => check.fail(
            "name",
            format!("{name:?} is reserved for a trial of each language: pick another name"),
        ),
        Some(name) if is_valid_name(name) => check.case = Some(format!("`{name}`")),
        Some(name) => check.fail(
            "name",
            format!("{name:?} is not a valid name: use lowercase letters, digits and `_` only"),
        ),
        None => {}
    }
    check.fields(
        "",
        fields,
        &["name", "description", "batch_size", "messages", "passes"],
        &["failures", "restart_each_pass", "expect"],
    );
    let has_expect = get(fields, "expect").is_some();
    if !has_expect && rule == ExpectRule::Required {
        check.fail(
            "expect",
            "required field is missing: run `make bless` to compute it from the Rust reference, then review \
             the diff"
                .into(),
        );
    }

    let description = get(fields, "description").and_then(|v| check.string("description", v));
    if description.as_deref().is_some_and(|d| d.trim().is_empty()) {
        check.fail(
            "description",
            "must say what the case shows, not be empty".into(),
        );
    }
    if description.as_deref().is_some_and(|d| d.contains("TODO")) {
        check.fail(
            "description",
            "still holds the template's TODO: say what the case shows".into(),
        );
    }
    let batch_size = get(fields, "batch_size").and_then(|v| check.int("batch_size", v, 1, MAX_ID));
    let messages = get(fields, "messages").and_then(|v| check.messages(v));
    let failures = match get(fields, "failures") {
        Some(v) => check.failures(v),
        None => Some(BTreeMap::new()),
    };
    let passes = get(fields, "passes").and_then(|v| check.int("passes", v, 0, MAX_PASSES));
    let restart_each_pass = match get(fields, "restart_each_pass") {
        Some(v) => check.boolean("restart_each_pass", v),
        None => Some(false),
    };
    let expect = match get(fields, "expect") {
        Some(v) => check.expect(v, passes),
        None => Some(Outcome::default()),
    };

    if let (Some(messages), Some(passes)) = (&messages, passes) {
        check.written_after(messages, passes);
    }

    if check.errors.len() > before {
        return None;
    }
    let case = Case {
        file: check.file.to_path_buf(),
        name: name?,
        description: description?,
        scenario: Scenario {
            batch_size: batch_size?,
            messages: messages?,
            failures: failures?,
            passes: passes?,
            restart_each_pass: restart_each_pass?,
        },
        expect: expect?,
    };
    Some(Draft { case, has_expect })
}

impl Checker<'_> {
    fn messages(&mut self, value: &Json) -> Option<Vec<Row>> {
        let items = self.array("messages", value)?;
        let before = self.errors.len();
        let mut messages = Vec::with_capacity(items.len());
        let mut previous: Option<u64> = None;
        for (i, item) in items.iter().enumerate() {
            let at = format!("messages[{i}]");
            let Some(fields) = self.object(&at, item) else {
                continue;
            };
            if !self.fields(
                &at,
                fields,
                &["id", "aggregate", "type"],
                &["written_after_pass"],
            ) {
                continue;
            }
            let id_field = format!("{at}.id");
            let id = get(fields, "id").and_then(|v| self.int(&id_field, v, 1, MAX_ID));
            let aggregate =
                get(fields, "aggregate").and_then(|v| self.string(&format!("{at}.aggregate"), v));
            let event_type =
                get(fields, "type").and_then(|v| self.string(&format!("{at}.type"), v));
            if let (Some(id), Some(last)) = (id, previous) {
                if id <= last {
                    self.fail(
                        &id_field,
                        format!("{id} is not greater than the previous id {last}: ids must strictly increase"),
                    );
                }
            }
            previous = id.or(previous);
            let written_after_pass = match get(fields, "written_after_pass") {
                Some(v) => self.int(&format!("{at}.written_after_pass"), v, 0, MAX_PASSES),
                None => Some(0),
            };
            if let (Some(id), Some(aggregate), Some(event_type), Some(written_after_pass)) =
                (id, aggregate, event_type, written_after_pass)
            {
                messages.push(Row {
                    id,
                    aggregate,
                    event_type,
                    written_after_pass,
                });
            }
        }
        (self.errors.len() == before).then_some(messages)
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

    fn failures(&mut self, value: &Json) -> Option<BTreeMap<u64, Failure>> {
        let fields = self.object("failures", value)?;
        let before = self.errors.len();
        let mut failures = BTreeMap::new();
        for (key, kind) in fields {
            let field = format!("failures.{key:?}");
            let attempt = parse_attempt(key);
            if attempt.is_none() {
                self.fail(
                    &field,
                    format!(
                        "{key:?} is not an attempt number: write a decimal from 1 to {MAX_ID} \
                         without sign, leading zero or spaces"
                    ),
                );
            }
            let kind = match kind {
                Json::Str(s) if s == "down" => Some(Failure::Down),
                Json::Str(s) if s == "lost_ack" => Some(Failure::LostAck),
                Json::Str(s) => {
                    self.fail(
                        &field,
                        format!("unknown failure {s:?}: use \"down\" or \"lost_ack\""),
                    );
                    None
                }
                other => {
                    self.wrong_type(&field, "\"down\" or \"lost_ack\"", other);
                    None
                }
            };
            if let (Some(attempt), Some(kind)) = (attempt, kind) {
                failures.insert(attempt, kind);
            }
        }
        (self.errors.len() == before).then_some(failures)
    }

    fn expect(&mut self, value: &Json, passes: Option<u64>) -> Option<Outcome> {
        let fields = self.object("expect", value)?;
        if !self.fields("expect", fields, &["sent", "journal", "duplicates"], &[]) {
            return None;
        }
        let before = self.errors.len();
        let mut sent = Vec::new();
        if let Some(lists) = get(fields, "sent").and_then(|v| self.array("expect.sent", v)) {
            for (pass, list) in lists.iter().enumerate() {
                let at = format!("expect.sent[{pass}]");
                if let Some(ids) = self.array(&at, list) {
                    let ids = ids
                        .iter()
                        .enumerate()
                        .filter_map(|(i, id)| self.int(&format!("{at}[{i}]"), id, 1, MAX_ID))
                        .collect();
                    sent.push(ids);
                }
            }
            if let Some(passes) = passes {
                if lists.len() as u64 != passes {
                    self.fail(
                        "expect.sent",
                        format!(
                            "has {} lists but passes is {passes}: write one list per pass (`[]` for a pass that sends nothing)",
                            lists.len()
                        ),
                    );
                }
            }
        }
        let mut journal = Vec::new();
        if let Some(entries) = get(fields, "journal").and_then(|v| self.array("expect.journal", v))
        {
            for (i, entry) in entries.iter().enumerate() {
                if let Some(entry) = self.string(&format!("expect.journal[{i}]"), entry) {
                    journal.push(entry);
                }
            }
        }
        let duplicates =
            get(fields, "duplicates").and_then(|v| self.int("expect.duplicates", v, 0, MAX_ID));
        if self.errors.len() > before {
            return None;
        }
        Some(Outcome {
            sent,
            journal,
            duplicates: duplicates?,
        })
    }
}

/// A number as a person writes it: every digit of an integer up to 10^21,
/// an exponent beyond.
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
