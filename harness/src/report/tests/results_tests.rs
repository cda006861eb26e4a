//! The results file, the diff against a base and the Markdown summary.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::super::*;
use super::{every_state, report, row, scratch};
use crate::config::Kind;
use crate::fault::FaultKind;
use crate::judge::known_failures::{self, KnownFailures, PLACEHOLDER};
use results::{Results, State};
use trial::RowId;

fn schema() -> serde_json::Value {
    let path = crate::repo_root().join("harness/results.schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn results_validator() -> jsonschema::Validator {
    jsonschema::validator_for(&schema())
        .expect("harness/results.schema.json is a valid JSON Schema")
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
        "pass wrong_answer runner_fault not_run known_failure stale_known_failure harness_fault \
         not_run pass"
    );
    // The fields tools outside the harness read (`make mutants`).
    let fields = |t: usize| ["kind", "case", "verdict"].map(|f| value["trials"][t][f].clone());
    assert_eq!(fields(1), ["case", "lost_ack", "fail"]);
    assert_eq!(fields(4), ["generated", "generated", "known_failure"]);
    let validator = results_validator();
    validator
        .validate(&value)
        .expect("the results file is valid");
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
        let listed = schema()["properties"]["trials"]["items"]["properties"][field]["enum"].take();
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
    let dir = scratch("results");
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
    let mut older = value.clone();
    for trial in older["trials"].as_array_mut().unwrap() {
        let trial = trial.as_object_mut().unwrap();
        trial.remove("text");
        trial.remove("time_ms");
    }
    assert!(results_validator().is_valid(&older));
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
    // A state or a kind it does not know reads as a harness fault (a
    // change, shown) and as a row of that name.
    newer["trials"][0]["state"] = serde_json::json!("added_later");
    newer["trials"][4]["kind"] = serde_json::json!("added_later");
    let read = load(&newer).unwrap();
    assert_eq!(read.trials[0].state, State::HarnessFault);
    assert_eq!(read.trials[4].row, RowId::Case("generated".into()));
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
    assert_eq!(
        narrower.note.as_deref(),
        Some(
            "the base ran every trial, this run `go`: only the cells both ran are compared \
             (2 left out)"
        )
    );
    let cells: Vec<String> = narrower.changes.iter().map(diff::Change::cell).collect();
    assert_eq!(cells, ["rust/lost_ack", "go/lost_ack"], "{narrower:?}");
    assert!(diff::text(&narrower).starts_with("parity: the base ran every trial"));

    now.base = Some(compared);
    let page = render(&now);
    let changes = &page[page
        .find("<section id=\"changes\">")
        .expect("the changes first")..];
    assert!(page.find("<section id=\"changes\">") < page.find("<section id=\"summary\">"));
    assert!(changes
        .contains("<a href=\"#r-lost_ack--rust\">rust/lost_ack</a>: ✓ pass → ✗ wrong answer"));
    assert!(changes.contains("<b>rust/unit</b>: gone"));
    let markdown = markdown::summary(&now);
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
    let wrong = [("go", State::WrongAnswer, "a | b\nsecond line")];
    r.results.trials[3] = row("batch_of_two", "", None, &wrong).1.remove(0);
    let markdown = markdown::summary(&r);
    assert!(markdown.starts_with("## Parity: commit `4122aa5`\n"));
    assert!(markdown.contains("### Failures: 5\n"), "{markdown}");
    assert!(markdown.contains(
        "- `rust/batch_of_two`: ⚠ runner fault: `batch_of_two`: runner fault: crashed\n"
    ));
    assert!(markdown.contains("- `go/batch_of_two`: ✗ wrong answer: a \\| b\n"));
    // The matrix shows the symbol alone: there too a wrong answer, a
    // runner fault, a stale known failure and a harness fault differ.
    assert!(markdown.contains(
        "| case | rust | go |\n|---|---|---|\n| lost_ack | ✓ | ✗ |\n| batch_of_two | ⚠ | ✗ |\n\
         | generated | ! | ↻ |\n| unit | ⊗ | – |\n| demo | ✓ | · |\n"
    ));
    assert!(!markdown.contains("Changed since"));
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

/// A base file whose commit, case name and reason carry a lone `\r`, an
/// escape sequence, U+202E and a newline, each followed by what would read
/// as a heading of its own: the terminal's lines and the Markdown summary
/// show them as codes, and no line they print starts with the base's
/// heading.
#[test]
fn a_base_files_control_characters_act_neither_on_the_terminal_nor_in_the_summary() {
    let mut now = report(vec![row("lost_ack", "", None, &[("go", State::Pass, "")])]);
    let hostile = "x\r## Fake heading \u{1b}[2J\u{202e}kcatta\n# Another";
    let wrong = [("go", State::WrongAnswer, hostile)];
    let mut base = report(vec![
        row("lost_ack", "", None, &wrong),
        row(hostile, "", None, &wrong),
    ])
    .results;
    base.run.commit = hostile.into();
    for trial in &mut base.trials {
        trial.summary = Some(hostile.into());
    }
    // Through a file, as `PARITY_BASE` reads it.
    let path = scratch("hostile-base").join("results.json");
    base.write(&path).unwrap();
    let base = Results::load(&path).unwrap();
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();

    let compared = diff::compare(&base, &now.results);
    assert_eq!(compared.changes.len(), 2, "{compared:?}");
    let terminal = diff::text(&compared);
    now.base = Some(compared);
    let summary = markdown::summary(&now);
    for out in [&terminal, &summary] {
        let raw: Vec<char> = out
            .chars()
            .filter(|&c| (c.is_control() && c != '\n') || c == '\u{202e}')
            .collect();
        assert!(raw.is_empty(), "raw {raw:?} in {out:?}");
        // A lone `\r` ends a line in Markdown, and returns to the start of
        // one on a terminal.
        for line in out.split(['\n', '\r']).map(str::trim_start) {
            let heading = line.starts_with("## Fake") || line.starts_with("# Another");
            assert!(!heading, "a heading of the base's: {line:?} in {out:?}");
        }
    }
    let shown = r"x\r## Fake heading \u{1b}[2J\u{202e}kcatta\n# Another";
    let gone = format!("go/{shown}: gone (was ✗ wrong answer): {shown}\n");
    for line in [
        format!("(commit {shown})"),
        "  go/lost_ack: ✗ wrong answer → ✓ pass\n".to_owned(),
        format!("  {gone}"),
    ] {
        assert!(terminal.contains(&line), "{line} in {terminal}");
    }
    assert!(
        summary.contains(&format!("- `{}", gone.replacen(':', "`:", 1))),
        "{summary}"
    );
}
