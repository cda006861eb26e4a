//! Each runner fault fails the case the runner was on, with a message that
//! says which runner and what it printed; the other cases are still checked
//! and nothing waits beyond the timeout.

use std::time::{Duration, Instant};

use parity::fault::FaultKind;
use parity::judge::answers::not_ready;
use parity::judge::{emit, Reason, Verdict};
use parity::report::junit;
use parity::suite::Port;
use serde::Deserialize;

mod common;

use common::{assert_holds, assert_only_case_fails, fake, run_language, table_only};

const TIMEOUT: Duration = Duration::from_millis(1500);
/// What a deadline may be overrun by on a busy machine; the grandchild that
/// holds stdout sleeps 30 s, so `TIMEOUT + SLACK` still tells them apart.
const SLACK: Duration = Duration::from_secs(15);

/// Runs every case of the table through `language`'s runner, as a run of
/// the suite does.
fn run(language: impl Into<Port>) -> common::Run {
    run_language(common::suite(TIMEOUT), language, table_only())
}

/// A fault of `runner_faults.json`: the fake runner's fault, the case it
/// is on, and what the case's message must say.
#[derive(Deserialize)]
struct Misbehaviour {
    fault: String,
    case: String,
    said: Vec<String>,
}

/// Each fault of `runner_faults.json` fails the case the runner was on
/// alone; the others are still checked, and nothing waits beyond the
/// timeout.
#[test]
fn each_fault_fails_the_case_the_runner_was_on_and_only_it() {
    for Misbehaviour { fault, case, said } in
        common::fixture::<Vec<Misbehaviour>>("runner_faults.json", "faults")
    {
        let started = Instant::now();
        let run = run(fake(&format!("fake-{fault}"), &fault, &case));
        let took = started.elapsed();
        let said = Vec::from_iter(said.iter().map(String::as_str));
        assert_only_case_fails(&run.verdicts(), &case, &said);
        assert!(took < TIMEOUT + SLACK, "{fault}: took {took:?}");
    }
    let pid_file =
        parity::config::target_dir(&parity::repo_root()).join("parity/fake-grandchild.pid");
    let pid = common::pids_in(&pid_file);
    assert_eq!(pid.len(), 1, "the fake wrote its grandchild's pid");
    std::fs::remove_file(&pid_file).unwrap();
    // Killed with its process group, then reaped by init: gone.
    let outlived = "the grandchild outlived its runner";
    common::assert_gone(&pid, Duration::from_secs(10), outlived);
}

#[test]
fn an_answer_printed_twice_blames_the_case_answered_twice() {
    let cases = common::seed_cases();
    for twice in [1, cases.len() - 1] {
        let name = &cases[twice].name;
        let verdicts = run(fake("fake-twice", "twice", name)).verdicts();
        let next = match cases.get(twice + 1) {
            Some(next) => format!("where the next case's, `{}`, was due", next.name),
            None => "after the last case".into(),
        };
        let said = format!("answered this case twice (the second answer came {next})");
        assert_only_case_fails(&verdicts, name, &[&said]);
    }
}

#[test]
fn a_runner_that_cannot_start_fails_every_case() {
    let mut language = fake("fake-missing", "none", "none");
    language.runner = vec!["/nonexistent/runner".into()];
    for verdict in run(language).verdicts().values() {
        let fault = take!(verdict, Verdict::Fail(Reason::Fault { fault, .. }) => fault);
        let argv = take!(&fault.kind, FaultKind::CouldNotStart { argv, .. } => argv);
        assert_eq!(argv, &["/nonexistent/runner"]);
    }
}

/// A language that is not ready says why: a missing toolchain is ignored
/// with its install hint (a failure when strict), a failed build fails
/// with the compiler's output.
#[test]
fn a_language_that_is_not_ready_says_why() {
    let suite = common::suite(TIMEOUT);
    let hint = "install the fake toolchain";
    let mut tool = fake("fake-tool", "", "");
    tool.probe = vec!["parity-no-such-tool".into(), "--version".into()];
    tool.install_hint = hint.into();
    let tool = Port::from(tool);
    let why = suite.ready(&tool).unwrap_err();
    let reason = take!(not_ready(false, why), Verdict::Ignore(reason) => reason);
    assert_holds(&reason, &["fake-tool toolchain not available", hint]);
    take!(not_ready(true, why), Verdict::Fail(m) if emit::text(&m).contains("PARITY_STRICT=1"));
    let script = "echo 'error: compiler says no' >&2; exit 1";
    let build = Port::from(common::building("fake-build", script));
    let why = suite.ready(&build).unwrap_err();
    let reason = take!(not_ready(false, why), Verdict::Fail(reason) => reason);
    let said = ["building fake-build failed", "error: compiler says no"];
    assert_holds(&emit::text(&reason), &said);
}

/// Known failures are ignored with their reason, and a stale one fails
/// naming its list; three in a row that crash the runner are three
/// restarts, not a broken runner: every other case is still run and judged.
#[test]
fn known_failures_that_crash_the_runner_use_no_fault_budget_and_stale_ones_fail() {
    let names: Vec<String> = common::seed_cases().into_iter().map(|c| c.name).collect();
    let (crashing, stale) = (&names[..3], &names[3]);
    let mut port = Port::from(fake("fake-known", "crash", &crashing.join(",")));
    let tracked = "crashes the port, tracked elsewhere";
    let listed = |name: &String| (name.clone(), tracked.into());
    port.known = crashing.iter().map(listed).collect();
    port.known.insert(stale.clone(), "was broken once".into());
    let run = run(port);
    let verdicts = run.verdicts();
    let known = Verdict::KnownFailure(tracked.into());
    for name in crashing {
        assert_eq!(verdicts[name], known, "{name}");
    }
    let stale = emit::text(common::failure(&verdicts, stale));
    let listed = "listed as a known failure of fake-known (was broken once) but passes now";
    assert_holds(&stale, &[listed, "runners/fake-known/known-failures.json"]);
    for (name, verdict) in verdicts.iter().filter(|(n, _)| !names[..4].contains(n)) {
        assert_eq!(verdict, &Verdict::Pass, "{name}");
    }
    assert_eq!(run.conclusion.num_ignored, 3);
    assert_eq!(run.conclusion.num_failed, 1);
}

/// The name and text of the one failed testcase of a JUnit report, which
/// must parse as XML and hold one testcase per trial (`trials`), in one
/// testsuite named for the language, counting one failure.
fn junit_failure(xml: &str, trials: usize) -> (String, String) {
    let document = roxmltree::Document::parse(xml).expect("the report is well-formed XML");
    let tagged = |tag| document.descendants().filter(move |n| n.has_tag_name(tag));
    assert_eq!(tagged("testcase").count(), trials);
    let failures: Vec<_> = tagged("failure").collect();
    assert_eq!(failures.len(), 1, "one failed testcase");
    let testsuite = tagged("testsuite").next().expect("a testsuite");
    assert_eq!(testsuite.attribute("name"), Some("fake-nasty"));
    assert_eq!(testsuite.attribute("failures"), Some("1"));
    let testcase = failures[0].parent().unwrap();
    let text = testcase.descendants().filter_map(|n| n.text()).collect();
    let name = testcase.attribute("name").unwrap_or_default();
    (name.to_owned(), text)
}

/// What a faulting runner printed, as the files a run writes show it: the
/// JUnit report has one testcase per trial and parses as XML (U+FFFE,
/// U+FFFF, NUL escaped), with the failure's text in its case's; the
/// terminal text holds nothing that acts (`\r` overwriting a line, U+202E
/// reversing it, an escape sequence); the results file names the fault by
/// kind with the log it kept, so a tool need not read the prose, and stays
/// valid under `harness/results.schema.json`.
#[test]
fn a_faulting_runner_is_reported_in_every_file_and_acts_in_none() {
    let run = run(fake("fake-nasty", "nasty-stderr", "lost_ack"));
    assert_eq!(run.conclusion.num_failed, 1);
    let results = run.report().results;
    let (name, text) = junit_failure(&junit::report(&results), run.suite.cases.len());
    let trial = "patterns/enterprise/outbox/practice/fake-nasty/lost_ack";
    assert_eq!(name, trial);
    let exited = "the fake-nasty runner exited (exit status: 3) before answering this case";
    assert_holds(&text, &[exited, "\\u{fffe}\\u{ffff}\\u{0}"]);

    let shown = std::fs::read_to_string(run.args.logfile.as_ref().unwrap()).unwrap();
    assert_holds(&shown, &["FAILED\\rok", "\\u{202e}desrever"]);
    let raw = shown.find(['\r', '\u{202e}', '\u{1b}', '\u{0}']);
    assert_eq!(raw, None, "a raw character reached the terminal:\n{shown}");

    let entry = |case: &str| {
        let entry = results.trials.iter().find(|e| e.row.name() == case);
        entry.unwrap_or_else(|| panic!("no entry for {case}"))
    };
    let crashed = entry("lost_ack");
    assert_eq!(crashed.fault.as_deref(), Some("exited"), "{crashed:?}");
    let log = crashed.log.as_deref().expect("the crash wrote to stderr");
    assert!(log.starts_with("target/"), "relative to the root: {log}");
    let kept = std::fs::read_to_string(parity::repo_root().join(log)).unwrap();
    assert!(kept.contains("fake runner: FAILED"), "{kept}");
    let passed = entry("all_in_one_pass");
    assert_eq!((&passed.fault, &passed.log), (&None, &None));
    let schema: serde_json::Value =
        common::read_json(&parity::repo_root().join("harness/results.schema.json"));
    let written = serde_json::to_value(&results).unwrap();
    let valid = jsonschema::validate(&schema, &written);
    assert!(valid.is_ok(), "not valid under the schema: {valid:?}");
}

/// A port's failing unit tests fail its unit trial with how they ended and
/// what they printed last, in its message: a suite that fails, one that exits
/// 0 before its tool's final report (PHP's checks: a failed check, then
/// `exit(0)`; before, the `ok` lines alone counted and it passed), a unit
/// command that cannot start; and (issue 38, items 4 and 5) a suite that
/// passes fewer tests than its manifest says it has, and a Go skip between
/// two tests printing 700 KB each, which only the kept head and tail of the
/// output were read for.
#[test]
fn unit_tests_that_fail_or_exit_0_early_fail_keeping_how_they_ended() {
    let executor = parity::suite::Executor::new(std::sync::Arc::new(common::suite(TIMEOUT)));
    let suite = &executor.suite;
    let failed = |name: &str, unit: &[&str]| {
        let mut port = fake(name, "none", "none");
        port.unit = suite.port(name).map(|p| p.unit.clone()).unwrap_or_default();
        port.unit.run = unit.iter().map(|a| a.to_string()).collect();
        let verdict = executor.check_unit(&Port::from(port));
        emit::text(take!(&verdict, Verdict::Fail(reason @ Reason::Wrong(_)) => reason))
    };
    let text = failed("fake-unit", &["sh", "-c", "echo boom; exit 1"]);
    let boom =
        "the fake-unit unit tests (`sh -c echo boom; exit 1`) failed (exit status: 1):\nboom";
    assert_eq!(text, boom);
    let text = failed("fake-unit", &["/nonexistent/unit-tests"]);
    let not_started = "the fake-unit unit tests (`/nonexistent/unit-tests`) could not be started: ";
    assert!(text.starts_with(not_started), "{text}");
    let text = failed("php", &["printf", "ok   a\nFAIL b\n"]);
    // The tally itself is toolchain::unit's tests'.
    let unproven = "exited 0 without proving a test: its tool's final report is missing";
    assert_holds(&text, &[unproven, "1 passed, 1 failed, 0 skipped"]);
    assert!(text.ends_with("FAIL b"), "{text}");
    let text = failed("python", &["sh", "-c", "printf 'Ran 2 tests\n\nOK\n' >&2"]);
    let manifest = "and its manifest says at least";
    assert_holds(&text, &["says 2 passed", manifest, "(`unit.at_least`)"]);
    let chatty = "yes \"$(printf %1000s)\" | head -700";
    let script = format!("{chatty}; echo '--- SKIP: TestB (0.00s)'; {chatty}; seq 9 | sed 's/.*/--- PASS: T& (0.00s)/'; echo 'ok  outbox'");
    let text = failed("go", &["sh", "-c", &script]);
    assert_holds(&text, &["says 9 passed, 0 failed, 1 skipped or ignored"]);
}
