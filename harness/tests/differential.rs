//! The differential run finds a planted bug and shrinks it to a minimal case.

use std::time::Duration;

use parity::differential::{cases, check_all, shrink};
use parity::exec;
use parity::in_process::Reference;
use parity::protocol::Request;
use parity::session::Session;
use parity::table::Case;

fn runner(fault: &str) -> Session {
    Session {
        command: exec::Command {
            label: format!("the fake {fault} runner"),
            argv: vec![
                env!("CARGO_BIN_EXE_fake-runner").into(),
                fault.into(),
                "*".into(),
            ],
            dir: parity::repo_root(),
            deadline: Duration::from_secs(10),
            keep: exec::KEEP,
        },
        log_dir: parity::config::scratch_dir(&parity::repo_root(), "differential"),
    }
}

fn scenarios(seed: u64) -> (Vec<Case>, Vec<Request>) {
    let cases = cases(seed, 500).expect("the reference runs every scenario");
    let requests = Request::cases(&cases);
    (cases, requests)
}

#[test]
fn a_correct_runner_agrees_on_every_scenario() {
    let (cases, requests) = scenarios(99);
    assert_eq!(check_all(&runner("none"), &cases, &requests), Vec::new());
    assert_eq!(check_all(&Reference, &cases, &requests), Vec::new());
}

#[test]
fn a_relay_that_does_not_block_is_found_and_shrunk_to_at_most_three_messages() {
    let seed = 1;
    let buggy = runner("no-block");
    let (cases, requests) = scenarios(seed);
    let problems = check_all(&buggy, &cases, &requests);
    let (index, problem) = problems.first().cloned().expect("the planted bug is found");
    let finding = shrink(&buggy, seed, index, problem);
    assert!(
        finding.shrunk.scenario.messages.len() <= 3,
        "{}",
        finding.report("fake")
    );
    assert!(finding.reference_is_right);
    let report = finding.report("fake");
    assert!(report.contains("As a ready case"), "{report}");
    assert!(report.contains("\"name\": \"regression_s1_"), "{report}");
    println!("{report}");
}
