//! The results file, the diff against a base and the Markdown summary.

use super::super::*;
use super::{kind_row, lost_ack, report, row};
use crate::config::Kind;

/// A report with every state, one cell each, plus a cell not selected.
fn every_state() -> Report {
    let fail = |kind, text: &str| Cell::Fail(kind, text.to_string());
    let mut r = report(vec![
        row(
            "lost_ack",
            Some(lost_ack()),
            &[
                ("rust", Cell::Pass),
                (
                    "go",
                    fail(
                        ReasonKind::WrongAnswer,
                        "`lost_ack`: the result differs from expect\n\ndiff",
                    ),
                ),
            ],
        ),
        row(
            "batch_of_two",
            Some(lost_ack()),
            &[
                (
                    "rust",
                    fail(
                        ReasonKind::RunnerFault,
                        "`batch_of_two`: runner fault: crashed",
                    ),
                ),
                ("go", Cell::Ignored("go is not installed".into())),
            ],
        ),
        kind_row(
            Kind::Generated,
            &[
                ("rust", Cell::KnownFailure("issue 3".into())),
                (
                    "go",
                    fail(
                        ReasonKind::StaleKnownFailure,
                        "known failure `generated` passes now",
                    ),
                ),
            ],
        ),
        kind_row(
            Kind::Unit,
            &[
                (
                    "rust",
                    fail(ReasonKind::HarnessFault, "the reference failed"),
                ),
                (
                    "go",
                    fail(ReasonKind::NotRun, "the go toolchain is missing"),
                ),
            ],
        ),
        kind_row(Kind::Demo, &[("rust", Cell::Pass)]),
    ]);
    r.languages = vec!["rust".into(), "go".into()];
    r
}

fn results_validator() -> jsonschema::Validator {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(crate::repo_root().join("harness/results.schema.json")).unwrap(),
    )
    .unwrap();
    jsonschema::validator_for(&schema).expect("harness/results.schema.json is a valid JSON Schema")
}

#[test]
fn the_results_file_holds_every_trial_that_ran_and_its_schema_agrees() {
    let results = results::Results::of(&every_state(), &[]);
    assert_eq!(results.trials.len(), 9, "the demo's go cell did not run");
    let states: Vec<&str> = results.trials.iter().map(|e| e.state.id()).collect();
    assert_eq!(
        states,
        [
            "pass",
            "wrong_answer",
            "runner_fault",
            "not_run",
            "known_failure",
            "stale_known_failure",
            "harness_fault",
            "not_run",
            "pass"
        ]
    );
    assert_eq!(
        results.trials[1].summary.as_deref(),
        Some("`lost_ack`: the result differs from expect")
    );
    assert_eq!(results.trials[1].kind, "case");
    assert_eq!(results.trials[4].kind, "generated");
    let value: serde_json::Value = serde_json::from_str(&results.to_json()).unwrap();
    let validator = results_validator();
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    // The schema can refuse: a state the format does not know, a pass with
    // a reason, a failure without one.
    for (field, bad) in [
        ("state", serde_json::json!("flaky")),
        ("summary", serde_json::json!("a pass has no reason")),
    ] {
        let mut broken = value.clone();
        broken["trials"][0][field] = bad;
        assert!(!validator.is_valid(&broken), "{field}");
    }
    let mut broken = value.clone();
    broken["trials"][1]
        .as_object_mut()
        .unwrap()
        .remove("summary");
    assert!(!validator.is_valid(&broken));

    let dir = crate::repo_root()
        .join("target/parity/report-unit")
        .join(format!("results-{}", std::process::id()));
    let path = dir.join("results.json");
    results.write(&path).unwrap();
    assert_eq!(results::Results::load(&path).unwrap(), results);
    std::fs::write(&path, r#"{"version": 1, "commit": "x"}"#).unwrap();
    let err = results::Results::load(&path).unwrap_err();
    assert!(
        err.contains("results.json") && err.contains("missing field"),
        "{err}"
    );
    // A newer harness's optional field (as `fault` and `log` once were)
    // keeps the file readable as a base.
    let mut newer = value.clone();
    newer["trials"][0]["added_later"] = serde_json::json!("x");
    newer["added_later"] = serde_json::json!({"x": 1});
    std::fs::write(&path, newer.to_string()).unwrap();
    assert_eq!(results::Results::load(&path).unwrap(), results);
    // A state it does not know reads as a harness fault: a change, shown.
    newer["trials"][0]["state"] = serde_json::json!("added_later");
    std::fs::write(&path, newer.to_string()).unwrap();
    let read = results::Results::load(&path).unwrap();
    assert_eq!(read.trials[0].state, State::HarnessFault);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_diff_lists_exactly_the_cells_that_flipped() {
    let base = results::Results::of(&every_state(), &[]);
    let same = diff::compare(&base, &base);
    assert!(same.changes.is_empty());
    assert_eq!(
        diff::text(&same),
        "parity: no change since the base (commit 4122aa5).\n"
    );

    let mut now = four_flips();
    let base_of_now = diff::compare(&base, &results::Results::of(&now, &[]));
    let what: Vec<(String, String)> = base_of_now
        .changes
        .iter()
        .map(|c| (c.cell(), c.what()))
        .collect();
    assert_eq!(
        what,
        [
            (
                "rust/lost_ack".to_string(),
                "✓ pass → ✗ wrong answer".to_string()
            ),
            (
                "go/lost_ack".to_string(),
                "✗ wrong answer → ✓ pass".to_string()
            ),
            ("go/demo".to_string(), "new: ✓ pass".to_string()),
            (
                "rust/unit".to_string(),
                "gone (was ⊗ harness fault)".to_string()
            ),
        ]
    );
    assert_eq!(base_of_now.filter_note(), None);
    a_narrower_filter_compares_only_what_both_ran(&base, &now);
    let text = diff::text(&base_of_now);
    assert!(text.contains("  rust/lost_ack: ✓ pass → ✗ wrong answer: `lost_ack`: the result differs from expect\n"), "{text}");
    now.base = Some(base_of_now);
    the_page_and_the_summary_list_the_changes(&now);
}

/// [`every_state`] with four cells changed: rust/lost_ack fails, go/lost_ack
/// and go/demo pass, rust/unit did not run.
fn four_flips() -> Report {
    let mut now = every_state();
    now.rows[0].cells.insert(
        "rust".into(),
        Cell::Fail(
            ReasonKind::WrongAnswer,
            "`lost_ack`: the result differs from expect".into(),
        ),
    );
    now.rows[0].cells.insert("go".into(), Cell::Pass);
    now.rows[4].cells.insert("go".into(), Cell::Pass);
    now.rows[3].cells.remove("rust");
    now
}

/// `now` run with the filter `go` against a base that ran everything: the
/// note says so, and a cell only one of them selected is neither new nor
/// gone.
fn a_narrower_filter_compares_only_what_both_ran(base: &results::Results, now: &Report) {
    let mut filtered = results::Results::of(now, &[]);
    filtered.run.filter = "go".into();
    let narrower = diff::compare(base, &filtered);
    assert_eq!(
        narrower.filter_note().as_deref(),
        Some(
            "the base ran every trial, this run `go`: only the cells both ran are compared \
             (2 left out)"
        )
    );
    // A cell only one of the two filters selected is neither new nor gone;
    // the cells both ran still show their flips.
    let cells: Vec<String> = narrower.changes.iter().map(diff::Change::cell).collect();
    assert_eq!(cells, ["rust/lost_ack", "go/lost_ack"], "{narrower:?}");
    assert!(diff::text(&narrower).starts_with("parity: the base ran every trial"));
}

/// The page lists `report`'s changes before its summary, each linking to
/// its cell, and the Markdown summary counts and lists them.
fn the_page_and_the_summary_list_the_changes(report: &Report) {
    let page = render(report);
    let changes = &page[page
        .find("<section id=\"changes\">")
        .expect("the changes first")..];
    assert!(page.find("<section id=\"changes\">") < page.find("<section id=\"summary\">"));
    assert!(changes
        .contains("<a href=\"#r-lost_ack--rust\">rust/lost_ack</a>: ✓ pass → ✗ wrong answer"));
    assert!(changes.contains("<b>rust/unit</b>: gone"));
    let markdown = markdown::summary(report);
    assert!(
        markdown.contains("### Changed since the base (commit `4122aa5`): 4 cell(s)"),
        "{markdown}"
    );
    assert!(markdown.contains(
        "- `rust/lost_ack`: ✓ pass → ✗ wrong answer: `lost_ack`: the result differs from expect"
    ));
}

#[test]
fn the_markdown_summary_has_the_matrix_the_failures_and_their_reasons() {
    let mut r = every_state();
    r.rows[1].cells.insert(
        "go".into(),
        Cell::Fail(ReasonKind::WrongAnswer, "a | b\nsecond line".into()),
    );
    let markdown = markdown::summary(&r);
    assert!(markdown.starts_with("## Parity: commit `4122aa5`\n"));
    assert!(markdown.contains("### Failures: 6\n"), "{markdown}");
    assert!(markdown.contains(
        "- `rust/batch_of_two`: ⚠ runner fault: `batch_of_two`: runner fault: crashed\n"
    ));
    assert!(markdown.contains("- `go/batch_of_two`: ✗ wrong answer: a \\| b\n"));
    assert!(markdown.contains(
        "| case | rust | go |\n|---|---|---|\n| lost_ack | ✓ | ✗ |\n| batch_of_two | ⚠ | ✗ |\n"
    ));
    assert!(markdown.contains("| demo | ✓ | · |"));
    assert!(!markdown.contains("Changed since"));
}

#[test]
fn the_known_failure_lists_are_told_what_to_add_and_remove_and_rewritten() {
    // go fails lost_ack (not listed), its stale generated entry passes now;
    // rust's harness fault and go's missing toolchain are not a port's.
    let results = results::Results::of(&every_state(), &[]);
    let lists = std::collections::HashMap::from([(
        "go".to_string(),
        crate::judge::known_failures::KnownFailures::from([
            ("generated".to_string(), "issue 7".to_string()),
            ("filtered_out".to_string(), "issue 8".to_string()),
        ]),
    )]);
    let names = std::collections::HashSet::from(["lost_ack", "batch_of_two", "filtered_out"]);
    let advice = known::advice(&results, &lists, &names);
    let short: Vec<(&str, Vec<&str>, Vec<&str>)> = advice
        .iter()
        .map(|a| {
            (
                a.language.as_str(),
                a.add.iter().map(|(c, _)| c.as_str()).collect(),
                a.remove.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        short,
        [
            ("go", vec!["lost_ack"], vec!["generated"]),
            ("rust", vec!["batch_of_two"], vec![])
        ]
    );
    let text = known::text(&advice);
    assert!(text.contains("parity: runners/go/known-failures.json and this run disagree (make known-failures LANG=go rewrites it):\n  add    \"lost_ack\": why it fails (`lost_ack`: the result differs from expect)\n  remove \"generated\": it passes now\n"), "{text}");

    let (list, notes) = known::rewrite(&results, "go", &lists["go"], &names);
    assert_eq!(
        list,
        crate::judge::known_failures::KnownFailures::from([
            ("filtered_out".to_string(), "issue 8".to_string()),
            (
                "lost_ack".to_string(),
                crate::judge::known_failures::PLACEHOLDER.to_string()
            ),
        ])
    );
    assert_eq!(notes.len(), 2, "{notes:?}");
    // The placeholder keeps the list from being used until it says why.
    let root = crate::repo_root()
        .join("target/parity/report-unit")
        .join(format!("known-{}", std::process::id()));
    std::fs::create_dir_all(root.join("runners/go")).unwrap();
    std::fs::write(
        root.join("runners/go/known-failures.json"),
        known::to_json(&list),
    )
    .unwrap();
    let err = crate::judge::known_failures::load(&root, "go", &names).unwrap_err();
    assert!(
        err.contains("`lost_ack` still has the placeholder reason"),
        "{err}"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

/// Every trial kind the harness has is one the schema allows (a case, or
/// one of [`crate::config::Kind::ALL`]): the `protocol` kind was written by
/// every run and refused by the schema, which listed the kinds by hand.
#[test]
fn the_schema_allows_every_trial_kind() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(crate::repo_root().join("harness/results.schema.json")).unwrap(),
    )
    .unwrap();
    let listed = schema
        .pointer("/properties/trials/items/properties/kind/enum")
        .and_then(|v| v.as_array())
        .expect("the schema lists the trial kinds");
    let mut listed: Vec<&str> = listed.iter().filter_map(|v| v.as_str()).collect();
    let mut kinds: Vec<&str> = crate::config::Kind::ALL.iter().map(|k| k.name()).collect();
    kinds.push("case");
    listed.sort_unstable();
    kinds.sort_unstable();
    assert_eq!(listed, kinds);
}
