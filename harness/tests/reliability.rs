//! What a broken runner or demo cannot do to the harness: hold its memory,
//! stretch its run, get another case blamed, or outlive it. Each test
//! drives the fake runner (src/bin/fake-runner.rs) through the real process
//! layer and measures what the limits are about.
//!
//! The memory figures are this test process's peak resident set (VmHWM);
//! run one test alone (`cargo test --test reliability <name> -- --nocapture`)
//! to read the figure of one flood.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use parity::exec;
use parity::fault::{After, Fault, FaultKind, Stderr};
use parity::judge::answers::answers as judge_answers;
use parity::judge::{emit, Carrier, Reason, RunnerFault, Verdict};
use parity::protocol::{Reply, Request};
use parity::session::{Runner, Session};
use parity::suite::executor::Demo;
use parity::table::Case;
use parity::toolchain::Language;

mod common;

use common::{
    case_fault, counting, failure, fake_language, fault_of, gone_within, is_gone, pids_in,
    seed_cases, wait_for, FAKE_RUNNER,
};

const TIMEOUT: Duration = Duration::from_secs(2);
/// What a deadline may be overrun by on a busy machine: far below what a
/// child left to run would take (it sleeps 300 s or never ends), so a bound
/// `deadline + SLACK` still tells "killed at the deadline" from "waited".
const SLACK: Duration = Duration::from_secs(20);
/// The bound on the harness's memory whatever a child prints.
const MAX_PEAK_MB: u64 = 200;

/// A folder of its own for `name`, fresh.
fn scratch(name: &str) -> PathBuf {
    common::scratch(&format!("reliability/{name}"))
}

/// A session of the fake runner with `fault` on `case`, its deadline
/// [`TIMEOUT`], its logs in the folder `name`.
fn session(name: &str, fault: &str, case: &str) -> Session {
    common::session(&format!("reliability/{name}"), fault, case, TIMEOUT)
}

/// This process's peak resident set so far, in MB.
fn peak_rss_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("VmHWM in /proc/self/status");
    let kb: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap();
    kb / 1024
}

/// `f()`, which must end within [`TIMEOUT`] and [`SLACK`] and leave the
/// peak resident set under [`MAX_PEAK_MB`]; both figures are printed.
fn bounded<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let result = f();
    let elapsed = started.elapsed();
    let peak = peak_rss_mb();
    println!("{what}: {elapsed:?}, peak RSS {peak} MB");
    assert!(elapsed < TIMEOUT + SLACK, "{what}: took {elapsed:?}");
    assert!(peak < MAX_PEAK_MB, "{what}: peak RSS {peak} MB");
    result
}

/// The log file a message points to (`… is in <path>`), which must exist
/// and hold something.
fn log_named_in(message: &str) -> PathBuf {
    let start = message
        .find("is in ")
        .unwrap_or_else(|| panic!("no log named in:\n{message}"))
        + "is in ".len();
    let path: String = message[start..]
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != ';' && *c != ')')
        .collect();
    // Messages name files relative to the repository root.
    let path = parity::repo_root().join(path.trim_end_matches(['.', ',']));
    let size = std::fs::metadata(&path)
        .unwrap_or_else(|e| panic!("the log {} named in the message: {e}", path.display()))
        .len();
    assert!(size > 0, "the log {} is empty", path.display());
    path
}

#[test]
fn a_runner_flooding_stderr_is_cut_off_at_the_timeout_with_bounded_memory() {
    let cases = seed_cases();
    let runner = session("stderr-flood", "stderr-flood", &cases[1].name);
    let replies = bounded("stderr flood", || runner.run(&Request::cases(&cases)));
    let fault = fault_of(&replies[1]);
    assert_eq!(fault.kind, FaultKind::TimedOut { deadline: TIMEOUT });
    assert!(
        matches!(fault.stderr, Stderr::Written { cut: true, .. }),
        "{fault:?}"
    );
    let message = fault.to_string();
    // The path users read is the log kept.
    let log = log_named_in(&message);
    assert_eq!(Some(log), fault.log().map(|l| parity::repo_root().join(l)));
    let log = parity::repo_root().join(fault.log().unwrap());
    assert!(std::fs::metadata(&log).unwrap().len() <= exec::KEEP as u64 + 100);
    assert!(message.len() < 20_000, "{} bytes of message", message.len());
}

#[test]
fn a_runner_printing_one_endless_line_is_cut_off_with_bounded_memory() {
    let cases = seed_cases();
    let runner = session("endless-line", "endless-line", &cases[1].name);
    let replies = bounded("endless stdout line", || {
        runner.run(&Request::cases(&cases))
    });
    let fault = fault_of(&replies[1]);
    assert!(
        matches!(fault.kind, FaultKind::TooLong { limit, .. } if limit == Request::case(&cases[1]).answer_limit),
        "{fault:?}"
    );
    let message = fault.to_string();
    assert!(message.len() < 20_000, "{} bytes of message", message.len());
    for reply in replies.iter().skip(2) {
        assert!(matches!(reply, Reply::Answer(_)), "{reply:?}");
    }
}

#[test]
fn a_demo_printing_forever_is_cut_off_at_the_timeout_with_bounded_memory() {
    let demo = Demo {
        root: parity::repo_root(),
        config: PathBuf::from("runners/demo.json"),
        transcript: PathBuf::from("runners/demo.transcript.txt"),
        deadline: TIMEOUT,
    };
    let language = Language {
        demo: vec![FAKE_RUNNER.into(), "demo-forever".into()],
        ..fake_language("fake-demo", Vec::new())
    };
    let why = bounded("demo printing forever", || {
        demo.run(&language, &demo.config).unwrap_err()
    });
    assert!(why.contains("did not finish within 2 s"), "{why:?}");
}

#[test]
fn a_huge_string_in_an_answer_is_cut_in_the_message() {
    let mut cases = seed_cases();
    // A case whose answer may be long (a 1.5 MB aggregate), so that 7 MB
    // is under its answer limit and 100 MB over it.
    cases[0].scenario.messages[0].aggregate = "o".repeat(1_500_000);
    cases[0].expect = parity::oracle::expect(&cases[0].scenario);
    assert!(Request::case(&cases[0]).answer_limit > 7_100_000);
    for (fault, bound) in [("big-string", "journal"), ("huge-string", "more than")] {
        let mut runner = session(fault, fault, &cases[0].name);
        // The fake (a debug build) takes seconds to make 100 MB of JSON.
        runner.command.deadline = Duration::from_secs(30);
        let replies = runner.run(&Request::cases(&cases[..2]));
        let suite_cases: Vec<&Case> = cases[..2].iter().collect();
        let verdicts = judge_answers(&parity::repo_root(), "fake", &suite_cases, replies);
        let Verdict::Fail(reason) = &verdicts[0] else {
            panic!("{fault}: {:?}", verdicts[0]);
        };
        let message = parity::judge::emit::text(reason);
        println!(
            "{fault}: a message of {} bytes, peak RSS {} MB",
            message.len(),
            peak_rss_mb()
        );
        assert!(
            message.contains(bound),
            "{fault}: {}",
            &message[..message.len().min(2000)]
        );
        assert!(
            message.len() < 20_000,
            "{fault}: {} bytes of message",
            message.len()
        );
        assert_eq!(
            verdicts[1],
            Verdict::Pass,
            "{fault}: the next case is judged"
        );
    }
    assert!(peak_rss_mb() < MAX_PEAK_MB, "peak RSS {} MB", peak_rss_mb());
}

/// The fake runner's command line, its pid (and its grandchildren's)
/// appended to `pids` at each start.
fn counted_argv(pids: &Path, fault: &str, case: &str) -> Vec<String> {
    counting(pids, vec![FAKE_RUNNER.into(), fault.into(), case.into()])
}

/// Runs the suite's trials for `language` (skipping the trials named in
/// `skip`); returns each trial's verdict by name and how long it took.
fn run_trials(
    name: &str,
    language: Language,
    skip: &[&str],
) -> (BTreeMap<String, Verdict>, Duration) {
    let skip = skip.iter().map(|s| (*s).to_owned()).collect();
    let log_dir = format!("reliability/{name}");
    let run = common::run_language(common::suite(TIMEOUT), language, &log_dir, skip);
    (run.verdicts(), run.elapsed)
}

/// The log a fault names, which must exist and hold something.
fn existing_log(fault: &Fault) -> PathBuf {
    let log = parity::repo_root().join(fault.log().expect("the fault names its log"));
    assert!(std::fs::metadata(&log).unwrap().len() > 0, "{log:?}");
    log
}

#[test]
fn a_runner_that_cannot_start_costs_its_language_seconds_and_three_starts() {
    let pids = scratch("cannot-start").join("pids");
    let language = fake_language("fake-syntax", counted_argv(&pids, "cannot-start", "*"));
    let (verdicts, elapsed) = run_trials("cannot-start-trials", language, &["/demo", "/unit"]);
    let starts = pids_in(&pids).len();
    println!(
        "a runner that cannot start: {elapsed:?} for {} trials, {starts} starts",
        verdicts.len()
    );
    assert_eq!(starts, 3, "started once per fault of the budget");
    // 140 s before the budget; the figure itself is printed above.
    assert!(elapsed < Duration::from_secs(60), "took {elapsed:?}");
    let cases = seed_cases();
    let first = case_fault(&verdicts, &cases[0].name);
    assert!(matches!(first.kind, FaultKind::Exited { .. }), "{first:?}");
    assert!(
        matches!(&first.stderr, Stderr::Written { tail, .. } if tail.contains("SyntaxError")),
        "{first:?}"
    );
    existing_log(first);
    let later = case_fault(&verdicts, &cases[5].name);
    let FaultKind::BudgetSpent { in_a_row, last, .. } = &later.kind else {
        panic!("the budget is spent: {later:?}");
    };
    assert_eq!(*in_a_row, 3);
    assert!(matches!(last.kind, FaultKind::Exited { .. }), "{last:?}");
    existing_log(later);
    // The log the message shows is the one the data names.
    assert_eq!(
        log_named_in(&later.to_string()),
        parity::repo_root().join(later.log().unwrap())
    );
    let Reason::Generated {
        failed,
        runner_faults,
        shrunk,
        ..
    } = failure(&verdicts, "generated")
    else {
        panic!("{:?}", verdicts["generated"]);
    };
    assert_eq!(runner_faults, failed, "every scenario is a runner fault");
    assert_eq!(*shrunk, None, "a fault is never shrunk");
}

#[test]
fn a_runner_that_hangs_on_every_case_costs_three_timeouts_not_one_per_case() {
    let timeout = Duration::from_millis(700);
    let cases = seed_cases();
    let mut runner = session("hang-all", "hang", "*");
    runner.command.deadline = timeout;
    let started = Instant::now();
    let replies = runner.run(&Request::cases(&cases));
    let elapsed = started.elapsed();
    println!("hangs on all {} cases: {elapsed:?}", cases.len());
    assert!(elapsed < 3 * timeout + SLACK, "took {elapsed:?}");
    assert!(matches!(
        fault_of(&replies[0]).kind,
        FaultKind::TimedOut { .. }
    ));
    let last = fault_of(replies.last().unwrap());
    assert!(
        matches!(&last.kind, FaultKind::BudgetSpent { in_a_row: 3, last_case, last, .. }
            if *last_case == cases[2].name && matches!(last.kind, FaultKind::TimedOut { .. })),
        "{last:?}"
    );
}

#[test]
fn a_grandchild_holding_stdin_unread_does_not_hold_the_session() {
    // More input than a pipe holds, so its writer blocks on a grandchild
    // that left the group and session, holds stdin and never reads it.
    let cases = seed_cases();
    let mut requests = Vec::new();
    while requests
        .iter()
        .map(|r: &Request| r.line.len())
        .sum::<usize>()
        < 1 << 20
    {
        requests.extend(Request::cases(&cases));
    }
    let dir = scratch("setsid-stdin");
    let pids = dir.join("pids");
    let mut runner = session("setsid-stdin", "setsid", "*");
    runner.command.argv = counted_argv(&pids, "setsid", "*");
    runner.command.deadline = Duration::from_millis(700);
    let started = Instant::now();
    let replies = runner.run(&requests);
    let elapsed = started.elapsed();
    // The grandchildren sleep 300 s: end them now they have been shown to
    // outlive their runners.
    for pid in pids_in(&pids) {
        // SAFETY: kill takes plain integers.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    assert!(
        elapsed < 3 * runner.command.deadline + SLACK,
        "took {elapsed:?}"
    );
    assert!(matches!(
        fault_of(&replies[0]).kind,
        FaultKind::TimedOut { .. }
    ));
}

#[test]
fn each_faulting_start_keeps_its_own_non_empty_log() {
    let cases = seed_cases();
    let runner = session("crash-logs", "crash", "*");
    let replies = runner.run(&Request::cases(&cases[..4]));
    let logs: Vec<PathBuf> = replies[..3]
        .iter()
        .map(|r| existing_log(fault_of(r)))
        .collect();
    assert!(logs[0] != logs[1] && logs[1] != logs[2], "{logs:?}");
    for (log, case) in logs.iter().zip(cases.iter().map(|c| &c.name)) {
        let text = std::fs::read_to_string(log).unwrap();
        assert!(text.contains("crashing on purpose"), "{case:?}: {text}");
    }
    // The budget's fault points to the last start's log, and so does its
    // message.
    assert_eq!(existing_log(fault_of(&replies[3])), logs[2]);
    assert_eq!(log_named_in(&fault_of(&replies[3]).to_string()), logs[2]);
}

#[test]
fn an_answer_printed_twice_blames_the_case_answered_twice() {
    let cases = seed_cases();
    let all: Vec<&Case> = cases.iter().collect();
    for twice in [1, cases.len() - 1] {
        let runner = session("twice", "twice", &cases[twice].name);
        let answers = runner.run_all(&Request::cases(&cases));
        assert_eq!(answers.after, None);
        let verdicts = judge_answers(&parity::repo_root(), "fake", &all, answers.replies);
        for (index, verdict) in verdicts.iter().enumerate() {
            if index == twice {
                let Verdict::Fail(Reason::Fault { case, fault }) = verdict else {
                    panic!("{verdict:?}");
                };
                assert_eq!(case.name, cases[twice].name);
                let next = cases.get(twice + 1).map(|c| c.name.clone());
                assert!(
                    matches!(&fault.kind, FaultKind::AnsweredTwice { next: n, .. } if *n == next),
                    "{fault:?}"
                );
            } else {
                assert_eq!(verdict, &Verdict::Pass, "{} is innocent", cases[index].name);
            }
        }
    }
}

#[test]
fn a_fault_after_the_last_answer_is_the_runners_and_is_never_shrunk() {
    let language = fake_language(
        "fake-exit",
        vec![FAKE_RUNNER.into(), "exit-after".into(), "*".into()],
    );
    let (verdicts, _) = run_trials("exit-after", language.clone(), &["/demo", "/unit"]);
    let exited_4 = |fault: &Fault| matches!(fault.kind, FaultKind::AfterLastAnswer(After::Exited { status: Some(s) }) if s.code() == Some(4));
    let generated = failure(&verdicts, "generated");
    assert!(
        matches!(generated, Reason::Runner(RunnerFault { fault, carrier: Carrier::Generated }) if exited_4(fault)),
        "{generated:?}"
    );
    let text = emit::text(generated);
    assert!(
        text.contains("answered every generated scenario right, then faulted"),
        "{text}"
    );
    let cases = seed_cases();
    for case in &cases {
        assert_eq!(verdicts[&case.name], Verdict::Pass, "{}", case.name);
    }
    // Without the generated scenarios, the last case's trial carries it,
    // saying the case's own answer was right.
    let (verdicts, _) = run_trials(
        "exit-after-table",
        language,
        &["/demo", "/unit", "/generated"],
    );
    let last = failure(&verdicts, &cases.last().unwrap().name);
    assert!(
        matches!(last, Reason::Runner(RunnerFault { fault, carrier: Carrier::LastCase(own) })
            if exited_4(fault) && **own == Verdict::Pass),
        "{last:?}"
    );
    let text = emit::text(last);
    assert!(text.contains("its own answer was right"), "{text}");
    assert_eq!(verdicts[&cases[0].name], Verdict::Pass);
}

#[test]
fn a_scenario_the_reference_refuses_is_named() {
    use parity::table::{Row, Scenario};
    let scenario = Scenario {
        batch_size: 1,
        messages: vec![Row::new(2, "order-1", "E1"), Row::new(1, "order-1", "E2")],
        passes: 1,
        ..Default::default()
    };
    let why = parity::differential::case_pair(&scenario, 7, 42).unwrap_err();
    assert!(
        why.contains("the reference fails on generated scenario 42 of seed 7"),
        "{why}"
    );
}

#[test]
fn a_build_step_that_hangs_is_killed_at_its_deadline_with_what_it_left() {
    let dir = scratch("build-hang");
    let pid_file = dir.join("setsid.pid");
    let mut language = fake_language("fake-build", vec![FAKE_RUNNER.into()]);
    // One grandchild leaves the session, one only the group (same session,
    // found by the mark it inherits).
    let script = format!(
        "echo building; setsid sleep 300 & echo $! > {pids}; \
         python3 -c 'import os, time; os.setpgid(0, 0); time.sleep(300)' & echo $! >> {pids}; \
         sleep 300",
        pids = pid_file.display()
    );
    language.build = vec![parity::toolchain::Step::always(vec![
        "sh".into(),
        "-c".into(),
        script,
    ])];
    let started = Instant::now();
    let why = language
        .prepare(&parity::repo_root(), Duration::from_millis(800))
        .unwrap_err()
        .to_string();
    let elapsed = started.elapsed();
    assert!(
        why.contains("did not finish within 0.8 s, PARITY_BUILD_TIMEOUT"),
        "{why}"
    );
    assert!(why.contains("building"), "{why}");
    assert!(elapsed < SLACK, "took {elapsed:?}");
    let pids = pids_in(&pid_file);
    assert_eq!(pids.len(), 2, "both grandchildren started");
    assert!(
        gone_within(&pids, Duration::from_secs(10)),
        "grandchildren of the build outlived it: {:?}",
        pids.iter().filter(|&&p| !is_gone(p)).collect::<Vec<_>>()
    );
    // Killed, and reaped: no zombie is left a child of the harness.
    let me = std::process::id().to_string();
    let ours = |pid: &i32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit(')')
                .next()
                .and_then(|rest| rest.split_whitespace().nth(1))
                == Some(&me)
        })
    };
    wait_for(
        &format!("a zombie of the harness was not reaped: {pids:?}: reaped"),
        Duration::from_secs(10),
        || !pids.iter().any(ours),
    );
}

/// Not a test on its own: the harness process the signal tests start and
/// interrupt. It runs a session of the fake runner named by
/// `RELIABILITY_FAULT`, which hangs, with pids appended to `RELIABILITY_PIDS`.
#[test]
#[ignore = "started by the signal tests"]
fn harness_with_a_hanging_runner() {
    let (Ok(fault), Ok(pids)) = (
        std::env::var("RELIABILITY_FAULT"),
        std::env::var("RELIABILITY_PIDS"),
    ) else {
        return;
    };
    if std::env::var_os("RELIABILITY_RACE").is_some() {
        // The run's own end, as fast as it can come: the moment the runner
        // dies, the process exits 0, racing the thread that kills the
        // children after a signal.
        let pids = PathBuf::from(&pids);
        std::thread::spawn(move || {
            wait_for("the runner starts", Duration::from_secs(60), || {
                !pids_in(&pids).is_empty()
            });
            let runner = pids_in(&pids)[0];
            while !is_gone(runner) {
                std::thread::sleep(Duration::from_millis(1));
            }
            std::process::exit(0);
        });
    }
    let cases = seed_cases();
    let log_dir = format!("signal-{fault}-{}", std::process::id());
    let mut runner = session(&log_dir, &fault, &cases[1].name);
    runner.command.argv = counted_argv(Path::new(&pids), &fault, &cases[1].name);
    runner.command.deadline = Duration::from_secs(120);
    runner.run(&Request::cases(&cases));
}

/// Whether the fake runner wrote, in `pids`, that it hangs on its case.
fn is_hanging(pids: &Path) -> bool {
    std::fs::read_to_string(pids).is_ok_and(|text| text.lines().any(|l| l == "hanging"))
}

/// This test binary, to run only the ignored test `name`.
fn ignored_test(name: &str) -> std::process::Command {
    let mut command = std::process::Command::new(std::env::current_exe().unwrap());
    command.args(["--exact", name, "--ignored", "--nocapture"]);
    command
}

/// Sends `signal` to `harness`, a child this test started, and waits for
/// it to end.
fn signal(mut harness: std::process::Child, signal: i32) -> std::process::ExitStatus {
    // SAFETY: sends a signal to the child this test started.
    unsafe {
        libc::kill(harness.id() as i32, signal);
    }
    harness.wait().unwrap()
}

/// Starts the harness process above with the fake runner's `fault` (and
/// `env`), and waits until that runner says it hangs on its case (not a
/// fixed time).
fn start_hanging_harness(fault: &str, pids: &Path, env: &[(&str, &str)]) -> std::process::Child {
    let _ = std::fs::remove_file(pids);
    let harness = ignored_test("harness_with_a_hanging_runner")
        .envs(env.iter().copied())
        .env("RELIABILITY_FAULT", fault)
        .env("RELIABILITY_PIDS", pids)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for(
        "the runner hangs on its case",
        Duration::from_secs(60),
        || is_hanging(pids),
    );
    harness
}

/// SIGINT (its runner leaving a grandchild in a session of its own) and
/// SIGTERM to a harness whose runner hangs: every process of the run is
/// gone, and the status is 130 or 143.
#[test]
fn sigint_or_sigterm_to_the_harness_ends_its_runner_and_grandchildren() {
    for (name, fault, signal, status) in [
        ("sigint", "setsid", libc::SIGINT, 130),
        ("sigterm", "hang", libc::SIGTERM, 143),
    ] {
        let pids = scratch(&format!("interrupt-{name}")).join("pids");
        let harness = start_hanging_harness(fault, &pids, &[]);
        let ended = self::signal(harness, signal);
        assert_eq!(ended.code(), Some(status), "{name}: {ended}");
        let pids = pids_in(&pids);
        assert!(
            gone_within(&pids, Duration::from_secs(10)),
            "left after {name}: {:?}",
            pids.iter().filter(|&&p| !is_gone(p)).collect::<Vec<_>>()
        );
    }
}

/// The exit status after a signal is the signal's every time, even when
/// the run's own end comes first: here the harness exits 0 the moment its
/// runner dies, while the thread that kills the children after SIGTERM is
/// still sweeping the runner's grandchild.
#[test]
fn after_sigterm_the_status_is_143_every_time() {
    let rounds = 5;
    let mut wrong = Vec::new();
    let pids = scratch("sigterm-race").join("pids");
    for round in 0..rounds {
        let harness = start_hanging_harness("setsid", &pids, &[("RELIABILITY_RACE", "1")]);
        let status = signal(harness, libc::SIGTERM);
        if status.code() != Some(143) {
            wrong.push(format!("round {round}: {status}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {rounds} rounds ended otherwise: {wrong:?}",
        wrong.len()
    );
}

/// Not a test on its own: a new run that starts one child, so its harness
/// sweeps what an earlier killed harness left.
#[test]
#[ignore = "started by the SIGKILL test"]
fn harness_that_starts_one_child() {
    let command = exec::Command {
        label: "true".into(),
        argv: vec!["true".into()],
        dir: parity::repo_root(),
        deadline: TIMEOUT,
        keep: exec::KEEP,
    };
    assert!(exec::run(&command, exec::Stdin::Null).unwrap().success());
}

/// Not a test on its own: where the SIGKILL test happens. A subreaper that
/// never sweeps, so the killed harness's orphans come here and stay until
/// the new run kills them (in the test process, another test's sweep could
/// kill them first and hide a missing sweep).
#[test]
#[ignore = "started by the SIGKILL test"]
fn sigkill_lab() {
    if std::env::var_os("RELIABILITY_LAB").is_none() {
        return;
    }
    // SAFETY: sets a flag of this process.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
    let pids = scratch("sigkill").join("pids");
    let harness = start_hanging_harness("setsid", &pids, &[]);
    let [runner, grandchild] = pids_in(&pids)[..] else {
        panic!("the runner and its grandchild: {:?}", pids_in(&pids));
    };
    signal(harness, libc::SIGKILL);
    assert!(
        gone_within(&[runner], Duration::from_secs(5)),
        "the runner {runner} outlived its harness, killed by SIGKILL"
    );
    assert!(
        !is_gone(grandchild),
        "the grandchild in a session of its own is left until the next run"
    );
    let next = ignored_test("harness_that_starts_one_child")
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(next.success(), "{next}");
    assert!(
        gone_within(&[grandchild], Duration::from_secs(5)),
        "the next run left the grandchild {grandchild} of the killed run running"
    );
    // Reap the orphans that came here.
    // SAFETY: waits for any child of this process without blocking.
    while unsafe { libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG) } > 0 {}
}

#[test]
fn a_harness_killed_by_sigkill_leaves_nothing_running() {
    let mut lab = ignored_test("sigkill_lab");
    lab.env("RELIABILITY_LAB", "1");
    // Its own waits take 70 s at the most.
    let lab = common::output(lab, Duration::from_secs(180));
    assert!(
        lab.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&lab.stdout),
        String::from_utf8_lossy(&lab.stderr)
    );
}
