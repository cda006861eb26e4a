//! `cases/schema.json` is what the harness checks every case file with, and
//! the model (`outbox-cases`) reads what it accepts: the two must know the
//! same fields. Every case file is valid under the schema, every broken
//! sample is refused by both, except the rules a JSON Schema cannot say,
//! which are listed here and checked to be the harness's alone (so a
//! schema that learns one shows up).

use std::path::Path;

use outbox_cases::CaseSpec;
use parity::table::{validate, Failure, Outcome, Row, Scenario};
use serde_json::Value;

mod common;

/// The shared good case, alone in a file.
fn good() -> String {
    format!(r#"{{"cases": [{}]}}"#, common::GOOD_CASE)
}

/// (what is broken, text replaced, replacement)
const BOTH_REFUSE: &[(&str, &str, &str)] = &[
    ("malformed JSON", r#""passes": 2,"#, r#""passes": 2,,"#),
    (
        "an unknown field",
        r#""passes": 2"#,
        r#""passes": 2, "pases": 2"#,
    ),
    (
        "an unknown field in a message",
        r#""type": "OrderPlaced"}"#,
        r#""type": "OrderPlaced", "payload": 1}"#,
    ),
    (
        "an unknown top-level field",
        r#"{"cases""#,
        r#"{"version": 2, "cases""#,
    ),
    ("a missing required field", r#""passes": 2,"#, ""),
    (
        "a missing description",
        r#""description": "A valid case to break one field at a time.","#,
        "",
    ),
    ("a wrong type", r#""passes": 2"#, r#""passes": "2""#),
    (
        "a boolean for an integer",
        r#""passes": 2"#,
        r#""passes": true"#,
    ),
    ("a fraction", r#""batch_size": 10"#, r#""batch_size": 10.5"#),
    (
        "null for a list",
        r#""journal": ["order-2 OrderPlaced", "order-1 OrderPlaced"]"#,
        r#""journal": null"#,
    ),
    ("batch_size 0", r#""batch_size": 10"#, r#""batch_size": 0"#),
    ("a negative id", r#"{"id": 1,"#, r#"{"id": -1,"#),
    (
        "an id above 2^53-1",
        r#"{"id": 2,"#,
        r#"{"id": 9007199254740992,"#,
    ),
    ("too many passes", r#""passes": 2"#, r#""passes": 1000001"#),
    (
        "a negative written_after_pass",
        r#""type": "OrderPlaced"}"#,
        r#""type": "OrderPlaced", "written_after_pass": -1}"#,
    ),
    ("a reserved name", r#""name": "good""#, r#""name": "unit""#),
    (
        "an unknown failure kind",
        r#""1": "down""#,
        r#""1": "timeout""#,
    ),
    (
        "a failure key with a leading zero",
        r#""1": "down""#,
        r#""01": "down""#,
    ),
    (
        "a failure key with a sign",
        r#""1": "down""#,
        r#""+1": "down""#,
    ),
    ("a failure key 0", r#""1": "down""#, r#""0": "down""#),
    ("a bad name", r#""name": "good""#, r#""name": "Good-Case""#),
    ("a reserved name", r#""name": "good""#, r#""name": "demo""#),
    (
        "a lone surrogate",
        r#""order-1", "type""#,
        r#""order-1\ud800", "type""#,
    ),
];

/// Rules only the harness can check, and why a schema cannot.
const HARNESS_ONLY: &[(&str, &str, &str)] = &[
    // JSON Schema's "integer" is any number with no fraction, 1.0 included.
    (
        "1.0 for an integer",
        r#""batch_size": 10"#,
        r#""batch_size": 10.0"#,
    ),
    // A parsed JSON value keeps one of two repeated keys.
    (
        "a repeated key",
        r#""passes": 2"#,
        r#""passes": 2, "passes": 3"#,
    ),
    // Order between array items is not expressible.
    ("ids not increasing", r#"{"id": 2,"#, r#"{"id": 1,"#),
    (
        "written_after_pass decreasing",
        r#"{"id": 1, "aggregate": "order-1", "type": "OrderPlaced"}"#,
        r#"{"id": 1, "aggregate": "order-1", "type": "OrderPlaced", "written_after_pass": 1}"#,
    ),
    // A number against the value of another field.
    (
        "written_after_pass after the last pass",
        r#"{"id": 2, "aggregate": "order-2", "type": "OrderPlaced"}"#,
        r#"{"id": 2, "aggregate": "order-2", "type": "OrderPlaced", "written_after_pass": 3}"#,
    ),
    // The length of one array against the value of another field.
    (
        "expect.sent not one list per pass",
        r#""sent": [[2], [1]]"#,
        r#""sent": [[2]]"#,
    ),
    // A numeric range on a property name.
    (
        "a failure key above 2^53-1",
        r#""1": "down""#,
        r#""9007199254740992": "down""#,
    ),
];

fn harness_refuses(text: &str) -> bool {
    let mut errors = Vec::new();
    validate::parse_file(Path::new("sample.json"), text, &mut errors);
    !errors.is_empty()
}

fn schema_refuses(validator: &jsonschema::Validator, text: &str) -> bool {
    match serde_json::from_str::<serde_json::Value>(text) {
        Err(_) => true,
        Ok(instance) => !validator.is_valid(&instance),
    }
}

fn validator() -> jsonschema::Validator {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(parity::repo_root().join("cases/schema.json")).unwrap(),
    )
    .unwrap();
    jsonschema::validator_for(&schema).expect("cases/schema.json is a valid JSON Schema")
}

fn broken(from: &str, to: &str) -> String {
    let good = good();
    assert!(good.contains(from), "{from:?} is not in the good sample");
    good.replacen(from, to, 1)
}

#[test]
fn every_case_file_is_valid_under_the_schema() {
    let validator = validator();
    assert!(!harness_refuses(&good()) && !schema_refuses(&validator, &good()));
    let dir = parity::repo_root().join("cases");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") && !path.ends_with("schema.json") {
            let instance: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&instance)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{}: {errors:?}", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 2);
}

#[test]
fn every_broken_sample_is_refused_by_both() {
    let validator = validator();
    for (what, from, to) in BOTH_REFUSE {
        let text = broken(from, to);
        assert!(harness_refuses(&text), "the harness accepts {what}");
        assert!(
            schema_refuses(&validator, &text),
            "the schema accepts {what}"
        );
    }
}

#[test]
fn the_rules_a_schema_cannot_say_are_the_harness_alone() {
    let validator = validator();
    for (what, from, to) in HARNESS_ONLY {
        let text = broken(from, to);
        assert!(harness_refuses(&text), "the harness accepts {what}");
        assert!(
            !schema_refuses(&validator, &text),
            "the schema now refuses {what}: move it to BOTH_REFUSE"
        );
    }
}

/// The model writes every field the schema knows and no other: a case with
/// every optional field set, serialized by the model, is valid under the
/// schema and has exactly the schema's fields, at every level.
#[test]
fn the_model_and_the_schema_know_the_same_fields() {
    let scenario = Scenario {
        batch_size: 1,
        messages: vec![Row {
            written_after_pass: 1,
            ..Row::new(1, "order-1", "OrderPlaced")
        }],
        failures: [(1, Failure::Down)].into(),
        passes: 1,
        restart_each_pass: true,
    };
    let expect = Outcome {
        sent: vec![vec![]],
        ..Outcome::default()
    };
    let spec = CaseSpec::new("every_field".into(), "d".into(), scenario, Some(expect));
    let case = serde_json::to_value(spec).unwrap();
    let file = serde_json::json!({"$schema": "./schema.json", "cases": [case]});
    assert!(validator().is_valid(&file));
    assert!(!harness_refuses(&file.to_string()));
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(parity::repo_root().join("cases/schema.json")).unwrap(),
    )
    .unwrap();
    let keys = |value: Option<&Value>| {
        let mut keys: Vec<String> = value
            .unwrap()
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        keys.sort();
        keys
    };
    let defs = "/$defs/case/properties";
    for (model, schema_fields) in [
        (&file["cases"][0], defs.to_owned()),
        (
            &file["cases"][0]["messages"][0],
            format!("{defs}/messages/items/properties"),
        ),
        (
            &file["cases"][0]["expect"],
            format!("{defs}/expect/properties"),
        ),
        (&file, "/properties".to_owned()),
    ] {
        assert_eq!(
            keys(Some(model)),
            keys(schema.pointer(&schema_fields)),
            "{schema_fields}"
        );
    }
}
