//! Every rule of the case format has a bad input here, and each is refused
//! with a message naming the file, the case and the field. The rules come
//! from `cases/schema.json` (the loader checks every file with it) and from
//! the harness where a JSON Schema cannot say them; each entry says which,
//! so the schema's own description of what it leaves out stays true.

use std::collections::BTreeSet;
use std::path::Path;

use outbox_cases::{CaseSpec, Scenario};
use parity::config::Settings;
use parity::suite::Suite;
use parity::table::{self as case, validate, CaseError};
use serde_json::Value;

mod common;

use common::GOOD_CASE;

/// The good case, alone in a file, with `from` replaced by `to`.
fn broken(from: &str, to: &str) -> String {
    let file = format!(r#"{{"cases": [{GOOD_CASE}]}}"#);
    assert!(file.contains(from), "{from} is not in the good case's file");
    file.replacen(from, to, 1)
}

fn schema() -> Value {
    let path = parity::repo_root().join("cases/schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Who refuses a file: the schema, the harness alone (a schema cannot
/// say the rule), or nobody (the file is valid).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum By {
    Schema,
    Harness,
    Nobody,
}

/// `text`, as `cases/bad.json`, gets exactly the `expected` problems (each
/// after the file's name), and `cases/schema.json` alone (with serde_json,
/// which keeps one of two repeated keys) refuses it when `by` says so.
fn assert_problems(by: By, text: &str, expected: &[impl AsRef<str>]) {
    let mut errors: Vec<CaseError> = Vec::new();
    let contract = parity::contract::Contract::repo().unwrap();
    let (file, _) = validate::parse(
        &contract,
        Path::new("cases/bad.json"),
        text,
        &mut errors,
        false,
    );
    let cases = file.cases;
    let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
    let expected: Vec<String> = expected
        .iter()
        .map(|e| format!("cases/bad.json: {}", e.as_ref()))
        .collect();
    assert_eq!(errors, expected, "{text:.300}");
    assert!(!errors.is_empty() || cases.len() == 1, "{text:.300}");
    let validator = jsonschema::validator_for(&schema()).expect("a valid JSON Schema");
    let refused = serde_json::from_str::<Value>(text).map_or(true, |v| !validator.is_valid(&v));
    assert_eq!(refused, by == By::Schema, "{by:?}: {text:.300}");
}

/// A file of [`FILES`].
#[derive(Clone, Copy, Debug)]
enum Text {
    /// The good case's file with the first text replaced by the second.
    Edit(&'static str, &'static str),
    /// The good case's file with a field added to the row at this index.
    Row(usize, &'static str),
    /// The good case named by this character, so many times.
    Name(char, usize),
    /// A whole file.
    Whole(&'static str),
}

use Text::{Edit, Name, Row, Whole};

impl Text {
    fn text(self) -> String {
        match self {
            Edit(from, to) => broken(from, to),
            Row(index, field) => {
                let end = format!(r#""order-{}", "type": "OrderPlaced""#, index + 1);
                broken(&end, &format!("{end}, {field}"))
            }
            Name(c, count) => broken("\"good\"", &format!("\"{}\"", c.to_string().repeat(count))),
            Whole(text) => text.to_owned(),
        }
    }
}

/// What an empty file (or one of spaces) is told.
const EMPTY: &[&str] =
    &["not valid JSON: the file is empty (a case file is at least `{\"cases\": []}`)"];

/// Every rule, and whole files, each with every problem its file has: the
/// file as a whole, a case that is no object (not told to run `make bless`
/// for its `expect`), a `$schema` of the wrong type listed with the cases'
/// problems, not instead of them (as at 040425b), unknown fields with the
/// known ones, and files with none.
const FILES: &[(By, Text, &[&str])] = &[
    (
        By::Nobody,
        Edit(r#"{"cases""#, r#"{"$schema": "./schema.json", "cases""#),
        &[],
    ),
    (By::Nobody, Row(1, r#""written_after_pass": 2"#), &[]),
    (By::Nobody, Name('a', 200), &[]),
    // A surrogate pair is one character.
    (By::Nobody, Edit("A valid", r"\ud83d\ude00 A valid"), &[]),
    (
        By::Harness, // A parsed JSON value keeps one of two repeated keys.
        Edit(r#""1": "down""#, r#""1": "down", "1": "lost_ack""#),
        &["not valid JSON: repeated key \"1\" in one object at line 9 column 31"],
    ),
    (
        By::Schema,
        Whole("{\"cases\": [\n  {\"name\": \"x\",}\n]}"),
        &["not valid JSON: trailing comma at line 2 column 16"],
    ),
    (
        By::Schema,
        Whole(r#"{"cases": [], "$schema": "\uDC00x"}"#),
        &["not valid JSON: a lone surrogate (\\uDC00) is not valid UTF-8 text at line 1 column 27"],
    ),
    (
        By::Schema,
        Edit("order-1\"", "order-1\\ud800\\u0041\""),
        &["not valid JSON: a lone surrogate (\\ud800) is not valid UTF-8 text at line 6 column 36"],
    ),
    // Other bad escapes keep serde_json's words.
    (
        By::Schema,
        Whole(r#"{"cases": [], "$schema": "\uzzzz"}"#),
        &["not valid JSON: invalid escape at line 1 column 32"],
    ),
    (
        By::Schema,
        Whole("\u{feff}{\"cases\": []}"),
        &["starts with a UTF-8 byte order mark: save it without one"],
    ),
    (By::Schema, Whole(""), EMPTY),
    (By::Schema, Whole("  \n"), EMPTY),
    (
        By::Schema,
        Edit(r#""passes": 2,"#, ""),
        &["case `good`: field `passes`: required field is missing"],
    ),
    (
        By::Schema, // Read by `make test` too: it points to what fills `expect` in.
        Edit(r#""expect":"#, r#""expected":"#),
        &[
            "case `good`: field `expect`: required field is missing: run `make bless` to compute it \
             from the Rust reference, then review the diff",
            "case `good`: field `expected`: unknown field (known fields: batch_size, description, \
             expect, failures, fetch, max_attempts, messages, name, on_exhausted, passes, relays, \
             restart_each_pass, retention, schedule, unpark)",
        ],
    ),
    (
        By::Harness, // A number against the value of another field.
        Row(1, r#""written_after_pass": 3"#),
        &["case `good`: field `messages[1].written_after_pass`: 3 is after the last pass (2): a row \
           is written after pass 0 (before the first) to 2 (after the last)"],
    ),
    (
        By::Schema,
        Row(1, r#""written_after_pass": -1"#),
        &["case `good`: field `messages[1].written_after_pass`: must be from 0 to 1000000, not -1"],
    ),
    (
        By::Harness, // Order between array items is not expressible.
        Row(0, r#""written_after_pass": 2"#),
        &["case `good`: field `messages[1].written_after_pass`: 0 is before the previous row's 2: \
           rows are written in id order, so written_after_pass never decreases along `messages`"],
    ),
    (
        By::Harness, // JSON Schema's "integer" is any number with no fraction, 1.0 included.
        Row(1, r#""written_after_pass": 1.0"#),
        &["case `good`: field `messages[1].written_after_pass`: must be an integer from 0 to \
           1000000 written without fraction or exponent, not 1.0"],
    ),
    (
        By::Schema,
        Edit(r#""passes": 2"#, r#""passes": 2e-1"#),
        &["case `good`: field `passes`: must be an integer from 0 to 1000000 written without \
           fraction or exponent, not 0.2"],
    ),
    (
        By::Schema,
        Edit(r#""passes": 2"#, r#""passes": true"#),
        &["case `good`: field `passes`: must be an integer from 0 to 1000000, not a boolean"],
    ),
    (
        By::Schema,
        Edit(r#""messages": ["#, r#""messages": null, "x": ["#),
        &[
            "case `good`: field `messages`: must be an array (write `[]` for none), not null",
            "case `good`: field `x`: unknown field (known fields: batch_size, description, expect, \
             failures, fetch, max_attempts, messages, name, on_exhausted, passes, relays, \
             restart_each_pass, retention, schedule, unpark)",
        ],
    ),
    (
        By::Schema,
        Edit(r#""aggregate": "order-1""#, r#""aggregate": 1"#),
        &["case `good`: field `messages[0].aggregate`: must be a string, not an integer"],
    ),
    (
        By::Schema,
        Edit(r#""batch_size": 10"#, r#""batch_size": 0"#),
        &["case `good`: field `batch_size`: must be from 1 to 9007199254740991, not 0"],
    ),
    (
        By::Schema,
        Edit(r#""passes": 2"#, r#""passes": 1000001"#),
        &["case `good`: field `passes`: must be from 0 to 1000000, not 1000001"],
    ),
    (
        By::Schema,
        Edit(r#"{"id": 2,"#, r#"{"id": 9007199254740992,"#),
        &["case `good`: field `messages[1].id`: must be from 1 to 9007199254740991, not \
           9007199254740992"],
    ),
    (
        By::Schema,
        Edit(r#"{"id": 1,"#, r#"{"id": -1,"#),
        &["case `good`: field `messages[0].id`: must be from 1 to 9007199254740991, not -1"],
    ),
    (
        By::Harness,
        Edit(r#"{"id": 2,"#, r#"{"id": 1,"#),
        &["case `good`: field `messages[1].id`: 1 is not greater than the previous id 1: ids must \
           strictly increase"],
    ),
    (
        By::Schema,
        Edit(r#""1": "down""#, r#""1": "timeout""#),
        &[r#"case `good`: field `failures."1"`: unknown failure "timeout": use "down" or "lost_ack""#],
    ),
    (
        By::Schema,
        Edit(r#""name": "good""#, r#""name": "Good-Case""#),
        &["case #1 (cases[0]): field `name`: \"Good-Case\" is not a valid name: use lowercase \
           letters, digits and `_` only"],
    ),
    (
        By::Schema,
        Edit(r#""name": "good""#, r#""name": "demo""#),
        &["case #1 (cases[0]): field `name`: \"demo\" is reserved for a trial of each language: \
           pick another name"],
    ),
    // Over libtest-mimic's limit: it panics printing names over 65,535;
    // not quoted back, though its characters are wrong too.
    (
        By::Schema,
        Name('A', 70_000),
        &["case #1 (cases[0]): field `name`: is 70000 characters long, over the limit of 200: \
           shorten it"],
    ),
    (
        By::Harness, // The length of one array against the value of another field.
        Edit(r#""sent": [[2], [1]]"#, r#""sent": [[2]]"#),
        &["case `good`: field `expect.sent`: has 1 lists but passes is 2: write one list per pass \
           (`[]` for a pass that sends nothing)"],
    ),
    // Read as a float, as 1e20 would be: out of range is what matters,
    // however the number is written (in range, a fraction or an exponent
    // is refused as such, as 1.0 above).
    (
        By::Schema,
        Edit(r#""batch_size": 10"#, r#""batch_size": 18446744073709551616"#),
        &["case `good`: field `batch_size`: must be from 1 to 9007199254740991, not \
           18446744073709551616: too large"],
    ),
    (
        By::Schema,
        Edit(r#"{"id": 1,"#, r#"{"id": -18446744073709551616,"#),
        &["case `good`: field `messages[0].id`: must be from 1 to 9007199254740991, not \
           -18446744073709551616: too small"],
    ),
    (
        By::Schema,
        Whole(r#"{"cases": [1, null, []]}"#),
        &[
            "case #1 (cases[0]): must be an object, not an integer",
            "case #2 (cases[1]): must be an object, not null",
            "case #3 (cases[2]): must be an object, not an array",
        ],
    ),
    (
        By::Schema,
        Edit(r#"{"cases": ["#, r#"{"$schema": 1, "cases": [1, "#),
        &[
            "field `$schema`: must be a string, not an integer",
            "case #1 (cases[0]): must be an object, not an integer",
        ],
    ),
    (
        By::Schema,
        Whole(r#"{"cases": [], "version": 2}"#),
        &["field `version`: unknown field (known fields: $schema, cases)"],
    ),
    (
        By::Schema,
        Row(0, r#""payload": 1"#),
        &["case `good`: field `messages[0].payload`: unknown field (known fields: aggregate, id, \
           type, written_after_pass)"],
    ),
    (
        By::Schema,
        Edit(r#""duplicates": 0"#, r#""duplicates": 0, "note": """#),
        &["case `good`: field `expect.note`: unknown field (known fields: dead_letters, duplicates, \
           journal, sent)"],
    ),
];

/// The features' fields (SPEC.md, "The practice's limits, played"), every
/// bad value of each, several to a file: the fields set after `passes`,
/// with `expect.dead_letters` too when `capped`, and each problem after
/// the case's name.
const FEATURES: &[(By, bool, &str, &[&str])] = &[
    (
        By::Schema,
        true,
        r#""max_attempts": true, "on_exhausted": "drop", "retention": 0, "relays": 257,
           "schedule": [[0], ["0"]], "fetch": "all""#,
        &[
            "field `max_attempts`: must be an integer from 1 to 9007199254740991, not a boolean",
            r#"field `on_exhausted`: unknown value "drop": use "release" or "park""#,
            "field `retention`: must be from 1 to 9007199254740991, not 0",
            "field `relays`: must be from 1 to 256, not 257",
            "field `schedule[1][0]`: must be an integer from 0 to 255, not a string",
            r#"field `fetch`: unknown value "all": use "rows" or "heads""#,
        ],
    ),
    (
        By::Schema,
        true,
        r#""max_attempts": 0, "on_exhausted": "park", "retention": 1.5, "relays": 0, "unpark":
           [{"aggregate": "order-1"}, {"aggregate": 1, "after_pass": 0, "pass": 1}]"#,
        &[
            "field `max_attempts`: must be from 1 to 9007199254740991, not 0",
            "field `retention`: must be an integer from 1 to 9007199254740991 written without \
             fraction or exponent, not 1.5",
            "field `relays`: must be from 1 to 256, not 0",
            "field `unpark[0].after_pass`: required field is missing",
            "field `unpark[1].aggregate`: must be a string, not an integer",
            "field `unpark[1].after_pass`: must be from 1 to 1000000, not 0",
            "field `unpark[1].pass`: unknown field (known fields: after_pass, aggregate)",
        ],
    ),
    (
        By::Schema,
        true,
        r#""max_attempts": 9007199254740992, "retention": -1, "relays": true, "schedule": [[0], [-1]]"#,
        &[
            "field `max_attempts`: must be from 1 to 9007199254740991, not 9007199254740992",
            "field `retention`: must be from 1 to 9007199254740991, not -1",
            "field `relays`: must be an integer from 1 to 256, not a boolean",
            "field `schedule[1][0]`: must be from 0 to 255, not -1",
        ],
    ),
    (
        By::Harness, // JSON Schema's "integer" is any number with no fraction.
        true,
        r#""max_attempts": 1.0, "retention": 1.0, "relays": 2.0"#,
        &[
            "field `max_attempts`: must be an integer from 1 to 9007199254740991 written without \
             fraction or exponent, not 1.0",
            "field `retention`: must be an integer from 1 to 9007199254740991 written without \
             fraction or exponent, not 1.0",
            "field `relays`: must be an integer from 1 to 256 written without fraction or \
             exponent, not 2.0",
        ],
    ),
    (
        By::Harness,
        true,
        r#""on_exhausted": "release", "unpark": []"#,
        &[
            "field `on_exhausted`: is set but `max_attempts` is not: only an attempt cap gives up \
             on a row",
            "field `expect.dead_letters`: is set but `max_attempts` is not: only an attempt cap \
             gives up on a row",
            r#"field `unpark`: is set but `on_exhausted` is not "park": only a parked order is unparked"#,
        ],
    ),
    (
        By::Harness,
        false,
        r#""max_attempts": 1, "on_exhausted": "park", "unpark": [{"aggregate": "order-1", "after_pass": 3}]"#,
        &[
            "field `expect.dead_letters`: required field is missing: a case with `max_attempts` \
             expects one list per run of the ids dead-lettered in it",
            "field `unpark[0].after_pass`: 3 is after the last pass (2): an order is unparked after \
             pass 1 to 2",
        ],
    ),
    (
        By::Harness,
        false,
        r#""relays": 2, "schedule": [[0, 2]]"#,
        &[
            "field `schedule`: has 1 lists but passes is 2: write one list of relay indices per pass \
             (`[]` for a pass no relay runs in)",
            "field `schedule[0][1]`: 2 is no relay: relays is 2, so an index is 0 to 1",
        ],
    ),
    (
        By::Harness,
        false,
        r#""relays": 2"#,
        &["field `expect.sent`: has 2 lists but the case plays 4 runs: write one list per run (`[]` \
           for a run that sends nothing)"],
    ),
];

#[test]
fn each_feature_field_is_refused_with_its_problems() {
    for &(by, capped, fields, expected) in FEATURES {
        let mut text = broken(r#""passes": 2"#, &format!(r#""passes": 2, {fields}"#));
        if capped {
            text = text.replacen(
                r#""duplicates": 0"#,
                r#""duplicates": 0, "dead_letters": [[], []]"#,
                1,
            );
        }
        let expected: Vec<String> = expected
            .iter()
            .map(|e| format!("case `good`: {e}"))
            .collect();
        assert_problems(by, &text, &expected);
    }
    // The length of one list against another field's value, and the runs
    // of a case against the limit.
    let wrong = broken(
        r#""sent": [[2], [1]]"#,
        r#""sent": [[2], [1]], "dead_letters": [[]]"#,
    );
    let wrong = wrong.replacen(r#""passes": 2"#, r#""passes": 2, "max_attempts": 1"#, 1);
    let lists = "case `good`: field `expect.dead_letters`: has 1 lists but passes is 2: write one \
                 list per pass (`[]` for a pass that dead-letters nothing)";
    assert_problems(By::Harness, &wrong, &[lists]);
    let many = broken(r#""passes": 2"#, r#""passes": 1000000, "relays": 2"#);
    let runs = "case `good`: field `relays`: makes 2000000 runs, over the limit of 1000000 a case \
                may play (each run is a list of the answer)";
    assert_problems(By::Harness, &many, &[runs]);
}

#[test]
fn each_file_gets_exactly_its_problems() {
    for &(by, text, expected) in FILES {
        assert_problems(by, &text.text(), expected);
    }
}

#[test]
fn a_failure_key_that_is_no_attempt_number_is_refused() {
    for key in [
        "01",
        "+1",
        " 1",
        "0",
        "1.0",
        "",
        "9007199254740992", // A numeric range on a property name: the harness's.
        "99999999999999999999",
    ] {
        let text = broken(r#""1": "down""#, &format!(r#""{key}": "down""#));
        let by = [By::Schema, By::Harness][usize::from(key == "9007199254740992")];
        let problem = format!(
            "case `good`: field `failures.{key:?}`: {key:?} is not an attempt number: write a decimal \
             from 1 to 9007199254740991 without sign, leading zero or spaces"
        );
        assert_problems(by, &text, &[problem]);
    }
}

/// Every row missing every field is listed, each under the case's name:
/// a read that learned missing fields one path at a time stopped after 64,
/// dropped the rest unsaid and lost the case's name.
#[test]
fn every_missing_field_of_every_row_is_listed_under_the_case_name() {
    let rows = vec!["{}"; 100].join(", ");
    let text = broken(
        r#"{"id": 1, "aggregate": "order-1", "type": "OrderPlaced"},
    {"id": 2, "aggregate": "order-2", "type": "OrderPlaced"}"#,
        &rows,
    );
    let missing = (0..300).map(|i| {
        let field = ["id", "aggregate", "type"][i % 3];
        format!(
            "case `good`: field `messages[{}].{field}`: required field is missing",
            i / 3
        )
    });
    assert_problems(By::Schema, &text, &missing.collect::<Vec<_>>());
}

#[test]
fn a_name_used_in_two_files_is_refused() {
    let dir = common::scratch("duplicate-names");
    common::good_file(&dir, "a.json");
    common::good_file(&dir, "b.json");
    let errors = case::load(std::slice::from_ref(&dir)).unwrap_err();
    // The earlier file is named as it sits beside this one, however the
    // caller shows this one's path (the suite, relative to the root).
    let problem = "case `good`: field `name`: the name is already used in a.json (names are \
                   unique across all case files)";
    let expected = CaseError::new(&dir.join("b.json"), problem.into());
    assert_eq!(errors, [expected]);
}

#[test]
fn extra_case_files_join_the_table_and_bad_ones_stop_the_run() {
    let dir = common::scratch("extra-cases");
    let good = GOOD_CASE.replacen("\"good\"", "\"my_extra_case\"", 1);
    std::fs::write(dir.join("extra.json"), format!(r#"{{"cases": [{good}]}}"#)).unwrap();
    let settings = |file: &str| Settings {
        extra_cases: vec![dir.join(file)],
        ..Settings::default()
    };
    let suite = Suite::load(&parity::repo_root(), settings("extra.json")).expect("loads");
    assert!(suite.cases.iter().any(|c| c.name == "my_extra_case"));

    std::fs::write(dir.join("bad.json"), r#"{"cases": [{"name": "x"}]}"#).unwrap();
    let message = Suite::load(&parity::repo_root(), settings("bad.json")).unwrap_err();
    let missing = "bad.json: case `x`: field `description`: required field is missing";
    common::assert_holds(&message, &["the case table has 5 problem(s):\n", missing]);
}

/// The model writes every field the schema knows and no other: a case with
/// every optional field set, serialized by the model, its `expect` the
/// reference's outcome, is valid and has exactly the schema's fields, at
/// every level.
#[test]
fn the_model_and_the_schema_know_the_same_fields() {
    let mut spec: CaseSpec = serde_json::from_str(GOOD_CASE).unwrap();
    let every = r#"{"restart_each_pass": true, "max_attempts": 2, "on_exhausted": "park",
        "unpark": [{"aggregate": "order-1", "after_pass": 1}], "retention": 1, "relays": 2,
        "schedule": [[1, 0], [0]], "fetch": "heads", "batch_size": 1, "messages": [], "passes": 2}"#;
    spec.scenario = Scenario {
        messages: spec.scenario.messages,
        ..serde_json::from_str(every).unwrap()
    };
    for row in &mut spec.scenario.messages {
        row.written_after_pass = 1;
    }
    spec.expect = Some(parity::oracle::expect(&spec.scenario));
    let file = serde_json::json!({"$schema": "./schema.json", "cases": [spec]});
    assert_problems(By::Nobody, &file.to_string(), &[""; 0]);
    let fields = |object: &Value| BTreeSet::from_iter(object.as_object().unwrap().keys().cloned());
    let case = "/$defs/case/properties";
    for (model, at) in [
        ("", "/properties".to_owned()),
        ("/cases/0", case.to_owned()),
        (
            "/cases/0/messages/0",
            format!("{case}/messages/items/properties"),
        ),
        ("/cases/0/expect", "/$defs/outcome/properties".to_owned()),
    ] {
        let known = fields(schema().pointer(&at).unwrap());
        assert_eq!(fields(file.pointer(model).unwrap()), known, "{at}");
    }
}
