//! The differential run finds a planted bug and shrinks it to a minimal case.

use std::time::Duration;

use parity::differential::{cases, check_all, shrink};
use parity::process::ProcessRunner;

fn runner(fault: &str) -> ProcessRunner {
    ProcessRunner {
        label: format!("the fake {fault} runner"),
        argv: vec![
            env!("CARGO_BIN_EXE_fake-runner").into(),
            fault.into(),
            "*".into(),
        ],
        dir: parity::repo_root(),
        timeout: Duration::from_secs(10),
        stderr_log: parity::repo_root().join(format!("target/parity/tests/{fault}.stderr")),
    }
}

#[test]
fn a_correct_runner_agrees_on_every_scenario() {
    let seed = 99;
    assert_eq!(check_all(&runner("none"), &cases(seed, 500)), Vec::new());
}

#[test]
fn a_relay_that_does_not_block_is_found_and_shrunk_to_at_most_three_messages() {
    let seed = 1;
    let buggy = runner("no-block");
    let problems = check_all(&buggy, &cases(seed, 500));
    let (index, problem) = problems.first().cloned().expect("the planted bug is found");
    let finding = shrink(&buggy, seed, index, problem);
    assert!(
        finding.shrunk.messages.len() <= 3,
        "{}",
        finding.report("fake")
    );
    assert!(finding.reference_is_right);
    let report = finding.report("fake");
    assert!(report.contains("As a ready case"), "{report}");
    assert!(report.contains("\"name\": \"regression_s1_"), "{report}");
    println!("{report}");
}
