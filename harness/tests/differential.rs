//! The differential run finds a planted bug and shrinks it to a minimal case.

use std::time::Duration;

use parity::differential::{cases, check_all, shrink, Checked, MAX_ROWS};
use parity::fault::{After, FaultKind};
use parity::protocol::Request;
use parity::session::Session;

mod common;

/// A session of the fake runner with `fault` on every scenario.
fn runner(fault: &str) -> Session {
    let log_dir = format!("differential/{fault}");
    common::session(&log_dir, fault, "*", Duration::from_secs(10))
}

/// What `runner` gets wrong in 500 scenarios of `seed`.
fn checked(runner: &Session, seed: u64) -> Checked {
    let cases = cases(seed, 500, MAX_ROWS).expect("the reference runs every scenario");
    check_all(runner, &cases, &Request::cases(&cases))
}

#[test]
fn a_correct_runner_agrees_on_every_scenario() {
    assert_eq!(checked(&runner("none"), 99), Checked::default());
}

#[test]
fn a_relay_that_does_not_block_is_found_and_shrunk_to_at_most_three_messages() {
    let seed = 1;
    let buggy = runner("no-block");
    let checked = checked(&buggy, seed);
    let problem = checked
        .problems
        .first()
        .cloned()
        .expect("the planted bug is found");
    assert!(!problem.fault, "a wrong result, not a fault: {problem:?}");
    assert_eq!(checked.runner_fault, None);
    let finding = shrink(&buggy, seed, problem.index, problem.text);
    let report = finding.report("fake");
    assert!(finding.shrunk.scenario.messages.len() <= 3, "{report}");
    assert_eq!(finding.reference_broken, None);
    assert!(report.contains("As a ready case"), "{report}");
    assert!(report.contains("\"name\": \"regression_s1_"), "{report}");
    println!("{report}");
}

/// Asked to shrink a fault anyway (the budget and the generated trial's
/// "never shrunk" are pinned in reliability.rs), the shrinker gives up at
/// the first: one session for one scenario pair (two starts: the second
/// case gets a fresh runner, as any case after a fault does), never another.
#[test]
fn the_shrinker_gives_up_on_a_runner_that_cannot_start() {
    let pids = common::scratch("differential/cannot-start-pids").join("pids");
    let mut broken = runner("cannot-start");
    broken.command.argv = common::counting(&pids, broken.command.argv);
    let finding = shrink(&broken, 5, 0, "the runner faulted".into());
    assert_eq!(finding.index, 0);
    let starts = common::pids_in(&pids).len();
    assert!(
        starts <= 2,
        "the shrinker started a runner that cannot start {starts} times"
    );
}

#[test]
fn a_fault_after_the_last_answer_is_the_runners_not_a_scenarios() {
    let checked = checked(&runner("exit-after"), 6);
    assert_eq!(
        checked.problems,
        Vec::new(),
        "every scenario was answered right"
    );
    let fault = checked.runner_fault.expect("the exit is reported");
    assert!(
        matches!(
            fault.kind,
            FaultKind::AfterLastAnswer(After::Exited { status: Some(status) })
                if status.code() == Some(4)
        ),
        "{fault:?}"
    );
    assert!(
        fault.to_string().contains("after answering every case"),
        "{fault}"
    );
}
