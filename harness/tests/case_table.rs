//! Every rule of the case format has a bad input here, and each is refused
//! with a message naming the file, the case and the field.

use std::path::{Path, PathBuf};

use parity::config::Settings;
use parity::suite::Suite;
use parity::table::{self as case, validate, CaseError};

mod common;

use common::GOOD_CASE;

fn errors_for(text: &str) -> Vec<String> {
    let mut errors: Vec<CaseError> = Vec::new();
    let cases = validate::parse_file(Path::new("cases/bad.json"), text, &mut errors);
    if errors.is_empty() {
        assert_eq!(cases.len(), 1, "{text}");
    }
    errors.iter().map(ToString::to_string).collect()
}

/// The good case with `from` replaced by `to` must be refused with `message`.
fn assert_refused(from: &str, to: &str, message: &str) {
    assert!(GOOD_CASE.contains(from), "{from} is not in the good case");
    let text = format!(r#"{{"cases": [{}]}}"#, GOOD_CASE.replacen(from, to, 1));
    let errors = errors_for(&text);
    assert!(
        errors.iter().any(|e| e == message),
        "expected {message:?}, got {errors:#?}"
    );
}

#[test]
fn the_good_case_and_the_seed_table_are_accepted() {
    assert!(errors_for(&format!(
        r#"{{"$schema": "./schema.json", "cases": [{GOOD_CASE}]}}"#
    ))
    .is_empty());
    let cases = case::load(&[parity::repo_root().join("cases")]).expect("the seed table is valid");
    assert!(cases.len() >= 5);
}

#[test]
fn malformed_json_says_where() {
    let errors = errors_for("{\"cases\": [\n  {\"name\": \"x\",}\n]}");
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].starts_with("cases/bad.json: not valid JSON: "),
        "{errors:?}"
    );
    assert!(errors[0].contains("line 2 column"), "{errors:?}");
}

#[test]
fn a_repeated_key_is_refused() {
    let errors = errors_for(r#"{"cases": [], "cases": []}"#);
    assert!(
        errors[0].contains(r#"repeated key "cases" in one object at line 1"#),
        "{errors:?}"
    );
    assert_refused(
        r#""failures": {"1": "down"}"#,
        r#""failures": {"1": "down", "1": "lost_ack"}"#,
        "cases/bad.json: not valid JSON: repeated key \"1\" in one object at line 9 column 31",
    );
}

/// The fields `cases/schema.json` knows at `pointer`, as the message lists
/// them: the harness's list is the model's, so this also keeps the model
/// and the schema agreeing, and a new field needs no edit here.
fn known(pointer: &str) -> String {
    let path = parity::repo_root().join("cases/schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let fields = schema.pointer(pointer).and_then(|v| v.as_object());
    let mut names: Vec<&str> = fields.unwrap().keys().map(String::as_str).collect();
    names.sort_unstable();
    names.join(", ")
}

#[test]
fn unknown_and_missing_fields_are_refused() {
    let case = known("/$defs/case/properties");
    assert_refused(
        r#""passes": 2"#,
        r#""passes": 2, "pases": 2"#,
        &format!(
            "cases/bad.json: case `good`: field `pases`: unknown field (known fields: {case})"
        ),
    );
    assert_refused(
        r#""passes": 2,"#,
        "",
        "cases/bad.json: case `good`: field `passes`: required field is missing",
    );
    let row = known("/$defs/case/properties/messages/items/properties");
    assert_refused(
        r#""type": "OrderPlaced"}"#,
        r#""type": "OrderPlaced", "payload": 1}"#,
        &format!("cases/bad.json: case `good`: field `messages[0].payload`: unknown field (known fields: {row})"),
    );
    let expect = known("/$defs/case/properties/expect/properties");
    assert_refused(
        r#""duplicates": 0"#,
        r#""duplicates": 0, "note": """#,
        &format!("cases/bad.json: case `good`: field `expect.note`: unknown field (known fields: {expect})"),
    );
    let errors = errors_for(r#"{"cases": [], "version": 2}"#);
    assert_eq!(
        errors,
        ["cases/bad.json: field `version`: unknown field (known fields: $schema, cases)"]
    );
}

/// Every row missing every field is listed, each under the case's name:
/// a read that learned missing fields one path at a time stopped after 64,
/// dropped the rest unsaid and lost the case's name.
#[test]
fn every_missing_field_of_every_row_is_listed_under_the_case_name() {
    let rows = vec!["{}"; 100].join(", ");
    let text = format!(
        r#"{{"cases": [{}]}}"#,
        GOOD_CASE.replacen(
            r#"{"id": 1, "aggregate": "order-1", "type": "OrderPlaced"},
    {"id": 2, "aggregate": "order-2", "type": "OrderPlaced"}"#,
            &rows,
            1,
        )
    );
    let errors = errors_for(&text);
    assert_eq!(errors.len(), 300, "{errors:#?}");
    for (i, error) in errors.iter().enumerate() {
        let field = ["id", "aggregate", "type"][i % 3];
        let expected = format!(
            "cases/bad.json: case `good`: field `messages[{}].{field}`: required field is missing",
            i / 3
        );
        assert_eq!(error, &expected);
    }
}

/// A case that is no object is refused as that alone: it has no fields,
/// so it is not told to run `make bless` for its `expect`.
#[test]
fn a_case_that_is_no_object_is_only_that() {
    let errors = errors_for(r#"{"cases": [1, null, []]}"#);
    assert_eq!(
        errors,
        [
            "cases/bad.json: case #1 (cases[0]): must be an object, not an integer",
            "cases/bad.json: case #2 (cases[1]): must be an object, not null",
            "cases/bad.json: case #3 (cases[2]): must be an object, not an array",
        ]
    );
}

/// A `$schema` of the wrong type is listed with the cases' problems, not
/// instead of them, as at 040425b.
#[test]
fn a_bad_schema_field_does_not_hide_the_cases_problems() {
    let case = GOOD_CASE.replacen(r#""passes": 2,"#, "", 1);
    let errors = errors_for(&format!(r#"{{"$schema": 1, "cases": [{case}]}}"#));
    assert_eq!(
        errors,
        [
            "cases/bad.json: field `$schema`: must be a string, not an integer",
            "cases/bad.json: case `good`: field `passes`: required field is missing",
        ]
    );
}

#[test]
fn rows_are_written_at_pass_boundaries_that_exist_and_never_go_back() {
    // The good case has two rows and two passes.
    let second = r#"{"id": 2, "aggregate": "order-2", "type": "OrderPlaced"}"#;
    assert_refused(
        second,
        r#"{"id": 2, "aggregate": "order-2", "type": "OrderPlaced", "written_after_pass": 3}"#,
        "cases/bad.json: case `good`: field `messages[1].written_after_pass`: 3 is after the last pass (2): \
         a row is written after pass 0 (before the first) to 2 (after the last)",
    );
    assert_refused(
        second,
        r#"{"id": 2, "aggregate": "order-2", "type": "OrderPlaced", "written_after_pass": -1}"#,
        "cases/bad.json: case `good`: field `messages[1].written_after_pass`: must be from 0 to 1000000, not -1",
    );
    assert_refused(
        r#"{"id": 1, "aggregate": "order-1", "type": "OrderPlaced"}"#,
        r#"{"id": 1, "aggregate": "order-1", "type": "OrderPlaced", "written_after_pass": 2}"#,
        "cases/bad.json: case `good`: field `messages[1].written_after_pass`: 0 is before the previous row's 2: \
         rows are written in id order, so written_after_pass never decreases along `messages`",
    );
    assert_refused(
        second,
        r#"{"id": 2, "aggregate": "order-2", "type": "OrderPlaced", "written_after_pass": 1.0}"#,
        "cases/bad.json: case `good`: field `messages[1].written_after_pass`: must be an integer from 0 to \
         1000000 written without fraction or exponent, not 1.0",
    );
    let later = GOOD_CASE.replacen(
        second,
        r#"{"id": 2, "aggregate": "order-2", "type": "OrderPlaced", "written_after_pass": 2}"#,
        1,
    );
    assert_eq!(
        errors_for(&format!(r#"{{"cases": [{later}]}}"#)),
        Vec::<String>::new()
    );
}

#[test]
fn wrong_types_and_floats_are_refused() {
    assert_refused(
        r#""batch_size": 10"#,
        r#""batch_size": 1.0"#,
        "cases/bad.json: case `good`: field `batch_size`: must be an integer from 1 to 9007199254740991 \
         written without fraction or exponent, not 1.0",
    );
    assert_refused(
        r#""passes": 2"#,
        r#""passes": 2e0"#,
        "cases/bad.json: case `good`: field `passes`: must be an integer from 0 to 1000000 written without \
         fraction or exponent, not 2.0",
    );
    assert_refused(
        r#""passes": 2"#,
        r#""passes": true"#,
        "cases/bad.json: case `good`: field `passes`: must be an integer from 0 to 1000000, not a boolean",
    );
    assert_refused(
        r#""messages": ["#,
        r#""messages": null, "x": ["#,
        "cases/bad.json: case `good`: field `messages`: must be an array (write `[]` for none), not null",
    );
    assert_refused(
        r#""aggregate": "order-1""#,
        r#""aggregate": 1"#,
        "cases/bad.json: case `good`: field `messages[0].aggregate`: must be a string, not an integer",
    );
}

#[test]
fn bad_numbers_are_refused() {
    assert_refused(
        r#""batch_size": 10"#,
        r#""batch_size": 0"#,
        "cases/bad.json: case `good`: field `batch_size`: must be from 1 to 9007199254740991, not 0",
    );
    assert_refused(
        r#""passes": 2"#,
        r#""passes": 1000001"#,
        "cases/bad.json: case `good`: field `passes`: must be from 0 to 1000000, not 1000001",
    );
    assert_refused(
        r#"{"id": 2,"#,
        r#"{"id": 9007199254740992,"#,
        "cases/bad.json: case `good`: field `messages[1].id`: must be from 1 to 9007199254740991, not 9007199254740992",
    );
    assert_refused(
        r#"{"id": 1,"#,
        r#"{"id": -1,"#,
        "cases/bad.json: case `good`: field `messages[0].id`: must be from 1 to 9007199254740991, not -1",
    );
}

#[test]
fn ids_must_strictly_increase() {
    assert_refused(
        r#"{"id": 2,"#,
        r#"{"id": 1,"#,
        "cases/bad.json: case `good`: field `messages[1].id`: 1 is not greater than the previous id 1: ids must \
         strictly increase",
    );
}

#[test]
fn failures_need_canonical_attempts_and_known_kinds() {
    assert_refused(
        r#""1": "down""#,
        r#""1": "timeout""#,
        r#"cases/bad.json: case `good`: field `failures."1"`: unknown failure "timeout": use "down" or "lost_ack""#,
    );
    for key in [
        "01",
        "+1",
        " 1",
        "0",
        "1.0",
        "",
        "9007199254740992",
        "99999999999999999999",
    ] {
        assert_refused(
            r#""1": "down""#,
            &format!(r#""{key}": "down""#),
            &format!(
                "cases/bad.json: case `good`: field `failures.{key:?}`: {key:?} is not an attempt number: write a \
                 decimal from 1 to 9007199254740991 without sign, leading zero or spaces"
            ),
        );
    }
}

#[test]
fn names_are_checked() {
    assert_refused(
        r#""name": "good""#,
        r#""name": "Good-Case""#,
        "cases/bad.json: case #1 (cases[0]): field `name`: \"Good-Case\" is not a valid name: use lowercase \
         letters, digits and `_` only",
    );
    assert_refused(
        r#""name": "good""#,
        r#""name": "demo""#,
        "cases/bad.json: case #1 (cases[0]): field `name`: \"demo\" is reserved for a trial of each language: pick \
         another name",
    );
}

#[test]
fn expect_sent_has_one_list_per_pass() {
    assert_refused(
        r#""sent": [[2], [1]]"#,
        r#""sent": [[2]]"#,
        "cases/bad.json: case `good`: field `expect.sent`: has 1 lists but passes is 2: write one list per pass \
         (`[]` for a pass that sends nothing)",
    );
}

#[test]
fn a_lone_surrogate_is_named_as_such() {
    let errors = errors_for(&format!(
        r#"{{"cases": [{}]}}"#,
        GOOD_CASE.replacen("order-1\"", "order-1\\ud800\"", 1)
    ));
    assert_eq!(
        errors,
        ["cases/bad.json: not valid JSON: a lone surrogate (\\ud800) is not valid UTF-8 text at line 6 column 36"]
    );
    let errors = errors_for(r#"{"cases": [], "$schema": "\uDC00x"}"#);
    assert_eq!(
        errors,
        ["cases/bad.json: not valid JSON: a lone surrogate (\\uDC00) is not valid UTF-8 text at line 1 column 27"]
    );
}

#[test]
fn a_byte_order_mark_is_named_as_such() {
    assert_eq!(
        errors_for("\u{feff}{\"cases\": []}"),
        ["cases/bad.json: starts with a UTF-8 byte order mark: save it without one"]
    );
}

#[test]
fn an_integer_too_large_for_64_bits_is_called_too_large() {
    assert_refused(
        r#""batch_size": 10"#,
        r#""batch_size": 18446744073709551616"#,
        "cases/bad.json: case `good`: field `batch_size`: must be from 1 to 9007199254740991, not \
         18446744073709551616: too large",
    );
    assert_refused(
        r#"{"id": 1,"#,
        r#"{"id": -18446744073709551616,"#,
        "cases/bad.json: case `good`: field `messages[0].id`: must be from 1 to 9007199254740991, not \
         -18446744073709551616: too small",
    );
    // Out of range is what matters, however the number is written; in
    // range, a fraction or an exponent is still refused as such.
    assert_refused(
        r#""batch_size": 10"#,
        r#""batch_size": 1e20"#,
        "cases/bad.json: case `good`: field `batch_size`: must be from 1 to 9007199254740991, not \
         100000000000000000000: too large",
    );
    assert_refused(
        r#""batch_size": 10"#,
        r#""batch_size": 1e1"#,
        "cases/bad.json: case `good`: field `batch_size`: must be an integer from 1 to 9007199254740991 \
         written without fraction or exponent, not 10.0",
    );
}

#[test]
fn a_name_used_in_two_files_is_refused() {
    let dir = scratch_dir("duplicate-names");
    let text = format!(r#"{{"cases": [{GOOD_CASE}]}}"#);
    std::fs::write(dir.join("a.json"), &text).unwrap();
    std::fs::write(dir.join("b.json"), &text).unwrap();
    let errors = case::load(std::slice::from_ref(&dir)).unwrap_err();
    assert_eq!(errors.len(), 1);
    let message = errors[0].to_string();
    assert!(
        message.contains("b.json: case `good`: field `name`: the name is already used in "),
        "{message}"
    );
    assert!(
        message.contains("a.json (names are unique across all case files)"),
        "{message}"
    );
}

#[test]
fn extra_case_files_join_the_table_and_bad_ones_stop_the_run() {
    let dir = scratch_dir("extra-cases");
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
    assert!(
        message.starts_with("the case table has 5 problem(s):\n"),
        "{message}"
    );
    assert!(
        message.contains("bad.json: case `x`: field `description`: required field is missing"),
        "{message}"
    );
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = parity::config::scratch_dir(&parity::repo_root(), name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn an_empty_file_is_named_as_such() {
    for text in ["", "  \n"] {
        let errors = errors_for(text);
        assert_eq!(
            errors,
            ["cases/bad.json: not valid JSON: the file is empty (a case file is at least `{\"cases\": []}`)"],
            "{text:?}"
        );
    }
}
