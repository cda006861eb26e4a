//! What a broken runner or demo cannot do to the harness: hold its memory,
//! stretch its run, get another case blamed, or outlive it. Each test
//! drives the fake runner (src/bin/fake-runner.rs) through the real process
//! layer and measures what the limits are about.
//!
//! The memory figures are this test process's peak resident set (VmHWM);
//! run one test alone (`cargo test --test reliability <name> -- --nocapture`)
//! to read the figure of one flood.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use parity::config::Settings;
use parity::exec;
use parity::judge::demo::Demo;
use parity::judge::Verdict;
use parity::protocol::{Reply, Request};
use parity::session::{Runner, Session};
use parity::suite::Suite;
use parity::table::Case;
use parity::toolchain::Language;

const TIMEOUT: Duration = Duration::from_secs(2);
/// The bound on the harness's memory whatever a child prints.
const MAX_PEAK_MB: u64 = 200;

fn fake_runner() -> String {
    env!("CARGO_BIN_EXE_fake-runner").into()
}

fn scratch(name: &str) -> PathBuf {
    let dir = parity::config::scratch_dir(&parity::repo_root(), "reliability").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn session(name: &str, fault: &str, case: &str) -> Session {
    Session {
        command: exec::Command {
            label: format!("the fake-{fault} runner"),
            argv: vec![fake_runner(), fault.into(), case.into()],
            dir: parity::repo_root(),
            deadline: TIMEOUT,
            keep: exec::KEEP,
        },
        log_dir: scratch(name),
    }
}

fn seed_cases() -> Vec<Case> {
    let settings = Settings {
        timeout: TIMEOUT,
        ..Settings::default()
    };
    Suite::load(&parity::repo_root(), settings)
        .expect("the seed table loads")
        .cases
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

fn fault_of(reply: &Reply) -> &str {
    match reply {
        Reply::Fault(why) => why,
        other => panic!("expected a fault, got {other:?}"),
    }
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
    let path = PathBuf::from(path.trim_end_matches(['.', ',']));
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
    let started = Instant::now();
    let replies = runner.run(&Request::cases(&cases));
    let elapsed = started.elapsed();
    let peak = peak_rss_mb();
    println!("stderr flood: {elapsed:?}, peak RSS {peak} MB");
    let message = fault_of(&replies[1]);
    assert!(message.contains("gave no answer within 2 s"), "{message}");
    assert!(message.contains("of which the start and the end were kept"), "{message}");
    let log = log_named_in(message);
    assert!(std::fs::metadata(&log).unwrap().len() <= exec::KEEP as u64 + 100);
    assert!(message.len() < 20_000, "{} bytes of message", message.len());
    assert!(elapsed < TIMEOUT + Duration::from_secs(3), "took {elapsed:?}");
    assert!(peak < MAX_PEAK_MB, "peak RSS {peak} MB");
}

#[test]
fn a_runner_printing_one_endless_line_is_cut_off_with_bounded_memory() {
    let cases = seed_cases();
    let runner = session("endless-line", "endless-line", &cases[1].name);
    let started = Instant::now();
    let replies = runner.run(&Request::cases(&cases));
    let elapsed = started.elapsed();
    let peak = peak_rss_mb();
    println!("endless stdout line: {elapsed:?}, peak RSS {peak} MB");
    let message = fault_of(&replies[1]);
    assert!(message.contains("printed a line of more than"), "{message}");
    assert!(message.len() < 20_000, "{} bytes of message", message.len());
    assert!(elapsed < TIMEOUT + Duration::from_secs(3), "took {elapsed:?}");
    assert!(peak < MAX_PEAK_MB, "peak RSS {peak} MB");
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
        name: "fake-demo".into(),
        probe: vec!["true".into()],
        install_hint: String::new(),
        build: Vec::new(),
        runner: Vec::new(),
        demo: vec![fake_runner(), "demo-forever".into()],
        unit: Vec::new(),
    };
    let started = Instant::now();
    let why = demo.check(&language).unwrap_err();
    let elapsed = started.elapsed();
    let peak = peak_rss_mb();
    println!("demo printing forever: {elapsed:?}, peak RSS {peak} MB");
    assert!(why.contains("did not finish within 2 s"), "{why}");
    assert!(elapsed < TIMEOUT + Duration::from_secs(3), "took {elapsed:?}");
    assert!(peak < MAX_PEAK_MB, "peak RSS {peak} MB");
}

#[test]
fn a_huge_string_in_an_answer_is_cut_in_the_message() {
    let cases = seed_cases();
    for (fault, bound) in [("big-string", "journal"), ("huge-string", "more than")] {
        let runner = session(fault, fault, &cases[0].name);
        let replies = runner.run(&Request::cases(&cases[..2]));
        let suite_cases: Vec<&Case> = cases[..2].iter().collect();
        let suite = Suite::load(&parity::repo_root(), Settings::default()).unwrap();
        let verdicts = suite.judge("fake", &suite_cases, replies);
        let Verdict::Fail(reason) = &verdicts[0] else {
            panic!("{fault}: {:?}", verdicts[0]);
        };
        let message = reason.to_string();
        println!("{fault}: a message of {} bytes, peak RSS {} MB", message.len(), peak_rss_mb());
        assert!(message.contains(bound), "{fault}: {}", &message[..message.len().min(2000)]);
        assert!(message.len() < 20_000, "{fault}: {} bytes of message", message.len());
        assert_eq!(verdicts[1], Verdict::Pass, "{fault}: the next case is judged");
    }
    assert!(peak_rss_mb() < MAX_PEAK_MB, "peak RSS {} MB", peak_rss_mb());
}

#[allow(dead_code)]
fn exists(pid: i32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}
