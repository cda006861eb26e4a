//! What a broken runner or demo cannot do to the harness: hold its memory,
//! stretch its run, get another case blamed, or outlive it. Each test
//! drives the fake runner (src/bin/fake-runner.rs) through the real process
//! layer and measures what the limits are about.
//!
//! The memory figures are this test process's peak resident set (VmHWM);
//! run one test alone (`cargo test --test reliability <name> -- --nocapture`)
//! to read the figure of one flood.

use std::env::var;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parity::exec;
use parity::fault::{Fault, FaultKind, Stderr};
use parity::judge::answers::answers as judge_answers;
use parity::judge::{emit, Reason, Verdict};
use parity::protocol::{Reply, Request};
use parity::suite::executor::DEMO_CONFIG;
use parity::suite::{Executor, Port};
use parity::table::Case;
use parity::toolchain::manifest::Manifest;

mod common;

use common::*;

const TIMEOUT: Duration = Duration::from_secs(2);
/// What a deadline may be overrun by on a busy machine: far below what a
/// child left to run would take (it sleeps 300 s or never ends), so a bound
/// `deadline + SLACK` still tells "killed at the deadline" from "waited".
const SLACK: Duration = Duration::from_secs(20);
/// The bound on the harness's memory whatever a child prints.
const MAX_PEAK_MB: u64 = 200;

/// This process's peak resident set so far, in MB.
fn peak_rss_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb = status.lines().find_map(|l| l.strip_prefix("VmHWM:"));
    let kb = kb.expect("VmHWM in /proc/self/status").trim();
    kb.trim_end_matches(" kB").parse::<u64>().unwrap() / 1024
}

/// `f()`, which must end within `deadline` and [`SLACK`] and leave the
/// peak resident set under [`MAX_PEAK_MB`]; both figures are printed.
fn bounded<T>(what: &str, deadline: Duration, f: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let result = f();
    let elapsed = started.elapsed();
    let peak = peak_rss_mb();
    println!("{what}: {elapsed:?}, peak RSS {peak} MB");
    assert!(elapsed < deadline + SLACK, "{what}: took {elapsed:?}");
    assert!(peak < MAX_PEAK_MB, "{what}: peak RSS {peak} MB");
    result
}

/// The log a fault keeps, which must hold something and be the one its
/// message shows users (`… is in <path>`, from the repository root).
fn kept_log(fault: &Fault) -> PathBuf {
    let named = fault.log().expect("the fault names its log");
    assert_holds(&fault.to_string(), &[&format!("is in {}", named.display())]);
    let log = parity::repo_root().join(named);
    let size = std::fs::metadata(&log).unwrap().len();
    assert!(size > 0, "{log:?} is empty");
    log
}

/// Whatever a runner prints, the case it was on fails alone with a short
/// message, in bounded time and memory, and the next cases are judged: a
/// flood of stderr is cut off at the timeout (its log cut), an endless
/// line or a string over the case's answer limit (100 MB, or 7 MB to a
/// seed case) at that limit, and a 7 MB string under it is quoted cut.
#[test]
fn a_flood_or_a_huge_answer_fails_its_case_alone_with_bounded_memory() {
    let mut cases = seed_cases();
    cases.truncate(3);
    // A case whose answer may be long (a 1.5 MB aggregate), so that 7 MB
    // is under its answer limit and 100 MB over it.
    cases[0].scenario.messages[0].aggregate = "o".repeat(1_500_000);
    cases[0].expect = parity::oracle::expect(&cases[0].scenario);
    assert!(Request::case(&cases[0]).answer_limit > 7_100_000);
    let over = "where this case's answer was due";
    let limit = format!("at most {} are read", Request::case(&cases[1]).answer_limit);
    let all: Vec<&Case> = cases.iter().collect();
    // The fake (a debug build) takes seconds to make 100 MB of JSON.
    let slow = Duration::from_secs(30);
    let contract = parity::contract::Contract::repo().unwrap();
    for (fault, index, deadline, said) in [
        ("stderr-flood", 1, TIMEOUT, "gave no answer within 2 s"),
        ("endless-line", 1, TIMEOUT, limit.as_str()),
        ("big-string", 0, slow, "journal"),
        ("huge-string", 0, slow, over),
        ("big-string", 1, slow, over),
    ] {
        let runner = session(fault, fault, &cases[index].name, deadline);
        let replies = bounded(fault, deadline, || runner.run(&Request::cases(&cases)));
        if fault == "stderr-flood" {
            let fault = take!(&replies[1], Reply::Fault(f) => f);
            take!(&fault.stderr, Stderr::Written { cut: true, .. });
            let log = kept_log(fault);
            assert!(std::fs::metadata(&log).unwrap().len() <= exec::KEEP as u64 + 100);
        }
        let verdicts = judge_answers((&parity::repo_root(), &contract), "fake", &all, replies);
        assert_eq!(verdicts.len(), cases.len(), "{fault}: a verdict per case");
        let verdicts = cases.iter().map(|c| c.name.clone()).zip(verdicts).collect();
        assert_only_case_fails(&verdicts, &cases[index].name, &[said]);
    }
}

#[test]
fn a_demo_printing_forever_is_cut_off_at_the_timeout_with_bounded_memory() {
    let executor = Executor::new(Arc::new(suite(TIMEOUT)));
    let mut language = fake("fake-demo", "none", "none");
    language.demo = vec![FAKE_RUNNER.into(), "demo-forever".into()];
    let language = Port::from(language);
    let demo = || executor.run_demo(&language, Path::new(DEMO_CONFIG));
    let why = bounded("demo printing forever", TIMEOUT, demo).unwrap_err();
    assert_holds(&why, &["did not finish within 2 s"]);
}

/// Runs the suite's trials for `language` but its demo and unit tests,
/// slow and not about its runner.
fn run_trials(language: Manifest) -> common::Run {
    let skip = vec!["/demo".into(), "/unit".into()];
    run_language(suite(TIMEOUT), language, skip)
}

#[test]
fn a_runner_that_cannot_start_costs_its_language_seconds_and_three_starts() {
    let pids = common::scratch("reliability/cannot-start").join("pids");
    let mut language = fake("fake-syntax", "cannot-start", "*");
    language.runner = counting(&pids, language.runner);
    // 140 s before the budget: a minute is the bound, the figure is printed.
    let bound = Duration::from_secs(60) - SLACK;
    let trials = || run_trials(language);
    let run = bounded("a runner that cannot start", bound, trials);
    let verdicts = run.verdicts();
    let starts = pids_in(&pids).len();
    assert_eq!(starts, 3, "started once per fault of the budget");
    // Each faulting start keeps a log of its own, never overwritten, and
    // the budget's fault names the last start's.
    let cases = seed_cases();
    let case_fault =
        |name: &str| take!(failure(&verdicts, name), Reason::Fault { fault, .. } => &**fault);
    let logs: Vec<PathBuf> = (cases[..3].iter())
        .map(|case| case_fault(&case.name))
        .inspect(|fault| {
            take!(&fault.kind, FaultKind::Exited { .. });
            take!(&fault.stderr, Stderr::Written { tail, .. } if tail.contains("SyntaxError"));
        })
        .map(kept_log)
        .collect();
    assert!(logs[0] != logs[1] && logs[1] != logs[2], "{logs:?}");
    let later = case_fault(&cases[5].name);
    let last = take!(&later.kind, FaultKind::BudgetSpent { in_a_row: 3, last, .. } => last);
    take!(&last.kind, FaultKind::Exited { .. });
    assert_eq!(kept_log(later), logs[2]);
    let generated = take!(failure(&verdicts, "generated"), Reason::Wrong(text) => text);
    // Every scenario is a runner fault, and a fault is never shrunk.
    let failed = generated.split(' ').next().unwrap();
    let faults = format!("\n{failed} of them are runner faults");
    assert_holds(generated, &[&faults]);
    assert!(!generated.contains("Shrunk"), "{generated}");
}

/// A runner that hangs on every case costs 3 timeouts, then the cases left
/// fail at once; so does one whose grandchild, in a session of its own,
/// holds stdin unread while more input than a pipe holds waits for it.
#[test]
fn a_runner_that_hangs_on_every_case_costs_three_timeouts_not_one_per_case() {
    let timeout = Duration::from_millis(700);
    let cases = seed_cases();
    let table = Request::cases(&cases);
    let size: usize = table.iter().map(|r| r.line.len()).sum();
    let rounds = (1 << 20) / size + 1;
    let piped = table.iter().cycle().take(table.len() * rounds);
    let piped: Vec<Request> = piped.cloned().collect();
    for (fault, requests) in [("hang", &table), ("setsid", &piped)] {
        let pids = common::scratch(&format!("reliability/{fault}-all")).join("pids");
        let mut runner = session(&format!("{fault}-all"), fault, "*", timeout);
        runner.command.argv = counting(&pids, runner.command.argv);
        let replies = bounded(fault, 3 * timeout, || runner.run(requests));
        if fault == "setsid" {
            // The grandchildren sleep 300 s: end them now they have been
            // shown to outlive their runners.
            for pid in pids_in(&pids) {
                // SAFETY: kill takes plain integers.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
        let first = take!(&replies[0], Reply::Fault(f) => f);
        take!(&first.kind, FaultKind::TimedOut { .. });
        let last = take!(replies.last().unwrap(), Reply::Fault(f) => &f.kind);
        let (on, last) = take!(last, FaultKind::BudgetSpent { in_a_row: 3, last_case, last, .. }
            => (last_case, last));
        assert_eq!(on, &cases[2].name, "{fault}");
        take!(&last.kind, FaultKind::TimedOut { .. });
    }
}

/// The own verdict of a trial that carries the fault after the last answer.
fn carried(reason: &Reason) -> &Verdict {
    let (fault, own) = take!(reason, Reason::Runner { fault, own } => (fault, own));
    take!(&fault.kind, FaultKind::AfterLastAnswer(_));
    own
}

/// A non-zero exit or a line after the last answer is the runner's fault,
/// never shrunk: the generated trial carries it, or with the table's cases
/// alone the last case's trial, saying the case's own answer was right.
#[test]
fn a_fault_after_the_last_answer_is_the_runners_and_is_never_shrunk() {
    let cases = seed_cases();
    let language = fake("fake-exit", "exit-after", "*");
    let verdicts = run_trials(language).verdicts();
    // Its status (4) is differential.rs's, read from the scenarios' run.
    let generated = failure(&verdicts, "generated");
    assert_eq!(carried(generated), &Verdict::Pass);
    assert_holds(&emit::text(generated), &["(on its own: pass)"]);
    for case in &cases {
        assert_eq!(verdicts[&case.name], Verdict::Pass, "{}", case.name);
    }
    let last = &cases.last().unwrap().name;
    for (fault, did) in [
        ("exit-after", "exited (exit status: 4)."),
        ("chatter", "printed more:\n  and one more thing"),
    ] {
        let language = fake(&format!("fake-{fault}"), fault, last);
        let verdicts = run_language(suite(TIMEOUT), language, table_only()).verdicts();
        let reason = failure(&verdicts, last);
        assert_eq!(carried(reason), &Verdict::Pass, "{fault}");
        let after = format!("after answering every case, the fake-{fault} runner {did}");
        assert_holds(&emit::text(reason), &["(on its own: pass)", &after]);
        assert_eq!(verdicts[&cases[0].name], Verdict::Pass, "{fault}");
    }
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
    let named = "the reference fails on generated scenario 42 of seed 7";
    assert_holds(&why, &[named]);
}

#[test]
fn a_build_step_that_hangs_is_killed_at_its_deadline_with_what_it_left() {
    let pid_file = common::scratch("reliability/build-hang").join("setsid.pid");
    // One grandchild leaves the session, one only the group (same session,
    // found by the mark it inherits).
    let script = format!(
        "echo building; setsid sleep 300 & echo $! > {pids}; \
         python3 -c 'import os, time; os.setpgid(0, 0); time.sleep(300)' & echo $! >> {pids}; \
         sleep 300",
        pids = pid_file.display()
    );
    let language = building("fake-build", &script);
    let prepare = || language.prepare(&parity::repo_root(), Duration::from_millis(800));
    let why = bounded("a hanging build", Duration::ZERO, prepare).unwrap_err();
    let hung = "did not finish within 0.8 s, PARITY_BUILD_TIMEOUT";
    assert_holds(&why.to_string(), &[hung, "building"]);
    let pids = pids_in(&pid_file);
    assert_eq!(pids.len(), 2, "both grandchildren started");
    let ten_s = Duration::from_secs(10);
    assert_gone(&pids, ten_s, "grandchildren of the build outlived it");
    // Killed, and reaped: no zombie is left a child of the harness.
    let me = std::process::id().to_string();
    let ours = |pid: &i32| stat(*pid).is_some_and(|s| s.split_whitespace().nth(1) == Some(&me));
    let reaped = format!("the harness reaped its zombies of {pids:?}");
    wait_for(&reaped, ten_s, || !pids.iter().any(ours));
}

/// Not a test on its own: the harness process the signal lab starts and
/// interrupts. It runs a session of the fake runner named by
/// `RELIABILITY_FAULT` (one that hangs, or `none`), with pids appended to
/// `RELIABILITY_PIDS`.
#[test]
#[ignore = "started by the signal lab"]
fn harness_with_a_hanging_runner() {
    let (Ok(fault), Ok(pids)) = (var("RELIABILITY_FAULT"), var("RELIABILITY_PIDS")) else {
        return;
    };
    if var("RELIABILITY_RACE").is_ok_and(|race| race == "true") {
        // The run's own end, as fast as it can come: the moment the runner
        // dies, the process exits 0, racing the thread that kills the
        // children after a signal.
        let pids = PathBuf::from(&pids);
        std::thread::spawn(move || {
            let started = || !pids_in(&pids).is_empty();
            wait_for("the runner starts", Duration::from_secs(60), started);
            let runner = pids_in(&pids)[0];
            while !is_gone(runner) {
                std::thread::sleep(Duration::from_millis(1));
            }
            std::process::exit(0);
        });
    }
    let cases = seed_cases();
    let log_dir = format!("signal-{fault}-{}", std::process::id());
    let mut runner = session(&log_dir, &fault, &cases[1].name, Duration::from_secs(120));
    runner.command.argv = counting(Path::new(&pids), runner.command.argv);
    runner.run(&Request::cases(&cases));
}

/// This test binary, to run only the ignored test `name`.
fn ignored_test(name: &str) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.args(["--exact", name, "--ignored", "--nocapture"]);
    command
}

/// Sends `signal` to `harness`, a child this process started, and waits
/// for it to end.
fn signal(mut harness: Child, signal: i32) -> ExitStatus {
    // SAFETY: sends a signal to a child this process started.
    unsafe { libc::kill(harness.id() as i32, signal) };
    harness.wait().unwrap()
}

/// The harness process above, with the fake runner's `fault`, its pids
/// appended to `pids`, racing its own end with a signal if `race`.
fn harness(fault: &str, pids: &Path, race: bool) -> Command {
    let mut harness = ignored_test("harness_with_a_hanging_runner");
    harness
        .env("RELIABILITY_FAULT", fault)
        .env("RELIABILITY_PIDS", pids)
        .env("RELIABILITY_RACE", race.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    harness
}

/// Starts [`harness`] and waits until its runner writes that it hangs on
/// its case (not a fixed time).
fn start_hanging_harness(fault: &str, pids: &Path, race: bool) -> Child {
    let _ = std::fs::remove_file(pids);
    let harness = harness(fault, pids, race).spawn().unwrap();
    let hanging = || std::fs::read_to_string(pids).is_ok_and(|t| t.lines().any(|l| l == "hanging"));
    let minute = Duration::from_secs(60);
    wait_for("the runner hangs on its case", minute, hanging);
    harness
}

/// Not a test on its own: where the signal tests happen. A subreaper that
/// never sweeps, so what a signalled harness leaves comes here and stays
/// (in the test process, another test's sweep could kill it first and hide
/// a missing kill or sweep).
///
/// SIGINT (its runner leaving a grandchild in a session of its own) and
/// SIGTERM to a harness whose runner hangs: every process of the run is
/// gone, and the status is 130 or 143 every time, even when the run's own
/// end comes first (`race`: the harness exits 0 the moment its runner
/// dies, while the thread that kills the children after SIGTERM is still
/// sweeping the runner's grandchild; 5 rounds). SIGKILL: the runner dies
/// with the harness, and the next run sweeps the grandchild.
#[test]
#[ignore = "started by the signal test"]
fn signal_lab() {
    if std::env::var_os("RELIABILITY_LAB").is_none() {
        return;
    }
    // SAFETY: sets a flag of this process.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    let mut wrong = Vec::new();
    for (name, fault, signal, status, rounds) in [
        ("sigint", "setsid", libc::SIGINT, 130, 1),
        ("sigterm", "hang", libc::SIGTERM, 143, 1),
        ("race", "setsid", libc::SIGTERM, 143, 5),
    ] {
        let pids = common::scratch(&format!("reliability/interrupt-{name}")).join("pids");
        for round in 0..rounds {
            let harness = start_hanging_harness(fault, &pids, name == "race");
            let ended = self::signal(harness, signal);
            if ended.code() != Some(status) {
                wrong.push(format!("{name}, round {round}: {ended}"));
            }
            let left = format!("left after {name}");
            assert_gone(&pids_in(&pids), Duration::from_secs(10), &left);
        }
    }
    assert!(wrong.is_empty(), "ended otherwise: {wrong:?}");
    let pids = common::scratch("reliability/sigkill").join("pids");
    let killed = start_hanging_harness("setsid", &pids, false);
    let [runner, grandchild] = pids_in(&pids)[..] else {
        panic!("the runner and its grandchild: {:?}", pids_in(&pids));
    };
    signal(killed, libc::SIGKILL);
    let five_s = Duration::from_secs(5);
    let outlived = "the runner outlived its harness, killed by SIGKILL";
    assert_gone(&[runner], five_s, outlived);
    let left = "the grandchild in a session of its own is left until the next run";
    assert!(!is_gone(grandchild), "{left}");
    // A new run that starts a runner, which answers every case: its
    // harness sweeps what the killed one left.
    let next = harness("none", &pids.with_extension("next"), false).status();
    assert!(next.as_ref().unwrap().success(), "{next:?}");
    let left = "the next run left the grandchild of the killed run running";
    assert_gone(&[grandchild], five_s, left);
    // A grandchild that joins the harness's own group, its environment (the
    // mark) cleared, is swept when the run ends.
    let pids = common::scratch("reliability/joins").join("pids");
    let joined = harness("joins", &pids, false).status().unwrap();
    assert!(joined.success(), "{joined}");
    let left = "the grandchild in the harness's own group outlived the run";
    assert_gone(&pids_in(&pids), five_s, left);
    // Reap the orphans that came here.
    // SAFETY: waits for any child of this process without blocking.
    while unsafe { libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG) } > 0 {}
}

#[test]
fn after_sigint_sigterm_or_sigkill_nothing_is_left_running() {
    let mut lab = ignored_test("signal_lab");
    lab.env("RELIABILITY_LAB", "1");
    // Its own waits take 10 minutes at the most (60 s for each of 9 starts).
    let lab = common::output(lab, Duration::from_secs(660));
    let [stdout, stderr] = [&lab.stdout, &lab.stderr].map(|o| String::from_utf8_lossy(o));
    assert!(lab.status.success(), "{stdout}\n{stderr}");
}
