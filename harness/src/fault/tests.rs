//! The fault texts word for word, and paths shown relative to the root.

use super::*;

fn fault(kind: FaultKind, stderr: Stderr) -> Fault {
    Fault {
        runner: "the go runner".into(),
        kind,
        stderr,
    }
}

/// The messages users read, word for word: the time-out's says what
/// to do next, and a kept stderr names its log.
#[test]
fn each_fault_reads_as_users_know_it() {
    let timed_out = fault(
        FaultKind::TimedOut {
            deadline: Duration::from_millis(1500),
        },
        Stderr::Empty,
    );
    assert_eq!(
        timed_out.to_string(),
        "the go runner gave no answer within 1.5 s (PARITY_TIMEOUT); its process group was \
         killed and the cases after this one went to a fresh runner. If the case is only \
         slow, raise PARITY_TIMEOUT; to look at it alone, run its trial by name.\n(it wrote \
         nothing to stderr)"
    );
    let kept = Stderr::Written {
        tail: "panic: boom\nexit".into(),
        log: PathBuf::from("target/parity/go/runner-1-0.stderr"),
        unkept: None,
        total: 9000,
        cut: true,
    };
    let garbage = fault(
        FaultKind::Malformed {
            why: "not JSON".into(),
            line: "hello".into(),
        },
        kept.clone(),
    );
    assert_eq!(
        garbage.to_string(),
        "the go runner printed a line that is not the protocol's answer (not JSON):\n  hello\n\
         stderr (last lines; what was kept of it is in target/parity/go/runner-1-0.stderr; it \
         wrote 9000 bytes, of which the start and the end were kept):\n  panic: boom\n  exit"
    );
    assert_eq!(
        garbage.log(),
        Some(Path::new("target/parity/go/runner-1-0.stderr"))
    );
    let spent = fault(
        FaultKind::BudgetSpent {
            in_a_row: 3,
            left: 4,
            last_case: "lost_ack".into(),
            last: Box::new(garbage),
        },
        Stderr::NotShown,
    );
    assert_eq!(
        spent.to_string(),
        "not run: the go runner faulted on 3 cases in a row (not counting its known \
         failures), so it was not started again for the 4 case(s) left. The last fault, on \
         case `lost_ack`: the go runner printed a line that is not the protocol's answer (not \
         JSON):\n(its stderr is in target/parity/go/runner-1-0.stderr; the cases before name \
         the other faults.)"
    );
    assert_eq!(spent.kind.id(), "budget_spent");
    assert_eq!(
        spent.log(),
        Some(Path::new("target/parity/go/runner-1-0.stderr"))
    );
}

/// Paths under the folder a runner starts in (the root) are made
/// relative where the session makes the fault: the log, the stderr tail,
/// the command line of a runner that could not start.
#[test]
fn a_sessions_faults_name_paths_relative_to_the_root() {
    use crate::protocol::Request;
    use crate::session::Session;
    let root = crate::config::scratch_dir("relative-faults");
    let session = |argv: Vec<String>| Session {
        command: crate::exec::Command::new("the go runner", argv, &root, Duration::from_secs(10)),
        log_dir: root.join("logs"),
        contract: crate::contract::Contract::repo().unwrap(),
    };
    let request = [Request {
        name: "c".into(),
        line: "{}".into(),
        answer_limit: 100,
    }];
    let shell = |script: &str| vec!["sh".into(), "-c".into(), script.into()];
    let only = |session: Session| match session.run(&request).remove(0) {
        crate::protocol::Reply::Fault(fault) => *fault,
        other => panic!("not a fault: {other:?}"),
    };
    let crash = only(session(shell(
        "echo at $PWD/runners/go/main.go:3 >&2; exit 3",
    )));
    let log = crash.log().expect("a log").to_path_buf();
    assert!(log.starts_with("logs"), "{log:?}");
    assert!(root.join(&log).is_file(), "{log:?}");
    let missing = format!("{}/runners/none", root.display());
    let unstarted = only(session(vec![missing]));
    for shown in [crash.to_string(), unstarted.to_string()] {
        assert!(!shown.contains(&root.display().to_string()), "{shown}");
        assert!(shown.contains("runners/"), "{shown}");
    }
}
