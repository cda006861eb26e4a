//! The report's self-tests: the page (this file), the pictures and the
//! trace they are drawn from, and the results file with what is made from
//! it (diff, Markdown).

use super::fixture::{self, row};
pub(super) use super::fixture::{every_state, lost_ack, message};
use super::results::State;
use super::*;
use crate::config::scratch_dir;

mod picture_tests;
mod results_tests;
mod trace_tests;

/// A report of `rows`, with columns rust and go.
pub(super) fn report(rows: Vec<(Row, Vec<TrialResult>)>) -> Report {
    fixture::report(&[("rust", "rustc 1.80.0"), ("go", "go1.22.2")], rows)
}

/// Markup, control characters and bidi controls from a case, a runner, the
/// run or a base results file are shown, never acted on: markup escaped on
/// the page, and on the page, the terminal's lines and the Markdown summary
/// a control or bidi character shown as its code, so none acts, turns the
/// text after it around or starts a line that reads as a heading of the
/// base's (a lone `\r` ends a line in Markdown, and returns to the start of
/// one on a terminal). A long word may break anywhere (what lets a
/// 2,000-character description wrap: the browser test checks the page is
/// then no wider than the window).
#[test]
fn nothing_from_the_input_or_a_base_file_acts_on_the_page_the_terminal_or_the_summary() {
    let hostile = "</pre><script>alert(1)</script> 'x' & ok \u{202e}deliaf\u{202c}";
    let mut scenario = lost_ack();
    scenario.messages[0].aggregate = "<b>order</b>".to_string();
    let cells = [("go", State::WrongAnswer, hostile)];
    let description = "order-1 ✓ sent \u{2067}[1, 2]\u{2069} \u{200f}";
    let pass = [("go", State::Pass, "")];
    let mut now = report(vec![
        row("case_<x>", description, Some(scenario), &cells),
        row("lost_ack", "", None, &pass),
    ]);
    now.results.run.filter = "lost_ack --skip /unit".into();
    now.results.run.commit = "\"><script>bell\u{7}esc\u{1b}[31mnul\u{0}".into();
    // The base's commit, case name and reasons each end a line and start a
    // heading of their own; it is read through a file, as `PARITY_BASE` is.
    let heading = "x\r## Fake heading \u{1b}[2J\u{202e}kcatta\n# Another";
    let wrong = [("go", State::WrongAnswer, heading)];
    let mut base = report(vec![
        row("lost_ack", "", None, &wrong),
        row(heading, "", None, &wrong),
    ])
    .results;
    (base.run.commit, base.run.filter) = (heading.into(), now.results.run.filter.clone());
    for trial in &mut base.trials {
        trial.summary = Some(heading.into());
    }
    let path = scratch_dir("report-hostile-base").join("results.json");
    base.write(&path).unwrap();
    let base = results::Results::load(&path).unwrap();
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    let compared = diff::compare(&base, &now.results);
    assert_eq!(compared.changes.len(), 3, "{compared:?}");
    let terminal = diff::text(&compared);
    now.base = Some(compared);
    let (page, summary) = (render(&now), markdown::summary(&now));
    for out in [&page, &terminal, &summary] {
        let raw: Vec<char> = out.chars().filter(|&c| crate::text::acts(c)).collect();
        assert!(raw.is_empty(), "raw {raw:?} in {out:?}");
    }
    // A newline is a space on the page, but ends a line on the terminal.
    for out in [&terminal, &summary] {
        for line in out.split(['\n', '\r']).map(str::trim_start) {
            let heading = line.starts_with("## Fake") || line.starts_with("# Another");
            assert!(!heading, "a heading of the base's: {line:?} in {out:?}");
        }
    }
    let shown = r"x\r## Fake heading \u{1b}[2J\u{202e}kcatta\n# Another";
    let gone = format!("go/{shown}: gone (was ✗ wrong answer): {shown}\n");
    for (out, shown) in [
        (&page, "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt; &#39;x&#39; &amp; ok \\u{202e}deliaf\\u{202c}"),
        (&page, "&lt;b&gt;order&lt;/b&gt;"),
        (&page, "&quot;&gt;&lt;script&gt;bell\\u{7}esc\\u{1b}[31mnul\\u{0}"),
        (&page, "order-1 ✓ sent \\u{2067}[1, 2]\\u{2069} \\u{200f}"),
        // The id of a name with markup characters needs no escaping in a URL.
        (&page, "id=\"case-case_-3cx-3e\""),
        (&page, "Trials selected by <code>lost_ack --skip /unit</code>"),
        (&page, "body { overflow-wrap: anywhere;"),
        (&terminal, &format!("(commit {shown})")),
        (&terminal, "  go/lost_ack: ✗ wrong answer → ✓ pass\n"),
        (&terminal, &format!("  {gone}")),
        (&summary, &format!("- `{}", gone.replacen(':', "`:", 1))),
    ] {
        assert!(out.contains(shown), "{shown} in {out}");
    }
    assert!(
        !page.contains("<script") && !page.contains("<b>order"),
        "{page}"
    );
}

/// A cell says its state in a word (colour is not the only signal), shows
/// its summary and links to its full text, kept verbatim; the summary line
/// of each language counts its cells, those it did not run among them.
#[test]
fn a_cell_says_its_state_links_to_its_text_and_is_counted() {
    let page = render(&every_state());
    let differs = "`lost_ack`: the result differs from expect";
    let lines = "  expected [2]\n  actual   [1, 2]: &lt;order-1&gt; &amp; &lt;order-2&gt;\n";
    for shown in [
        "data-cell=\"lost_ack/rust\" data-status=\"pass\"><a href=\"#r-lost_ack--rust\">✓ pass</a></td>",
        "data-cell=\"lost_ack/go\" data-status=\"wrong_answer\" title=",
        &format!("<a href=\"#r-lost_ack--go\">✗ wrong answer</a><span class=\"why\">{differs}</span>"),
        // The summary, then the text as it is.
        &format!("id=\"r-lost_ack--go\"><b>go: ✗ wrong answer</b><pre tabindex=\"0\">{differs}\n\n{differs}\n{lines}</pre>"),
        "data-cell=\"batch_of_two/rust\" data-status=\"runner_fault\"",
        "⚠ runner fault</a><span class=\"why\">`batch_of_two`: runner fault: crashed",
        "– not run</a><span class=\"why\">the go toolchain is missing",
        "⊘ unsupported</a><span class=\"why\">unsupported: case `batch_of_two` uses the feature",
        "! known failure</a><span class=\"why\">issue 3",
        "data-cell=\"demo/go\" data-status=\"not_selected\"><a href=\"#r-demo--go\">· not selected</a></td>",
        "data-summary=\"rust\" data-passed=\"2\" data-failed=\"2\" data-ignored=\"0\" \
         data-known-failures=\"1\" data-not-run=\"0\" class=\"bad\">rust: 2 passed, 2 failed, 0 not run, 1 known failure</li>",
        ">go: 0 passed, 2 failed, 2 not run, 0 known failures, 1 not selected</li>",
    ] {
        assert!(page.contains(shown), "{shown} in {page}");
    }
    assert_eq!(page.matches("<td class=\"cell ").count(), 10);
}

/// The page replaces the file (through `atomic::write`, whose own test
/// shows no temporary is left), and an error names the file.
#[test]
fn write_replaces_the_file_and_names_it_in_an_error() {
    let dir = scratch_dir("report-write");
    let path = dir.join("report.html");
    let report = report(vec![row("lost_ack", "", Some(lost_ack()), &[])]);
    std::fs::write(&path, "old").unwrap();
    write(&path, &report).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), render(&report));

    let err = write(&path.join("below-a-file.html"), &report).unwrap_err();
    assert!(err.to_string().contains("below-a-file.html"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn sources(panel: &code::Panel) -> impl Iterator<Item = &code::Source> {
    let parts = panel.languages.iter().flat_map(|l| &l.parts);
    parts.flat_map(|(_, s)| s).chain(&panel.output)
}

/// The panel is the whole scenario a language at a time, PHP first: each
/// part's files from their first declaration, the demo's composition root
/// and loop (a block of its file, holding the loop's condition), the
/// transcript; SPEC's note on each language, each mark found in its code
/// and its lines marked on the page.
#[test]
fn the_code_panel_is_the_whole_scenario_php_first() {
    let root = crate::repo_root();
    let manifests = crate::toolchain::manifest::read_all(&root).unwrap();
    let panel = code::panel(&manifests, &root, crate::suite::executor::TRANSCRIPT);
    for language in &panel.languages {
        let (name, parts) = (&language.name, &language.parts);
        let note = language.note.to_lowercase();
        assert!(note.starts_with(&format!("**{name}**")), "{name}: {note}");
        let texts = parts.iter().flat_map(|(_, s)| s).map(|s| s.text.clone());
        let code = texts.collect::<Result<String, _>>().unwrap();
        let marks = language.marks.iter();
        let unfound: Vec<&String> = marks.filter(|mark| !code.contains(mark.as_str())).collect();
        assert!(unfound.is_empty(), "{name}: {unfound:?} mark nothing");
        let demo = parts[5].1[0].text.as_ref().unwrap().to_lowercase();
        let has_loop = demo.replace('_', "").contains("hasunsent");
        assert!(has_loop, "{name}: no loop in {demo}");
    }
    for source in sources(&panel) {
        let (text, path) = (source.text.as_ref().unwrap(), &source.path);
        let on_disk = std::fs::read_to_string(root.join(path)).unwrap();
        assert!(on_disk.contains(text.as_str()), "{path}");
    }
    let message = panel.languages[0].parts[0].1[0].text.clone().unwrap();
    assert!(message.starts_with("/**\n * One outbox row"), "{message}");
    let mut page = report(Vec::new());
    page.code = panel;
    let marked = "<mark>     * @param array&lt;int, Failure&gt; $failures</mark>";
    assert!(render(&page).contains(marked));
}

/// Elsewhere, every file is missing but go's relay, a FIFO: reported, not
/// waited on.
#[test]
fn the_code_panel_names_a_missing_file() {
    let elsewhere = scratch_dir("report-no-sources");
    std::fs::create_dir_all(elsewhere.join("runners/go")).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(elsewhere.join("runners/go/relay.go"))
        .status();
    assert!(fifo.unwrap().success());
    let manifests = crate::toolchain::manifest::read_all(&crate::repo_root()).unwrap();
    let missing = code::panel(&manifests, &elsewhere, "runners/demo.transcript.txt");
    for source in sources(&missing) {
        let why = match source.path.as_str() {
            "runners/go/relay.go" => {
                "a named pipe (FIFO), not a regular file: a source file must be a regular file"
            }
            _ => "not found",
        };
        assert_eq!(source.text, Err(why.to_owned()), "{}", source.path);
    }
    let mut page = report(Vec::new());
    page.code = missing;
    assert!(render(&page).contains(
        "<p class=\"path\"><code>runners/python/outbox/relay.py</code></p><p class=\"missing\" \
         data-missing=\"runners/python/outbox/relay.py\">not found</p>"
    ));
}

#[test]
fn the_seed_cases_come_first_in_the_practice_order_then_file_order() {
    let cases = crate::table::load(&[crate::repo_root().join("cases")]).expect("the table loads");
    let mut page = report(Vec::new());
    page.rows = run::rows(&cases);
    let names: Vec<&str> = page.rows.iter().map(|r| r.id.name()).collect();
    assert_eq!(names[..5], run::SEED_CASES);
    assert!(page.rows[..5].iter().all(|r| r.seed));
    assert!(page.rows[5..].iter().all(|r| !r.seed));
    let table = cases.iter().map(|c| c.name.as_str());
    let rest: Vec<&str> = table.filter(|n| !run::SEED_CASES.contains(n)).collect();
    assert_eq!(names[5..5 + rest.len()], rest);
    let html = render(&page);
    for shown in [
        "<a href=\"#case-all_in_one_pass\">all_in_one_pass</a> <span class=\"seed\">seed case</span></th>",
        // The first case's section, right after the pictures' legend.
        "outbox</span></p><section class=\"case\" id=\"case-all_in_one_pass\">",
    ] {
        assert!(html.contains(shown), "{shown}");
    }
}
