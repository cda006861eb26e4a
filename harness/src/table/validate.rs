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
use super::problems::{self, not_an_attempt, Problem};
use super::{name_problem, Case, CaseError, Draft, MAX_ID};

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
        errors.push(CaseError::file(
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
            errors.push(CaseError::file(file, format!("not valid JSON: {e}")));
            return Vec::new();
        }
    };
    let mut problems = problems::of(&root, floats).into_iter().peekable();
    let mut check = Checker {
        file,
        case: None,
        errors,
    };
    // The file's own fields first; a problem there hides no case's.
    while let Some(problem) = problems.next_if(|p| p.case.is_none()) {
        check.fail(problem.field, problem.message);
    }
    let items = root.get("cases").and_then(Value::as_array);
    let mut drafts = Vec::new();
    for (index, item) in items.into_iter().flatten().enumerate() {
        let mut mine = Vec::new();
        while let Some(problem) = problems.next_if(|p| p.case == Some(index)) {
            mine.push(problem);
        }
        drafts.extend(parse_case(&mut check, index, item, mine, bless));
    }
    drafts
}

/// One case: the schema's problems, under its name once the name is good,
/// then the rules a schema cannot say, each run when the fields it needs
/// have no problem (so it does not report what a bad value breaks), then
/// the case read into the model.
fn parse_case(
    check: &mut Checker<'_>,
    index: usize,
    item: &Value,
    mut problems: Vec<Problem>,
    bless: bool,
) -> Option<Draft> {
    check.case = Some(format!("#{} (cases[{index}])", index + 1));
    let before = check.errors.len();
    problems.retain(|p| !(said_by_rules(p) || (bless && is_expect(p))));
    let empty = Map::new();
    let fields = item.as_object().unwrap_or(&empty);
    let clean = |field: &str| !problems.iter().any(|p| within(&p.field, field));
    let [messages_ok, passes_ok, sent_ok] = ["messages", "passes", "expect.sent"].map(clean);
    if let Some(name) = fields.get("name").and_then(Value::as_str) {
        check.name(name);
    }
    for problem in problems {
        let message = if is_expect(&problem) {
            "required field is missing: run `make bless` to compute it from the Rust reference, then review \
             the diff"
                .to_owned()
        } else {
            problem.message
        };
        check.fail(problem.field, message);
    }
    // The schema's only word on a description string is said by the rule.
    if let Some(description) = fields.get("description").and_then(Value::as_str) {
        check.description(description);
    }
    if let Some(failures) = fields.get("failures").and_then(Value::as_object) {
        check.attempts(failures);
    }
    let rows = fields.get("messages").and_then(Value::as_array);
    let passes = fields.get("passes").and_then(Value::as_u64);
    let sent = fields.get("expect").and_then(|e| e.get("sent"));
    // A row's integer field, 0 when absent (the schema has checked its type).
    let number = |row: &Value, field| row.get(field).and_then(Value::as_u64).unwrap_or(0);
    if let (true, Some(rows)) = (messages_ok, rows) {
        check.ids_increase(rows.iter().map(|row| number(row, "id")));
        if let (true, Some(passes)) = (passes_ok, passes) {
            let passes_of_rows = rows.iter().map(|row| number(row, "written_after_pass"));
            check.written_after(passes_of_rows, passes);
        }
    }
    if let (true, true, Some(sent), Some(passes)) = (sent_ok, passes_ok, sent, passes) {
        check.one_list_per_pass(sent.as_array().map_or(0, Vec::len), passes);
    }
    if check.errors.len() > before {
        return None;
    }
    // The model refusing what the schema accepted is the two drifting
    // apart: said, never a panic.
    let spec = CaseSpec::deserialize(item)
        .map_err(|e| {
            let problem = format!("cases/schema.json accepts it but the case model does not: {e}");
            check.fail("", problem);
        })
        .ok()?;
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

/// The schema's word on what a rule below says in its own: the name's
/// pattern, length and reserved names (the rules `make new-case` applies
/// too), and an empty description.
fn said_by_rules(problem: &Problem) -> bool {
    let keyword = problem.keyword.as_str();
    match problem.field.as_str() {
        "name" => ["pattern", "maxLength", "not"].contains(&keyword),
        "description" => keyword == "minLength",
        _ => false,
    }
}

/// A case without `expect`: what `make bless` is for.
fn is_expect(problem: &Problem) -> bool {
    problem.field == "expect" && problem.keyword == "required"
}

/// Whether a problem at `at` is about `field` (itself, or a part of it);
/// a problem with the whole case is about every field.
fn within(at: &str, field: &str) -> bool {
    at.is_empty()
        || at
            .strip_prefix(field)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
}

/// Records the problems of one file, each under the case being checked,
/// instead of stopping at the first.
struct Checker<'a> {
    file: &'a Path,
    case: Option<String>,
    errors: &'a mut Vec<CaseError>,
}

impl Checker<'_> {
    /// Records a problem with `field` (`""`: the case, or the file, itself).
    fn fail(&mut self, field: impl Into<String>, problem: String) {
        let field: String = field.into();
        self.errors.push(CaseError {
            file: self.file.to_path_buf(),
            case: self.case.clone(),
            field: (!field.is_empty()).then_some(field),
            problem,
        });
    }

    /// The name's rules; a good name names the case in later messages.
    fn name(&mut self, name: &str) {
        match name_problem(name) {
            Some(problem) => self.fail("name", problem),
            None => self.case = Some(format!("`{name}`")),
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

    /// Every failure key an attempt number up to [`MAX_ID`]: the schema's
    /// pattern refuses any other spelling, but cannot bound the value.
    fn attempts(&mut self, failures: &Map<String, Value>) {
        let too_large = |key: &&String| key.parse::<u64>().is_ok_and(|n| n > MAX_ID);
        for key in failures.keys().filter(too_large) {
            self.fail(format!("failures.{key:?}"), not_an_attempt(key));
        }
    }

    fn ids_increase(&mut self, ids: impl Iterator<Item = u64>) {
        let mut last = None;
        for (i, id) in ids.enumerate() {
            let previous = last.replace(id);
            if let Some(last) = previous.filter(|&last| id <= last) {
                self.fail(
                    format!("messages[{i}].id"),
                    format!(
                        "{id} is not greater than the previous id {last}: ids must strictly increase"
                    ),
                );
            }
        }
    }

    /// Rows are written at pass boundaries that exist and never go back in
    /// time, so ids still increase in the order rows are written.
    fn written_after(&mut self, passes_of_rows: impl Iterator<Item = u64>, passes: u64) {
        let mut previous = 0;
        for (i, pass) in passes_of_rows.enumerate() {
            let field = || format!("messages[{i}].written_after_pass");
            if pass > passes {
                self.fail(
                    field(),
                    format!(
                        "{pass} is after the last pass ({passes}): a row is written after pass 0 (before \
                         the first) to {passes} (after the last)"
                    ),
                );
            } else if pass < previous {
                self.fail(
                    field(),
                    format!(
                        "{pass} is before the previous row's {previous}: rows are written in id order, so \
                         written_after_pass never decreases along `messages`"
                    ),
                );
            }
            previous = previous.max(pass);
        }
    }

    fn one_list_per_pass(&mut self, lists: usize, passes: u64) {
        if lists as u64 != passes {
            self.fail(
                "expect.sent",
                format!(
                    "has {lists} lists but passes is {passes}: write one list per pass (`[]` for a pass that sends nothing)"
                ),
            );
        }
    }
}
