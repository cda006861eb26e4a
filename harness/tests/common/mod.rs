//! What several test files share: a valid case to break, scratch folders,
//! languages and sessions of the fake runner (src/bin/fake-runner.rs), inner
//! runs of the suite, and waiting for a sign with a deadline. Each test file
//! uses some of it.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use libtest_mimic::{Arguments, Conclusion};
use parity::config::{Kind, Settings};
use parity::exec;
use parity::judge::{Reason, Verdict};
use parity::report::trial::Recorded;
use parity::report::Report;
use parity::session::Session;
use parity::suite::{trials, Executor, Port, Recorder, Suite};
use parity::table::Case;
use parity::toolchain::manifest::{BuildStep, Manifest};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A valid case, for tests that break it one rule at a time.
pub const GOOD_CASE: &str = include_str!("good_case.json");

/// A file `name` in `dir` holding the good case alone.
pub fn good_file(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!(r#"{{"cases": [{GOOD_CASE}]}}"#)).unwrap();
    path
}

/// The JSON file at `path`, as `T`; the test fails naming the file.
pub fn read_json<T: DeserializeOwned>(path: &Path) -> T {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Rewrites the JSON file at `path` as `edit` changes it.
pub fn edit_json(path: &Path, edit: impl FnOnce(&mut Value)) {
    let mut value = read_json(path);
    edit(&mut value);
    std::fs::write(path, value.to_string()).unwrap();
}

/// What `key` holds in `harness/tests/<file>`, a test's plain data (inputs
/// and what they must give) with a description on the whole and on each
/// part that needs one, as JSON-Schema-Test-Suite's are.
pub fn fixture<T: DeserializeOwned>(file: &str, key: &str) -> T {
    let mut table: Value = read_json(&parity::repo_root().join("harness/tests").join(file));
    let rows = serde_json::from_value(table[key].take());
    rows.unwrap_or_else(|e| panic!("harness/tests/{file}: `{key}`: {e}"))
}

/// The fake runner, which misbehaves as its first argument says.
pub const FAKE_RUNNER: &str = env!("CARGO_BIN_EXE_fake-runner");

/// A fresh, empty folder `<target>/parity/tests/<path>`.
pub fn scratch(path: &str) -> PathBuf {
    parity::config::scratch_dir(path)
}

/// A checkout in the fresh scratch folder `name`: the repository's
/// `cases/schema.json` and the reference's manifest, and no case file.
pub fn checkout(name: &str) -> PathBuf {
    let (repo, root) = (parity::repo_root(), scratch(name));
    for file in ["cases/schema.json", "runners/rust/language.toml"] {
        std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
        std::fs::copy(repo.join(file), root.join(file)).unwrap();
    }
    root
}

/// The repository's suite, `timeout` the deadline of each answer.
pub fn suite(timeout: Duration) -> Suite {
    let settings = Settings {
        timeout,
        ..Settings::default()
    };
    Suite::load(&parity::repo_root(), settings).expect("the seed table loads")
}

/// The repository's table's cases.
pub fn seed_cases() -> Vec<Case> {
    suite(Settings::default().timeout).cases
}

/// A language whose runner is the fake runner, with `fault` on `case`, and
/// whose demo is the fake runner too; it plays every feature, as the
/// reference's oracle it answers with does.
pub fn fake(name: &str, fault: &str, case: &str) -> Manifest {
    let features = parity::contract::Contract::repo().unwrap().features();
    let mut fake = Manifest {
        name: name.into(),
        features: features.into_iter().collect(),
        probe: vec!["true".into()],
        runner: vec![FAKE_RUNNER.into(), fault.into(), case.into()],
        demo: vec![FAKE_RUNNER.into()],
        ..Manifest::default()
    };
    fake.unit.run = vec!["true".into()];
    fake
}

/// The fake language `name` whose one build step is the shell `script`.
pub fn building(name: &str, script: &str) -> Manifest {
    let mut language = fake(name, "none", "none");
    let step = ["sh", "-c", script].map(String::from).to_vec();
    language.build = vec![BuildStep::always(step)];
    language
}

/// A session of the fake runner with `fault` on `case` (`*`: every case),
/// its logs in a fresh scratch folder `log_dir` of the test file's own.
pub fn session(log_dir: &str, fault: &str, case: &str, deadline: Duration) -> Session {
    let log_dir = format!("{}/{log_dir}", env!("CARGO_CRATE_NAME"));
    let argv = fake("", fault, case).runner;
    let label = format!("the fake-{fault} runner");
    Session {
        command: exec::Command::new(label, argv, parity::repo_root(), deadline),
        log_dir: scratch(&log_dir),
        contract: parity::contract::Contract::repo().unwrap(),
    }
}

/// `argv` with `FAKE_PIDS=<pids>` set: the fake runner appends its pid
/// (and its grandchildren's) to that file at each start.
pub fn counting(pids: &Path, argv: Vec<String>) -> Vec<String> {
    let mut counted = vec!["env".into(), format!("FAKE_PIDS={}", pids.display())];
    counted.extend(argv);
    counted
}

/// The pids written in `file` so far.
pub fn pids_in(file: &Path) -> Vec<i32> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    text.lines().filter_map(|l| l.trim().parse().ok()).collect()
}

/// What `$value` binds as `$taken` (or nothing) when it matches `$pattern`
/// (and `$guard`); otherwise the test fails showing the value, which
/// `assert!(matches!(..))` would not.
#[macro_export]
macro_rules! take {
    ($value:expr, $pattern:pat $(if $guard:expr)? $(=> $taken:expr)?) => {
        match $value {
            $pattern $(if $guard)? => { $($taken)? }
            other => panic!(
                "expected {}, got {other:?}",
                stringify!($pattern $(if $guard)?)
            ),
        }
    };
}

/// The reason `trial` failed with; the test fails if it did not.
pub fn failure<'a>(verdicts: &'a BTreeMap<String, Verdict>, trial: &str) -> &'a Reason {
    match &verdicts[trial] {
        Verdict::Fail(reason) => reason,
        other => panic!("{trial} should fail, got {other:?}"),
    }
}

/// Skips every trial kind but the table's cases, as the harness lists
/// them, so a new kind cannot slip into a test's counts.
pub fn table_only() -> Vec<String> {
    Kind::ALL.iter().map(|k| format!("/{}", k.name())).collect()
}

/// The arguments of an inner run of the suite, skipping `skip`, that
/// writes to `log`, so its own summary line (a FAILED one, on purpose)
/// does not mix with this test binary's.
pub fn inner_args(log: &Path, skip: Vec<String>) -> Arguments {
    Arguments {
        skip,
        test_threads: Some(2),
        logfile: Some(log.to_string_lossy().into_owned()),
        ..Arguments::default()
    }
}

/// What an inner run of the suite's trials gave.
pub struct Run {
    pub suite: Arc<Suite>,
    pub args: Arguments,
    pub conclusion: Conclusion,
    pub records: Vec<Recorded>,
}

impl Run {
    /// Each trial's verdict, by the name of its row.
    pub fn verdicts(&self) -> BTreeMap<String, Verdict> {
        let verdict = |r: &Recorded| (r.id.row.name().to_owned(), r.verdict.clone());
        self.records.iter().map(verdict).collect()
    }

    /// The report page of the run.
    pub fn report(&self) -> Report {
        Executor::new(Arc::clone(&self.suite)).report(&self.records, &self.args)
    }
}

/// Runs `suite`'s trials as `args` select them.
pub fn run_suite(suite: Suite, args: Arguments) -> Run {
    let suite = Arc::new(suite);
    let recorder = Recorder::default();
    let conclusion = libtest_mimic::run(&args, trials(Arc::clone(&suite), &args, &recorder));
    let records = recorder.lock().unwrap().clone();
    Run {
        suite,
        args,
        conclusion,
        records,
    }
}

/// Runs `suite`'s trials for `language` alone, as `skip` leaves them, the
/// inner run writing to a log in a fresh scratch folder named for the test
/// file and the language (the tests of a file name their languages apart).
pub fn run_language(mut suite: Suite, port: impl Into<Port>, skip: Vec<String>) -> Run {
    let port = port.into();
    let log = scratch(&format!("{}/{}", env!("CARGO_CRATE_NAME"), port.name));
    suite.ports = vec![Arc::new(port)];
    run_suite(suite, inner_args(&log.join("inner.log"), skip))
}

/// Fails the test unless `text` holds every one of `needles`, naming the
/// one missing and showing the text.
#[track_caller]
pub fn assert_holds(text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(text.contains(needle), "{needle:?} not in:\n{text}");
    }
}

/// The faulty case fails with a short message (a runner's output is
/// quoted cut) holding every `needle`; all others are still checked and
/// pass.
pub fn assert_only_case_fails(verdicts: &BTreeMap<String, Verdict>, case: &str, needles: &[&str]) {
    let message = parity::judge::emit::text(failure(verdicts, case));
    let size = message.len();
    assert!(size < 20_000, "{case}: {size} bytes of message");
    assert_holds(&message, needles);
    let pass = &Verdict::Pass;
    for (name, verdict) in verdicts.iter().filter(|(name, _)| *name != case) {
        assert_eq!(verdict, pass, "{name} should still be checked and pass");
    }
}

/// Fails the test when a check found `problems`, listing them one a line
/// after `what`.
pub fn assert_none(problems: &[String], what: &str) {
    assert!(problems.is_empty(), "{what}:\n  {}", problems.join("\n  "));
}

/// Waits until `ready` holds, failing the test with `what` after `within`.
pub fn wait_for(what: &str, within: Duration, ready: impl Fn() -> bool) {
    let deadline = Instant::now() + within;
    while !ready() {
        assert!(Instant::now() < deadline, "{what}: not within {within:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// What `/proc/<pid>/stat` holds after the command's name (its state
/// first, then its parent's pid), or None for no such process.
pub fn stat(pid: i32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    Some(stat.rsplit(')').next()?.trim_start().to_owned())
}

/// Whether the process `pid` is gone: none such, or a zombie.
pub fn is_gone(pid: i32) -> bool {
    stat(pid).is_none_or(|stat| stat.starts_with('Z'))
}

/// Waits until every one of `pids` is gone, failing the test with `what`
/// and the pids after `within`.
pub fn assert_gone(pids: &[i32], within: Duration, what: &str) {
    let gone = || pids.iter().all(|&pid| is_gone(pid));
    wait_for(&format!("{what}: {pids:?}"), within, gone);
}

/// `f()` on a thread, failing the test if it does not end within `limit`:
/// a regression fails, not hangs.
pub fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (done, result) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(f());
    });
    result
        .recv_timeout(limit)
        .unwrap_or_else(|_| panic!("it hung: no result within {limit:?}"))
}

/// A named pipe (FIFO) at `path`.
pub fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success(), "mkfifo {}: {made}", path.display());
}

/// The bless binary (`make bless`, `make new-case`) started in the
/// repository, not as in CI.
pub fn bless() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_bless"));
    command.current_dir(parity::repo_root()).env_remove("CI");
    command
}

/// What `command` printed and how it ended, failing the test if it has
/// not ended within `limit`.
pub fn output(mut command: Command, limit: Duration) -> Output {
    within(limit, move || command.output().unwrap())
}

/// How `command` ended (its exit code, none for a signal) and its stderr,
/// failing the test if it has not ended within a minute.
pub fn ended(command: Command) -> (Option<i32>, String) {
    let out = output(command, Duration::from_secs(60));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), stderr)
}
