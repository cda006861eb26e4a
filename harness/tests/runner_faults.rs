//! Each runner fault fails the case the runner was on, with a message that
//! says which runner and what it printed; the other cases are still checked
//! and nothing waits beyond the timeout.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use parity::fault::{After, FaultKind, Stderr};
use parity::judge::answers::{answers, not_ready};
use parity::judge::{emit, Reason, UnitFailure, UnitWhat, Verdict};
use parity::protocol::Request;
use parity::report::junit;
use parity::session::Runner;
use parity::suite::{Port, Suite};
use parity::table::Case;
use parity::toolchain::Step;

mod common;

use common::{fake, run_language, table_only, wait_for, Run};

const TIMEOUT: Duration = Duration::from_millis(1500);
/// What a deadline may be overrun by on a busy machine; the grandchild that
/// holds stdout sleeps 30 s, so `TIMEOUT + SLACK` still tells them apart.
const SLACK: Duration = Duration::from_secs(15);

/// Runs every seed case through a fake runner; returns the verdicts by case
/// name and how long the run took.
fn run(suite: &Suite, port: &Port) -> (BTreeMap<String, Verdict>, Duration) {
    let cases: Vec<&Case> = suite.cases.iter().collect();
    assert!(cases.len() >= 5, "the seed table has the five cases");
    let started = Instant::now();
    let replies = suite
        .runner(&port.language)
        .run(&Request::cases(cases.iter().copied()));
    let elapsed = started.elapsed();
    let verdicts = answers(&suite.root, port.name(), &cases, replies);
    let listed = cases
        .iter()
        .zip(verdicts)
        .map(|(c, v)| (c.name.clone(), port.listed(&c.name, v)));
    (listed.collect(), elapsed)
}

/// Runs every seed case through the fake runner `fake-<fault>`, which
/// misbehaves on `case`.
fn run_fake(fault: &str, case: &str) -> (BTreeMap<String, Verdict>, Duration) {
    run(
        &common::suite(TIMEOUT),
        &Port::new(fake(&format!("fake-{fault}"), fault, case)),
    )
}

/// The faulty case fails with a message holding every `needle`; all others pass.
fn assert_only_case_fails(verdicts: &BTreeMap<String, Verdict>, case: &str, needles: &[&str]) {
    for (name, verdict) in verdicts {
        if name == case {
            let message = emit::text(common::failure(verdicts, case));
            for needle in needles {
                assert!(
                    message.contains(needle),
                    "{case}: {needle:?} not in:\n{message}"
                );
            }
        } else {
            assert_eq!(
                verdict,
                &Verdict::Pass,
                "{name} should still be checked and pass"
            );
        }
    }
}

/// The fault kind of a reason, if it is a runner fault.
fn kind(reason: &Reason) -> Option<&FaultKind> {
    match reason {
        Reason::Fault { fault, .. } => Some(&fault.kind),
        _ => None,
    }
}

/// One way a runner misbehaves: the fake runner's `fault`, on `case`, fails
/// that case with a reason `is` accepts and a message holding every needle.
struct Misbehaviour {
    fault: &'static str,
    case: &'static str,
    is: fn(&Reason) -> bool,
    needles: &'static [&'static str],
}

/// Every fault a runner can make on one case, with what users need to act
/// (the advice is the behaviour).
const MISBEHAVIOURS: [Misbehaviour; 9] = [
    Misbehaviour {
        fault: "crash",
        case: "broker_down_third_attempt",
        is: |r| {
            matches!(kind(r), Some(FaultKind::Exited { status: Some(s) })
                if s.code() == Some(3))
        },
        needles: &[
            "the fake-crash runner exited (exit status: 3) before answering this case",
            "crashing on purpose",
        ],
    },
    Misbehaviour {
        fault: "hang",
        case: "lost_ack",
        is: |r| kind(r) == Some(&FaultKind::TimedOut { deadline: TIMEOUT }),
        needles: &[
            "gave no answer within 1.5 s (PARITY_TIMEOUT)",
            "If the case is only slow, raise PARITY_TIMEOUT",
        ],
    },
    // Its grandchild holds stdout open: the timeout still ends the case.
    Misbehaviour {
        fault: "grandchild",
        case: "all_in_one_pass",
        is: |r| matches!(kind(r), Some(FaultKind::TimedOut { .. })),
        needles: &[],
    },
    Misbehaviour {
        fault: "garbage",
        case: "batch_of_two",
        is: |r| {
            matches!(kind(r), Some(FaultKind::Malformed { line, .. })
                if line == "this is not the protocol")
        },
        needles: &["the fake-garbage runner printed a line that is not the protocol's answer"],
    },
    Misbehaviour {
        fault: "wrong-name",
        case: "lost_ack",
        is: |r| {
            matches!(kind(r), Some(FaultKind::OtherCase { other, .. })
                if other == "someone_else")
        },
        needles: &[],
    },
    // A null list is not an empty one.
    Misbehaviour {
        fault: "null-list",
        case: "lost_ack",
        is: |r| {
            matches!(kind(r), Some(FaultKind::Malformed { why, .. })
                if why.starts_with("`sent` is null (empty lists are written `[]`)"))
        },
        needles: &[],
    },
    Misbehaviour {
        fault: "error",
        case: "lost_ack",
        is: |r| matches!(r, Reason::ErrorAnswer { error, .. } if error == "boom"),
        needles: &["the fake-error runner answered with an error: boom"],
    },
    // A runner that forgets the cases left fails the one it stopped at.
    Misbehaviour {
        fault: "stop",
        case: "broker_down_first_attempt",
        is: |r| {
            matches!(r, Reason::Fault { fault, .. } if fault.stderr == Stderr::Empty
                && matches!(fault.kind, FaultKind::Exited { status: Some(s) } if s.success()))
        },
        needles: &[],
    },
    Misbehaviour {
        fault: "wrong-result",
        case: "lost_ack",
        is: |r| kind(r).is_none(),
        needles: &[
            "case `lost_ack` (cases/seed.json)",
            "duplicates: expected 1, actual 999",
        ],
    },
];

/// Each of [`MISBEHAVIOURS`] fails the case the runner was on alone; the
/// others are still checked, and nothing waits beyond the timeout.
#[test]
fn each_fault_fails_the_case_the_runner_was_on_and_only_it() {
    for row in MISBEHAVIOURS {
        let (verdicts, elapsed) = run_fake(row.fault, row.case);
        let reason = common::failure(&verdicts, row.case);
        assert!((row.is)(reason), "{}: {reason:?}", row.fault);
        assert_only_case_fails(&verdicts, row.case, row.needles);
        assert!(elapsed < TIMEOUT + SLACK, "{}: took {elapsed:?}", row.fault);
    }
    let pid_file =
        parity::config::target_dir(&parity::repo_root()).join("parity/fake-grandchild.pid");
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .expect("the fake wrote its grandchild's pid")
        .parse()
        .unwrap();
    std::fs::remove_file(&pid_file).unwrap();
    // Killed with its process group, then reaped by init: gone.
    wait_for(
        &format!("the grandchild {pid} outlived its runner: not gone"),
        Duration::from_secs(10),
        || common::is_gone(pid),
    );
}

#[test]
fn output_after_the_last_answer_is_the_runners_fault_not_the_last_cases() {
    let suite = common::suite(TIMEOUT);
    let last = suite.cases.last().expect("cases").name.clone();
    let language = fake("fake-chatter", "chatter", &last);
    let cases: Vec<&Case> = suite.cases.iter().collect();
    let all = suite
        .runner(&language)
        .run_all(&Request::cases(cases.iter().copied()));
    let verdicts = answers(&suite.root, &language.name, &cases, all.replies);
    assert!(verdicts.iter().all(|v| *v == Verdict::Pass), "{verdicts:?}");
    let after = all.after.expect("the extra line is reported");
    assert!(
        matches!(&after.kind, FaultKind::AfterLastAnswer(After::PrintedMore { line })
            if line.contains("and one more thing")),
        "{after:?}"
    );
    assert!(
        after.to_string().starts_with("after answering every case"),
        "{after}"
    );
}

#[test]
fn a_runner_that_cannot_start_fails_every_case() {
    let suite = common::suite(TIMEOUT);
    let mut language = fake("fake-missing", "", "");
    language.runner = vec!["/nonexistent/runner".into()];
    let (verdicts, _) = run(&suite, &Port::new(language));
    for verdict in verdicts.values() {
        assert!(
            matches!(verdict, Verdict::Fail(Reason::Fault { fault, .. })
                if matches!(&fault.kind, FaultKind::CouldNotStart { argv, .. } if argv == &["/nonexistent/runner"])),
            "{verdict:?}"
        );
    }
}

/// A language that is not ready says why: a missing toolchain is ignored
/// with its install hint (a failure when strict), a failed build fails
/// with the compiler's output.
#[test]
fn a_language_that_is_not_ready_says_why() {
    let suite = common::suite(TIMEOUT);
    let strict = suite.settings.strict;
    let mut tool = fake("fake-tool", "", "");
    tool.probe = vec!["parity-no-such-tool".into(), "--version".into()];
    tool.install_hint = "install the fake toolchain".into();
    let tool = Port::new(tool);
    let why = suite.ready(&tool).unwrap_err();
    let Verdict::Ignore(reason) = not_ready(strict, why) else {
        panic!("ignored: {:?}", not_ready(strict, why));
    };
    assert!(
        reason.contains("fake-tool toolchain not available")
            && reason.contains("install the fake toolchain"),
        "{reason}"
    );
    assert!(
        matches!(not_ready(true, why), Verdict::Fail(m) if emit::text(&m).contains("PARITY_STRICT=1"))
    );
    let mut build = fake("fake-build", "", "");
    let script = "echo 'error: compiler says no' >&2; exit 1";
    build.build = vec![Step::always(vec!["sh".into(), "-c".into(), script.into()])];
    let build = Port::new(build);
    let why = suite.ready(&build).unwrap_err();
    let Verdict::Fail(reason) = not_ready(strict, why) else {
        panic!("failed: {:?}", not_ready(strict, why));
    };
    let message = emit::text(&reason);
    assert!(
        message.contains("building fake-build failed")
            && message.contains("error: compiler says no"),
        "{message}"
    );
}

#[test]
fn a_known_failure_is_ignored_with_its_reason_and_a_stale_one_fails() {
    let suite = common::suite(TIMEOUT);
    let known = BTreeMap::from([
        (
            "lost_ack".to_owned(),
            "the port does not dedupe yet".to_owned(),
        ),
        ("batch_of_two".to_owned(), "was broken once".to_owned()),
    ]);
    let mut port = Port::new(fake("fake-known", "wrong-result", "lost_ack"));
    port.known = known;
    let (verdicts, _) = run(&suite, &port);
    assert_eq!(
        verdicts["lost_ack"],
        Verdict::KnownFailure("the port does not dedupe yet".into())
    );
    match &verdicts["batch_of_two"] {
        Verdict::Fail(reason) => assert!(
            emit::text(reason).contains(
                "listed as a known failure of fake-known (was broken once) but passes now"
            ) && emit::text(reason).contains("runners/fake-known/known-failures.json"),
            "{reason:?}"
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(verdicts["all_in_one_pass"], Verdict::Pass);
}

#[test]
fn the_junit_report_has_one_testcase_per_trial_with_the_failure_text() {
    let language = fake("fake-junit", "wrong-result", "lost_ack");
    let Run {
        conclusion,
        records,
        suite,
        ..
    } = run_language(
        common::suite(TIMEOUT),
        language,
        "runner-faults/junit",
        table_only(),
    );
    let case_count = suite.cases.len();
    assert_eq!(conclusion.num_failed, 1);
    let xml = junit::report(&suite.report(&records, &Default::default()).results);

    let document = roxmltree::Document::parse(&xml).expect("the report is well-formed XML");
    let cases: Vec<_> = document
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), case_count);
    assert_eq!(
        cases.len() as u64,
        conclusion.num_passed + conclusion.num_failed
    );
    let failed: Vec<_> = cases
        .iter()
        .filter(|c| c.children().any(|n| n.has_tag_name("failure")))
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(
        failed[0].attribute("name"),
        Some("patterns/enterprise/outbox/practice/fake-junit/lost_ack")
    );
    let text = failed[0]
        .descendants()
        .filter_map(|n| n.text())
        .collect::<String>();
    assert!(
        text.contains("duplicates: expected 1, actual 999"),
        "{text}"
    );
    let suite = document
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(suite.attribute("name"), Some("fake-junit"));
    assert_eq!(suite.attribute("failures"), Some("1"));
}

/// Whatever a runner prints, the JUnit file parses as XML and the terminal
/// text holds nothing that acts (`\r` overwriting a line, U+202E reversing
/// it, an escape sequence): both show it escaped.
#[test]
fn what_a_runner_prints_cannot_break_the_junit_file_or_the_terminal() {
    let language = fake("fake-nasty", "nasty-stderr", "lost_ack");
    let skip = ["/generated", "/demo", "/unit"].map(String::from).to_vec();
    let run = run_language(
        common::suite(TIMEOUT),
        language,
        "runner-faults/nasty",
        skip,
    );
    assert_eq!(run.conclusion.num_failed, 1);
    let xml = junit::report(&run.report().results);
    let document = roxmltree::Document::parse(&xml).expect("the report is well-formed XML");
    let text: String = document.descendants().filter_map(|n| n.text()).collect();
    assert!(text.contains("\\u{fffe}\\u{ffff}\\u{0}"), "{text}");
    let shown = std::fs::read_to_string(run.args.logfile.unwrap()).unwrap();
    assert!(shown.contains("FAILED\\rok"), "{shown}");
    assert!(shown.contains("\\u{202e}desrever"), "{shown}");
    for raw in ['\r', '\u{202e}', '\u{1b}', '\u{0}'] {
        assert!(
            !shown.contains(raw),
            "{raw:?} reached the terminal:\n{shown}"
        );
    }
}

/// Three known failures in a row that crash the runner are three restarts,
/// not a broken runner: every other case is still run and judged.
#[test]
fn known_failures_that_crash_the_runner_do_not_use_its_fault_budget() {
    let suite = common::suite(TIMEOUT);
    let crashing: Vec<String> = suite.cases[..3].iter().map(|c| c.name.clone()).collect();
    let known = crashing
        .iter()
        .map(|name| {
            (
                name.clone(),
                "crashes the port, tracked elsewhere".to_owned(),
            )
        })
        .collect();
    let mut port = Port::new(fake("fake-known-crash", "crash", &crashing.join(",")));
    port.known = known;
    let case_count = suite.cases.len() as u64;
    let Run {
        conclusion,
        records,
        ..
    } = run_language(suite, port, "runner-faults/known-crash", table_only());
    let failures: Vec<String> = records
        .iter()
        .filter_map(|r| match &r.verdict {
            Verdict::Fail(reason) => Some(format!("{}: {}", r.id.name(), emit::text(reason))),
            _ => None,
        })
        .collect();
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(conclusion.num_ignored, 3);
    assert_eq!(conclusion.num_passed, case_count - 3);
}

/// The results file names each failed trial's fault by kind, with the log
/// it kept, so a tool need not read the prose; the file stays valid under
/// `harness/results.schema.json`, whose list of kinds holds every one the
/// run wrote.
#[test]
fn the_results_file_names_each_fault_and_its_log() {
    let language = fake("fake-results", "crash", "lost_ack");
    let run = run_language(
        common::suite(TIMEOUT),
        language,
        "runner-faults/results",
        table_only(),
    );
    let results = run.report().results;
    let entry = |case: &str| {
        results
            .trials
            .iter()
            .find(|e| e.row.name() == case)
            .unwrap_or_else(|| panic!("no entry for {case}"))
    };
    let crashed = entry("lost_ack");
    assert_eq!(crashed.fault.as_deref(), Some("exited"), "{crashed:?}");
    let log = crashed.log.as_deref().expect("the crash wrote to stderr");
    assert!(log.starts_with("target/"), "relative to the root: {log}");
    let kept = std::fs::read_to_string(parity::repo_root().join(log)).unwrap();
    assert!(kept.contains("crashing on purpose"), "{kept}");
    let passed = entry("all_in_one_pass");
    assert_eq!((&passed.fault, &passed.log), (&None, &None));

    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(parity::repo_root().join("harness/results.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let written: serde_json::Value = serde_json::from_str(&results.to_json()).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&written)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

/// A port's failing unit tests fail its unit trial with how they ended and
/// what they printed last, kept as data; a unit command that cannot start
/// says so.
#[test]
fn failing_unit_tests_keep_how_they_ended_and_their_output() {
    let suite = common::suite(TIMEOUT);
    let mut language = fake("fake-unit", "none", "none");
    language.unit = vec!["sh".into(), "-c".into(), "echo boom; exit 1".into()];
    let verdict = suite.check_unit(&Port::new(language.clone()));
    let Verdict::Fail(reason @ Reason::Unit(unit)) = &verdict else {
        panic!("the unit trial fails");
    };
    assert_eq!(
        unit.what,
        UnitWhat::Failed {
            ended: "exit status: 1".into(),
            tail: "boom".into()
        }
    );
    assert_eq!(
        emit::text(reason),
        "the fake-unit unit tests (`sh -c echo boom; exit 1`) failed (exit status: 1):\nboom"
    );
    language.unit = vec!["/nonexistent/unit-tests".into()];
    assert!(
        matches!(
            suite.check_unit(&Port::new(language)),
            Verdict::Fail(Reason::Unit(UnitFailure {
                what: UnitWhat::CouldNotStart { .. },
                ..
            }))
        ),
        "a command that cannot start"
    );
}

/// A suite that exits 0 before its tool's final report (PHP's checks: a
/// failed check, then `exit(0)`) fails its unit trial, the report's counts
/// kept as data; before, the `ok` lines alone counted and it passed.
#[test]
fn unit_tests_that_exit_0_early_fail() {
    let suite = common::suite(TIMEOUT);
    let mut language = fake("php", "none", "none");
    let printed = "ok   a\nFAIL b\n";
    language.unit = vec!["printf".into(), printed.into()];
    let mut port = Port::new(language);
    port.manifest = suite.port("php").and_then(|php| php.manifest.clone());
    let verdict = suite.check_unit(&port);
    let Verdict::Fail(reason @ Reason::Unit(unit)) = &verdict else {
        panic!("the unit trial fails: {verdict:?}");
    };
    let UnitWhat::Unproven { tally, .. } = unit.what else {
        panic!("unproven: {unit:?}");
    };
    assert_eq!((tally.passed, tally.failed, tally.finished), (1, 1, false));
    let text = emit::text(reason);
    assert!(
        text.contains("exited 0 without proving a test: its tool's final report is missing")
            && text.contains("1 passed, 1 failed, 0 skipped")
            && text.ends_with("FAIL b"),
        "{text}"
    );
}
