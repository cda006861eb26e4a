//! Adding a case takes a JSON edit and `make bless`: the reference fills in
//! `expect`, and nothing else in the file changes.

use std::path::{Path, PathBuf};

use parity::config::Settings;
use parity::suite::Suite;
use parity::table as case;
use parity::table::bless::{bless_file, new_case, Which};

const WITHOUT_EXPECT: &str = r#"{
  "$schema": "./schema.json",
  "cases": [
    {
      "name": "kept_as_it_is",
      "description": "Already blessed; must come out unchanged.",
      "batch_size": 2,
      "messages": [{"id": 1, "aggregate": "order-1", "type": "OrderPlaced"}],
      "passes": 1,
      "expect": {"sent": [[1]], "journal": ["order-1 OrderPlaced"], "duplicates": 0}
    },
    {
      "name": "lost_ack_again",
      "description": "The seed lost-ack case, written without its expect.",
      "batch_size": 10,
      "messages": [
        {"id": 1, "aggregate": "order-1", "type": "OrderPlaced"},
        {"id": 2, "aggregate": "order-2", "type": "OrderPlaced"},
        {"id": 3, "aggregate": "order-1", "type": "OrderPaid"}
      ],
      "failures": {"1": "lost_ack"},
      "passes": 2
    }
  ]
}
"#;

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = parity::repo_root().join("target/parity/tests/bless");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn settings(file: &Path) -> Settings {
    Settings {
        extra_cases: vec![file.to_path_buf()],
        ..Settings::default()
    }
}

#[test]
fn a_case_without_expect_stops_make_test_with_a_pointer_to_make_bless() {
    let file = scratch("unblessed.json", WITHOUT_EXPECT);
    let message = Suite::load(&parity::repo_root(), settings(&file)).unwrap_err();
    assert!(
        message.contains(
            "case `lost_ack_again`: field `expect`: required field is missing: run `make bless`"
        ),
        "{message}"
    );
}

#[test]
fn bless_writes_the_references_expect_and_changes_nothing_else() {
    let file = scratch("bless.json", WITHOUT_EXPECT);
    assert_eq!(
        bless_file(&file, Which::Missing).unwrap(),
        ["lost_ack_again"]
    );
    let text = std::fs::read_to_string(&file).unwrap();
    // SPEC.md's table for the lost ack: [2], [1, 3]; journal in delivery order; one duplicate.
    let blessed = r#"      "passes": 2,
      "expect": {
        "sent": [[2], [1, 3]],
        "journal": ["order-1 OrderPlaced", "order-2 OrderPlaced", "order-1 OrderPaid"],
        "duplicates": 1
      }
    }"#;
    assert_eq!(
        text,
        WITHOUT_EXPECT.replace("      \"passes\": 2\n    }", blessed)
    );
    let cases = case::load(std::slice::from_ref(&file)).expect("the blessed file is valid");
    assert_eq!(cases[1].expect.duplicates, 1);

    assert_eq!(
        bless_file(&file, Which::Missing).unwrap(),
        Vec::<String>::new(),
        "nothing left to bless"
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        text,
        "a second bless changes nothing"
    );
}

#[test]
fn bless_all_recomputes_a_wrong_expect() {
    let wrong = WITHOUT_EXPECT.replace(r#""sent": [[1]]"#, r#""sent": [[]]"#);
    let file = scratch("bless-all.json", &wrong);
    assert_eq!(
        bless_file(&file, Which::Missing).unwrap(),
        ["lost_ack_again"]
    );
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .contains(r#""sent": [[]]"#),
        "Missing leaves it"
    );
    assert_eq!(bless_file(&file, Which::All).unwrap(), ["kept_as_it_is"]);
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains(r#""sent": [[1]]"#));
}

#[test]
fn bless_leaves_a_broken_file_alone() {
    let broken = WITHOUT_EXPECT.replace(r#""batch_size": 10"#, r#""batch_size": 0"#);
    let file = scratch("broken.json", &broken);
    let error = bless_file(&file, Which::Missing).unwrap_err();
    assert!(
        error.contains("case `lost_ack_again`: field `batch_size`: must be from 1"),
        "{error}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), broken);
}

#[test]
fn new_case_starts_from_a_template_that_must_be_described_before_blessing() {
    let file = scratch("new.json", WITHOUT_EXPECT);
    let existing = case::load(&[parity::repo_root().join("cases")]).unwrap();
    assert!(new_case(&file, "lost_ack", &existing)
        .unwrap_err()
        .contains("already in"));
    new_case(&file, "my_new_case", &existing).unwrap();
    let error = bless_file(&file, Which::Missing).unwrap_err();
    assert!(
        error.contains("case `my_new_case`: field `description`: still holds the template's TODO"),
        "{error}"
    );
    let described = std::fs::read_to_string(&file).unwrap().replace(
        "TODO: what this case shows, in a sentence or two.",
        "The template as it comes.",
    );
    std::fs::write(&file, described).unwrap();
    assert_eq!(
        bless_file(&file, Which::Missing).unwrap(),
        ["lost_ack_again", "my_new_case"]
    );
}
