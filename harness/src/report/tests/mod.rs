//! The report's self-tests: the page (this file), the pictures and the
//! trace they are drawn from, and the results file with what is made from
//! it (diff, Markdown).

use std::collections::BTreeMap;

use super::markup::escape;
use super::results::{Outcome, RunRecord, State, Toolchain, TrialResult, VERSION};
use super::trial::{RowId, TrialId};
use super::*;

mod picture_tests;
mod results_tests;
mod trace_tests;

pub(super) fn message(id: u64, aggregate: &str, event_type: &str, after: u64) -> crate::table::Row {
    crate::table::Row {
        written_after_pass: after,
        ..crate::table::Row::new(id, aggregate, event_type)
    }
}

/// SPEC.md's lost-ack story with one row written after pass 1.
pub(super) fn lost_ack() -> Scenario {
    Scenario {
        batch_size: 10,
        messages: vec![
            message(1, "order-1", "OrderPlaced", 0),
            message(2, "order-2", "OrderPlaced", 0),
            message(3, "order-1", "OrderPaid", 0),
            message(4, "order-1", "OrderShipped", 1),
        ],
        failures: BTreeMap::from([(1, Failure::LostAck), (2, Failure::Down)]),
        passes: 3,
        ..Default::default()
    }
}

/// A fresh folder for a test's files, under `target/parity/report-unit`.
pub(super) fn scratch(name: &str) -> std::path::PathBuf {
    let dir = crate::repo_root()
        .join("target/parity/report-unit")
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// One language's cell: its state and what it says (its first line the
/// summary); not run is an ignored trial, a known failure one, the other
/// failures failed.
pub(super) type Cells<'a> = &'a [(&'a str, State, &'a str)];

/// A row of the case `name` and its cells, in the columns' order.
pub(super) fn row(name: &str, scenario: Option<Scenario>, cells: Cells) -> (Row, Vec<TrialResult>) {
    row_of(RowId::Case(name.to_owned()), scenario, cells)
}

/// A row of a trial kind (`generated`, `demo`, ...), as [`row`] makes a
/// case's.
pub(super) fn kind_row(kind: crate::config::Kind, cells: Cells) -> (Row, Vec<TrialResult>) {
    row_of(RowId::Kind(kind), None, cells)
}

fn row_of(id: RowId, scenario: Option<Scenario>, cells: Cells) -> (Row, Vec<TrialResult>) {
    let trials = cells
        .iter()
        .map(|&(language, state, text)| {
            let verdict = match state {
                State::Pass => Outcome::Pass,
                State::NotRun => Outcome::Ignored,
                State::KnownFailure => Outcome::KnownFailure,
                _ => Outcome::Fail,
            };
            let text = (state != State::Pass).then(|| text.to_owned());
            let trial = TrialId {
                language: language.to_owned(),
                row: id.clone(),
            };
            TrialResult::new(trial, verdict, state, text)
        })
        .collect();
    let row = Row {
        description: format!("What {} shows.", id.name()),
        id,
        seed: false,
        scenario,
    };
    (row, trials)
}

/// A report of `rows`, with columns rust and go.
pub(super) fn report(rows: Vec<(Row, Vec<TrialResult>)>) -> Report {
    let (rows, trials): (Vec<Row>, Vec<Vec<TrialResult>>) = rows.into_iter().unzip();
    let toolchain = |name: &str, version: &str| Toolchain {
        name: name.to_owned(),
        version: version.to_owned(),
    };
    Report {
        results: Results {
            version: VERSION,
            run: RunRecord {
                commit: "4122aa5".to_owned(),
                date: "2026-11-30T06:00:00Z".to_owned(),
                filter: String::new(),
                toolchains: vec![
                    toolchain("rust", "rustc 1.80.0"),
                    toolchain("go", "go1.22.2"),
                ],
            },
            trials: trials.concat(),
        },
        rows,
        code: Vec::new(),
        base: None,
    }
}

#[test]
fn escape_covers_text_and_attributes() {
    assert_eq!(
        escape(r#"<a href="x" title='y'>&amp;</a>"#),
        "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;"
    );
    assert_eq!(escape("order-1 ✓"), "order-1 ✓");
}

#[test]
fn nothing_from_the_input_becomes_markup() {
    let hostile = "</pre><script>alert(1)</script>";
    let mut scenario = lost_ack();
    scenario.messages[0].aggregate = "<b>order</b>".to_string();
    let cells = [("rust", State::WrongAnswer, hostile)];
    let mut r = row("case_<x>", Some(scenario), &cells);
    r.0.description = hostile.to_string();
    let mut report = report(vec![r]);
    report.results.run.commit = "\"><script>".to_string();
    let page = render(&report);
    assert!(!page.contains("<script"), "{page}");
    assert!(!page.contains("<b>order"));
    assert!(page.contains("&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(page.contains("&lt;b&gt;order&lt;/b&gt;"));
    // The id of a name with markup characters needs no escaping in a URL.
    assert!(page.contains("id=\"case-case_-3cx-3e\""));
}

#[test]
fn a_failing_cell_shows_its_text_and_links_to_it_verbatim() {
    let failure = "sent differs in pass 1\n  expected [2]\n  actual   [1, 2]\n";
    let cells = [
        ("rust", State::Pass, ""),
        ("go", State::WrongAnswer, failure),
    ];
    let page = render(&report(vec![row("lost_ack", Some(lost_ack()), &cells)]));
    let cell = page
        .split("data-cell=\"lost_ack/go\"")
        .nth(1)
        .and_then(|rest| rest.split("</td>").next())
        .expect("the go cell");
    assert!(cell.contains("data-status=\"wrong_answer\""), "{cell}");
    assert!(cell.contains("✗ wrong answer"));
    assert!(cell.contains("<span class=\"why\">sent differs in pass 1</span>"));
    assert!(cell.contains("href=\"#r-lost_ack--go\""));
    // The summary, then the text as it is.
    assert!(page.contains(&format!(
        "id=\"r-lost_ack--go\"><b>go: ✗ wrong answer</b><pre tabindex=\"0\">sent differs in pass 1\n\n{failure}</pre>"
    )));
    assert!(page.contains("data-cell=\"lost_ack/rust\" data-status=\"pass\""));
}

#[test]
fn every_status_has_a_word_and_the_summary_counts_it() {
    let report = report(vec![
        row(
            "a",
            None,
            &[
                ("rust", State::Pass, ""),
                ("go", State::NotRun, "go is not installed"),
            ],
        ),
        row(
            "b",
            None,
            &[
                ("rust", State::Pass, ""),
                ("go", State::KnownFailure, "issue 9"),
            ],
        ),
        row("generated", None, &[("rust", State::WrongAnswer, "boom")]),
    ]);
    let page = render(&report);
    assert!(page.contains(
        "data-summary=\"rust\" data-passed=\"2\" data-failed=\"1\" data-ignored=\"0\" \
         data-known-failures=\"0\" data-not-run=\"0\" class=\"bad\">rust: 2 passed, 1 failed, 0 not run, 0 known failures</li>"
    ));
    assert!(
        page.contains(">go: 0 passed, 0 failed, 1 not run, 1 known failure, 1 not selected</li>")
    );
    for word in [
        "– not run",
        "! known failure",
        "· not selected",
        "go is not installed",
    ] {
        assert!(page.contains(word), "{word}");
    }
    assert_eq!(page.matches("<td class=\"cell ").count(), 6);
}

#[test]
fn write_replaces_the_file_whole_and_leaves_no_temporary() {
    let dir = scratch("write");
    let path = dir.join("report.html");
    let report = report(vec![row("lost_ack", Some(lost_ack()), &[])]);
    std::fs::write(&path, "old").unwrap();
    write(&path, &report).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), render(&report));
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["report.html"]);

    let err = write(&path.join("below-a-file.html"), &report).unwrap_err();
    assert!(err.to_string().contains("below-a-file.html"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A base's or a runner's control characters and bidi controls are shown
/// as their code, so none acts or turns the text after it around; a long
/// word may break anywhere (what lets a 2,000-character description wrap:
/// the browser test checks the page is then no wider than the window).
#[test]
fn control_and_bidi_characters_are_shown_as_their_code_and_a_filter_is_named() {
    let cells = [("go", State::WrongAnswer, "ok \u{202e}deliaf\u{202c}")];
    let mut r = row("bidi", None, &cells);
    r.0.description = "sent \u{2067}[1, 2]\u{2069} \u{200f}".into();
    let mut report = report(vec![r]);
    report.results.run.filter = "lost_ack --skip /unit".into();
    report.results.run.commit = "bell\u{7}esc\u{1b}[31mnul\u{0}".into();
    let page = render(&report);
    for shown in [
        "bell\\u{7}esc\\u{1b}[31mnul\\u{0}",
        "ok \\u{202e}deliaf\\u{202c}",
        "sent \\u{2067}[1, 2]\\u{2069} \\u{200f}",
        "Trials selected by <code>lost_ack --skip /unit</code>",
        "body { overflow-wrap: anywhere;",
    ] {
        assert!(page.contains(shown), "{shown} in {page}");
    }
    let raw =
        |c: char| (c.is_control() && c != '\n' && c != '\t') || crate::text::is_bidi_control(c);
    assert!(!page.chars().any(raw));
}

#[test]
fn the_code_panel_reads_every_file_of_the_mapping_and_names_a_missing_one() {
    let root = crate::repo_root();
    let manifests = crate::toolchain::manifest::read_all(&root).unwrap();
    let parts = code::parts(&manifests, &root);
    let names: Vec<&str> = parts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["message", "table", "broker", "relay", "consumer"]);
    for part in &parts {
        let languages: Vec<&str> = part.languages.iter().map(|(l, _)| l.as_str()).collect();
        let expected: Vec<&str> = manifests.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(languages, expected);
        for source in part.languages.iter().flat_map(|(_, s)| s) {
            // The text is the file's, whatever the ports helper made it.
            let on_disk = std::fs::read_to_string(root.join(&source.path));
            assert_eq!(
                source.text.as_ref().ok(),
                on_disk.as_ref().ok(),
                "{}",
                source.path
            );
        }
    }
    let elsewhere = root.join("target/parity/report-unit/no-sources");
    let missing = code::parts(&manifests, &elsewhere);
    assert!(missing
        .iter()
        .flat_map(|p| &p.languages)
        .flat_map(|(_, s)| s)
        .all(|s| s.text == Err("not found".to_string())));
    let mut page_report = report(Vec::new());
    page_report.code = missing;
    let page = render(&page_report);
    assert!(page.contains(
        "<p class=\"path\"><code>runners/go/relay.go</code></p><p class=\"missing\" \
         data-missing=\"runners/go/relay.go\">not found</p>"
    ));
    page_report.code = parts;
    let page = render(&page_report);
    assert_eq!(
        page.matches("<figure class=\"code\"").count(),
        5 * manifests.len()
    );
    assert!(page.contains(&escape(
        &std::fs::read_to_string(root.join("runners/php/src/OutboxRelay.php")).unwrap()
    )));
}

#[test]
fn every_state_has_its_own_word_and_symbol_and_a_runner_fault_is_not_a_wrong_answer() {
    let words: std::collections::HashSet<&str> = State::ALL.iter().map(|s| s.word()).collect();
    let symbols: std::collections::HashSet<char> = State::ALL
        .iter()
        .map(|s| s.word().chars().next().unwrap())
        .collect();
    assert_eq!(words.len(), State::ALL.len());
    // A wrong answer, a stale known failure and a harness fault each ask
    // something else of the reader: no two states share a symbol.
    assert_eq!(symbols.len(), State::ALL.len(), "{symbols:?}");
    for state in State::ALL {
        // The results file writes a state as its id, and reads it back.
        let id = serde_json::to_value(state).unwrap();
        assert_eq!(id, state.id());
        assert_eq!(serde_json::from_value::<State>(id).unwrap(), state);
    }
    let crashed = [(
        "go",
        State::RunnerFault,
        "`lost_ack`: runner fault: crashed",
    )];
    let page = render(&report(vec![row("lost_ack", None, &crashed)]));
    assert!(page.contains("data-cell=\"lost_ack/go\" data-status=\"runner_fault\""));
    assert!(
        page.contains("⚠ runner fault</a><span class=\"why\">`lost_ack`: runner fault: crashed")
    );
}

#[test]
fn the_seed_cases_come_first_in_the_practice_order_then_file_order() {
    let cases = crate::table::load(&[crate::repo_root().join("cases")]).expect("the table loads");
    let page = report(Vec::new());
    let page = Report {
        rows: run::rows(&cases),
        ..page
    };
    let names: Vec<&str> = page.rows.iter().map(|r| r.id.name()).collect();
    assert_eq!(names[..5], run::SEED_CASES);
    assert!(page.rows[..5].iter().all(|r| r.seed));
    assert!(page.rows[5..].iter().all(|r| !r.seed));
    let rest: Vec<&str> = cases
        .iter()
        .map(|c| c.name.as_str())
        .filter(|n| !run::SEED_CASES.contains(n))
        .collect();
    assert_eq!(names[5..5 + rest.len()], rest);
    let html = render(&page);
    assert!(html.contains(
        "<a href=\"#case-all_in_one_pass\">all_in_one_pass</a> <span class=\"seed\">seed case</span></th>"
    ));
    let first_picture = html.find("<section class=\"case\"").unwrap();
    assert!(
        html[first_picture..].starts_with("<section class=\"case\" id=\"case-all_in_one_pass\">")
    );
}
