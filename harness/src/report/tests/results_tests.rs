//! The results file, the diff against a base and the Markdown summary.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::super::*;
use super::{every_state, row};
use crate::config::{scratch_dir, Kind};
use crate::fault::FaultKind;
use crate::judge::known_failures::{self, KnownFailures, PLACEHOLDER};
use results::{Results, State};
use trial::RowId;

/// `harness/results.schema.json`, and its validator.
fn schema() -> (serde_json::Value, jsonschema::Validator) {
    let path = crate::repo_root().join("harness/results.schema.json");
    let schema = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("a valid JSON Schema");
    (schema, validator)
}

#[test]
fn the_results_file_holds_every_trial_that_ran_and_its_schema_agrees() {
    let results = every_state().results;
    assert_eq!(results.trials.len(), 9, "the demo's go cell did not run");
    let value: serde_json::Value = serde_json::to_value(&results).unwrap();
    // A state is written as its id, the page's `data-status` (the Markdown
    // test shows each state's symbol its own).
    let states = value["trials"].as_array().unwrap().iter();
    let states: Vec<&str> = states.map(|t| t["state"].as_str().unwrap()).collect();
    let ids: Vec<&str> = results.trials.iter().map(|t| t.state.id()).collect();
    assert_eq!(states, ids);
    assert_eq!(
        states.join(" "),
        "pass wrong_answer runner_fault unsupported known_failure stale_known_failure \
         harness_fault not_run pass"
    );
    // The fields tools outside the harness read (`make mutants`).
    let fields = |t: usize| ["kind", "case", "verdict"].map(|f| value["trials"][t][f].clone());
    assert_eq!(fields(1), ["case", "lost_ack", "fail"]);
    assert_eq!(fields(4), ["generated", "generated", "known_failure"]);
    let (schema, validator) = schema();
    validator.validate(&value).unwrap();
    // The schema can refuse: a state the format does not know, a pass with
    // a reason, a failure without one.
    let refused = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut broken = value.clone();
        edit(&mut broken["trials"]);
        !validator.is_valid(&broken)
    };
    assert!(refused(&|t| t[0]["state"] = "flaky".into()));
    assert!(refused(&|t| t[0]["summary"] = "a pass has no reason".into()));
    assert!(refused(&|t| drop(
        t[1].as_object_mut().unwrap().remove("summary")
    )));
    // The schema's trial kinds are the harness's (a case, or one of
    // `Kind::ALL`): the `protocol` kind was written by every run and
    // refused by the schema, which listed the kinds by hand. So are its
    // fault kinds (a runner's, or a failed build).
    let listed = |field: &str| {
        let listed = schema["properties"]["trials"]["items"]["properties"][field]["enum"].clone();
        serde_json::from_value::<BTreeSet<String>>(listed).unwrap()
    };
    let kinds = Kind::ALL.iter().map(|k| k.name()).chain(["case"]);
    assert_eq!(listed("kind"), kinds.map(str::to_owned).collect());
    let faults = FaultKind::IDS.into_iter().chain([results::BUILD_FAILED]);
    assert_eq!(listed("fault"), faults.map(str::to_owned).collect());
}

/// The file reads back as written, refuses what is not a results file, and
/// still reads a file of an older harness (CI's base from main) or a newer
/// one (whose fields it ignores, whose states and kinds it does not know).
#[test]
fn a_results_file_reads_back_and_so_does_an_older_or_a_newer_ones() {
    let results = every_state().results;
    let value: serde_json::Value = serde_json::to_value(&results).unwrap();
    let dir = scratch_dir("report-results");
    let path = dir.join("results.json");
    let load = |value: &serde_json::Value| {
        std::fs::write(&path, value.to_string()).unwrap();
        Results::load(&path)
    };
    results.write(&path).unwrap();
    assert_eq!(Results::load(&path).unwrap(), results);
    let err = load(&serde_json::json!({"version": 1, "commit": "x"})).unwrap_err();
    assert!(
        err.contains("results.json") && err.contains("missing field"),
        "{err}"
    );
    // A file of a harness before the reason's text and the time were kept
    // (CI's base from main) still loads.
    // Nor the features (main's before issue 39).
    let mut older = value.clone();
    for trial in older["trials"].as_array_mut().unwrap() {
        let trial = trial.as_object_mut().unwrap();
        trial.remove("text");
        trial.remove("time_ms");
    }
    older.as_object_mut().unwrap().remove("features");
    for toolchain in older["toolchains"].as_array_mut().unwrap() {
        toolchain.as_object_mut().unwrap().remove("features");
    }
    assert!(schema().1.is_valid(&older));
    let read = load(&older).unwrap();
    assert_eq!(
        (read.trials[1].text.as_deref(), &read.trials[1].summary),
        (None, &results.trials[1].summary)
    );
    // A newer harness's optional field (as `fault` and `log` once were)
    // keeps the file readable as a base.
    let mut newer = value.clone();
    newer["trials"][0]["added_later"] = serde_json::json!("x");
    newer["added_later"] = serde_json::json!({"x": 1});
    assert_eq!(load(&newer).unwrap(), results);
    // A state or a kind it does not know reads as that state, by its name
    // (a change, shown as what it is), and as a row of that name.
    newer["trials"][0]["state"] = serde_json::json!("flaky");
    newer["trials"][4]["kind"] = serde_json::json!("added_later");
    let read = load(&newer).unwrap();
    assert_eq!(read.trials[0].state, State::Unknown("flaky".into()));
    assert_eq!(read.trials[4].row, RowId::Case("generated".into()));
    let flipped = diff::text(&diff::compare(&read, &results));
    let named = "rust/lost_ack: ? unknown state \"flaky\" → ✓ pass";
    assert!(flipped.contains(named), "{flipped}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Only the cells that flipped are listed, by the terminal, the page
/// (before its summary, each linking to its cell) and the Markdown
/// summary; against a base of another filter, only the cells both ran.
#[test]
fn the_diff_lists_exactly_the_cells_that_flipped() {
    let base = every_state().results;
    let same = diff::compare(&base, &base);
    assert!(same.changes.is_empty());
    assert_eq!(
        diff::text(&same),
        "parity: no change since the base (commit 4122aa5).\n"
    );

    // Four flips: rust and go trade their lost_ack results, go/demo is new,
    // rust/unit is gone.
    let mut now = every_state();
    let trials = &mut now.results.trials;
    trials[0].language = "go".into();
    trials[1].language = "rust".into();
    trials.swap(0, 1);
    trials.retain(|t| !(t.language == "rust" && t.row == RowId::Kind(Kind::Unit)));
    trials.extend(row("demo", "", None, &[("go", State::Pass, "")]).1);
    let compared = diff::compare(&base, &now.results);
    assert_eq!(
        diff::text(&compared),
        "parity: changed since the base (commit 4122aa5): 4 cell(s)\n\
         \x20 rust/lost_ack: ✓ pass → ✗ wrong answer: `lost_ack`: the result differs from expect\n\
         \x20 go/lost_ack: ✗ wrong answer → ✓ pass\n\
         \x20 go/demo: new: ✓ pass\n\
         \x20 rust/unit: gone (was ⊗ harness fault): the reference failed\n"
    );
    assert_eq!(compared.note, None);

    // Run with the filter `go`, against a base that ran everything: a cell
    // only one of them selected is neither new nor gone.
    let mut filtered = now.results.clone();
    filtered.run.filter = "go".into();
    let narrower = diff::compare(&base, &filtered);
    let note = "the base ran every trial, this run `go`: only the cells both ran are compared \
                (2 left out)";
    assert_eq!(narrower.note.as_deref(), Some(note));
    let cells: Vec<String> = narrower.changes.iter().map(diff::Change::cell).collect();
    assert_eq!(cells, ["rust/lost_ack", "go/lost_ack"], "{narrower:?}");
    assert!(diff::text(&narrower).starts_with("parity: the base ran every trial"));

    now.base = Some(compared);
    let page = render(&now);
    let at = page.find("<section id=\"changes\">");
    assert!(
        at.is_some() && at < page.find("<section id=\"summary\">"),
        "the changes first"
    );
    let (changes, markdown) = (&page[at.unwrap_or_default()..], markdown::summary(&now));
    for (out, shown) in [
        (changes, "<a href=\"#r-lost_ack--rust\">rust/lost_ack</a>: ✓ pass → ✗ wrong answer"),
        (changes, "<b>rust/unit</b>: gone"),
        (&markdown, "### Changed since the base (commit `4122aa5`): 4 cell(s)"),
        (&markdown, "- `rust/lost_ack`: ✓ pass → ✗ wrong answer: `lost_ack`: the result differs from expect"),
    ] {
        assert!(out.contains(shown), "{shown} in {out}");
    }
}

#[test]
fn the_markdown_summary_has_the_matrix_the_failures_and_their_reasons() {
    let markdown = markdown::summary(&every_state());
    assert!(markdown.starts_with("## Parity: commit `4122aa5`\n"));
    assert!(!markdown.contains("Changed since"));
    for shown in [
        "### Failures: 4\n",
        "- `rust/batch_of_two`: ⚠ runner fault: `batch_of_two`: runner fault: crashed\n",
        // A failure's first line, its `|` escaped.
        "- `go/generated`: ↻ stale known failure: known failure `generated` \\| passes now\n",
        // The matrix shows the symbol alone: there too a wrong answer, a
        // runner fault, a stale known failure and a harness fault differ.
        "| case | rust | go |\n|---|---|---|\n| lost_ack | ✓ | ✗ |\n| batch_of_two | ⚠ | ⊘ |\n\
         | generated | ! | ↻ |\n| unit | ⊗ | – |\n| demo | ✓ | · |\n",
    ] {
        assert!(markdown.contains(shown), "{shown} in {markdown}");
    }
}

#[test]
fn the_known_failure_lists_are_told_what_to_add_and_remove_and_rewritten() {
    // go fails lost_ack (not listed), its stale generated entry passes now;
    // rust's harness fault and go's missing toolchain are not a port's.
    let results = every_state().results;
    let known_list = |entries: [(&str, &str); 2]| -> KnownFailures {
        entries.map(|(k, v)| (k.to_owned(), v.to_owned())).into()
    };
    let go = known_list([("generated", "issue 7"), ("filtered_out", "issue 8")]);
    let lists = HashMap::from([("go".to_owned(), go)]);
    let names = HashSet::from(["lost_ack", "batch_of_two", "filtered_out"]);
    let advice = known::advice(&results, &lists, &names);
    let disagree = |list: &str, language: &str| {
        format!("parity: {list} and this run disagree (make known-failures LANG={language} rewrites it):\n")
    };
    assert_eq!(
        advice,
        disagree(&known_failures::path("rust").display().to_string(), "rust")
            + "  add    \"batch_of_two\": why it fails (`batch_of_two`: runner fault: crashed)\n"
            + &disagree("runners/go/known-failures.json", "go")
            + "  add    \"lost_ack\": why it fails (`lost_ack`: the result differs from expect)\n  \
               remove \"generated\": it passes now\n"
    );

    let (list, notes) = known::rewrite(&results, "go", &lists["go"], &names);
    let rewritten = known_list([("filtered_out", "issue 8"), ("lost_ack", PLACEHOLDER)]);
    assert_eq!(list, rewritten);
    assert_eq!(notes.len(), 2, "{notes:?}");
}
