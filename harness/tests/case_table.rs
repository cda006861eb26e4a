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
use serde::Deserialize;
use serde_json::Value;

mod common;

use common::GOOD_CASE;

/// The good case, alone in a file, with `from` replaced by `to`.
fn broken(from: &str, to: &str) -> String {
    edit(format!(r#"{{"cases": [{GOOD_CASE}]}}"#), from, to)
}

/// `file` with `from` replaced by `to`, once.
fn edit(file: String, from: &str, to: &str) -> String {
    assert!(file.contains(from), "{from} is not in the file");
    file.replacen(from, to, 1)
}

fn schema() -> Value {
    common::read_json(&parity::repo_root().join("cases/schema.json"))
}

/// Who refuses a file: the schema, the harness alone (a schema cannot
/// say the rule), or nobody (the file is valid).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
enum By {
    Schema,
    Harness,
    Nobody,
}

/// `text`, as `cases/bad.json`, gets exactly the `expected` problems (each
/// after the file's name), and `cases/schema.json` alone (with serde_json,
/// which keeps one of two repeated keys) refuses it when `by` says so.
fn assert_problems(by: By, text: &str, expected: &[impl AsRef<str>]) {
    let bad = Path::new("cases/bad.json");
    let mut errors = Vec::new();
    let contract = parity::contract::Contract::repo().unwrap();
    let (file, _) = validate::parse(&contract, bad, text, &mut errors, false);
    let cases = file.cases;
    let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
    let in_bad = |e: &str| format!("{}: {e}", bad.display());
    let expected: Vec<String> = expected.iter().map(|e| in_bad(e.as_ref())).collect();
    assert_eq!(errors, expected, "{text:.300}");
    assert!(!errors.is_empty() || cases.len() == 1, "{text:.300}");
    let validator = jsonschema::validator_for(&schema()).expect("a valid JSON Schema");
    let refused = serde_json::from_str::<Value>(text).map_or(true, |v| !validator.is_valid(&v));
    assert_eq!(refused, by == By::Schema, "{by:?}: {text:.300}");
}

/// A file of `case_format.json`, in its words: how it is made, who refuses
/// it, and every problem the harness lists for it.
#[derive(Deserialize)]
struct File {
    by: By,
    #[serde(flatten)]
    text: Text,
    problems: Vec<String>,
}

/// How a file of `case_format.json` is made.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum Text {
    /// The good case's file with each first text replaced by the second.
    Edits(Vec<(String, String)>),
    /// The good case's file with a field added to the row at this index.
    Row(usize, String),
    /// The good case named by this character, so many times.
    Name(char, usize),
    /// A whole file.
    Whole(String),
}

impl Text {
    fn text(&self) -> String {
        match self {
            Text::Edits(edits) => {
                let edit = |file, (from, to): &(String, String)| edit(file, from, to);
                edits.iter().fold(broken("", ""), edit)
            }
            Text::Row(index, field) => {
                let end = format!(r#""order-{}", "type": "OrderPlaced""#, index + 1);
                broken(&end, &format!("{end}, {field}"))
            }
            Text::Name(c, count) => {
                broken("\"good\"", &format!("\"{}\"", c.to_string().repeat(*count)))
            }
            Text::Whole(text) => text.clone(),
        }
    }
}

/// Every rule, and whole files, each with every problem its file has
/// (`case_format.json`, plain data as JSON-Schema-Test-Suite's).
#[test]
fn each_file_gets_exactly_its_problems() {
    let files: Vec<File> = common::fixture("case_format.json", "files");
    assert!(files.len() > 50, "only {} files", files.len());
    for File { by, text, problems } in files {
        assert_problems(by, &text.text(), &problems);
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
    let extra = common::good_file(&dir, "extra.json");
    let settings = |file: &str| Settings {
        extra_cases: vec![dir.join(file)],
        ..Settings::default()
    };
    let suite = Suite::load(&parity::repo_root(), settings("extra.json")).expect("loads");
    let joined = suite.cases.iter().find(|c| c.name == "good");
    assert_eq!(joined.map(|c| &c.file), Some(&extra));

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
    for (model, at) in [
        ("", "/properties"),
        ("/cases/0", "/$defs/case/properties"),
        (
            "/cases/0/messages/0",
            "/$defs/case/properties/messages/items/properties",
        ),
        ("/cases/0/expect", "/$defs/outcome/properties"),
    ] {
        let known = fields(schema().pointer(at).unwrap());
        assert_eq!(fields(file.pointer(model).unwrap()), known, "{at}");
    }
}
