//! A runner that answers like the Rust reference until it reaches one case,
//! then misbehaves in a chosen way. The harness's own tests use it to show
//! that each runner fault fails that case only, with a clear message.
//!
//! Usage: `fake-runner <fault> <case>` (`*`: every case; `a,b`: those
//! cases); faults: crash,
//! nasty-stderr (a crash whose stderr holds `\r`, U+202E, U+FFFE, NUL, ESC),
//! hang, grandchild, setsid (a grandchild in a session of its own, then a
//! hang), joins (a grandchild in the harness's own group, its environment
//! cleared, then the right answer), garbage, wrong-name, error, wrong-result (the answer's first
//! number far off), null-list (its first list null), stop, chatter, twice
//! (the answer printed twice), stderr-flood, endless-line, big-string (a
//! 7 MB item in its first list of strings, under the line bound),
//! huge-string (100 MB, over it), and `add:<field>=<JSON>` (a field no
//! code names added to the answer); whole-runner faults: `cannot-start` (exits at once like a
//! syntax error), `exit-after` (answers every case, then exits 4); and as a
//! demo, `demo-forever <config>` prints without end. The faults name no
//! field of the outcome: each finds its field by its shape.
//!
//! `FAKE_PIDS=<file>`: the pids of the runner and of any grandchild it
//! starts are appended to the file, for the tests that look for strays,
//! and then the line `hanging` once it hangs (`hang`, `setsid`).

use std::io::{self, BufRead, Write};
use std::process::{Command, ExitCode};
use std::time::Duration;

use serde_json::{json, Value};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [fault, target] = args.as_slice() else {
        eprintln!("usage: fake-runner <fault> <case>");
        return ExitCode::from(2);
    };
    let mut out = io::stdout().lock();
    if fault == "demo-forever" {
        while writeln!(out, "the demo that never ends").is_ok() {}
        return ExitCode::FAILURE;
    }
    record(&std::process::id().to_string());
    if fault == "cannot-start" {
        eprintln!("  File \"runner.py\", line 1\nSyntaxError: invalid syntax (fake)");
        return ExitCode::FAILURE;
    }
    for line in io::stdin().lock().lines() {
        let line = line.expect("stdin is readable");
        if let Some(code) = serve(fault, target, &line, &mut out) {
            return code;
        }
    }
    if fault == "exit-after" {
        eprintln!("fake runner: failing after the last answer");
        return ExitCode::from(4);
    }
    ExitCode::SUCCESS
}

/// Answers one request line: like the reference unless the case is
/// targeted, when it gets the fault's reply:
/// wrong, malformed, oversized, doubled, or (`none`, `exit-after`) right.
/// `Some` ends the runner with that exit code (a crash, a hang, a flood, a
/// stop).
fn serve(fault: &str, target: &str, line: &str, out: &mut impl Write) -> Option<ExitCode> {
    let answer = parity::oracle::answer(line);
    let mut value: Value = serde_json::from_str(&answer).expect("the oracle answers JSON");
    if target != "*" && !target.split(',').any(|t| value["name"] == t) {
        return print(out, &answer);
    }
    // A list whose first item is a string.
    let strings: fn(&Value) -> bool = |v| v.get(0).is_some_and(Value::is_string);
    let wrong = match fault {
        "crash" => {
            eprintln!("fake runner: crashing on purpose on {target}");
            return Some(ExitCode::from(3));
        }
        "nasty-stderr" => {
            // What XML forbids, what acts on a terminal, then a crash.
            eprintln!(
                "fake runner: FAILED\rok      \u{202e}desrever \u{fffe}\u{ffff}\u{0}\u{1b}[2J end"
            );
            return Some(ExitCode::from(3));
        }
        "hang" | "setsid" => {
            if fault == "setsid" {
                // Out of the runner's group and session: killing the group
                // does not reach it.
                // SAFETY: setsid is async-signal-safe and touches no memory.
                record(&sleep(&["sleep", "300"], || unsafe { libc::setsid() }));
            }
            record("hanging");
            std::thread::sleep(Duration::from_secs(3600));
            return Some(ExitCode::FAILURE);
        }
        "grandchild" => {
            // It inherits stdout and outlives us: only killing the process
            // group closes the pipe. Its pid goes under the target folder
            // (`CARGO_TARGET_DIR` when set), where the test looks.
            let target = parity::config::target_dir(&parity::repo_root());
            let pid_file = target.join("parity/fake-grandchild.pid");
            let _ = std::fs::write(pid_file, sleep(&["sleep", "30"], || 0));
            return Some(ExitCode::FAILURE);
        }
        "joins" => {
            record(&joins_the_harness());
            return print(out, &answer);
        }
        "stderr-flood" => {
            let chunk = "fake runner: flooding stderr ".repeat(1000);
            let mut err = io::stderr().lock();
            while writeln!(err, "{chunk}").is_ok() {}
            return Some(ExitCode::FAILURE);
        }
        "endless-line" => {
            let chunk = "x".repeat(64 * 1024);
            while out.write_all(chunk.as_bytes()).is_ok() {}
            return Some(ExitCode::FAILURE);
        }
        "stop" => return Some(ExitCode::SUCCESS),
        "big-string" => (first(&mut value, strings), json!(["y".repeat(7_000_000)])),
        "huge-string" => (first(&mut value, strings), json!(["y".repeat(100_000_000)])),
        "wrong-name" => (&mut value["name"], "someone_else".into()),
        "wrong-result" => (first(&mut value, Value::is_u64), 999.into()),
        "null-list" => (first(&mut value, Value::is_array), Value::Null),
        "garbage" => return print(out, "this is not the protocol"),
        "error" => return print(out, &json!({"name": target, "error": "boom"}).to_string()),
        "twice" => return print(out, &answer).or_else(|| print(out, &answer)),
        "chatter" => return print(out, &answer).or_else(|| print(out, "and one more thing")),
        "none" | "exit-after" => return print(out, &answer),
        other => match other.strip_prefix("add:").and_then(|a| a.split_once('=')) {
            Some((field, json)) => (&mut value[field], serde_json::from_str(json).expect("JSON")),
            None => panic!("unknown fault {other}"),
        },
    };
    *wrong.0 = wrong.1;
    print(out, &value.to_string())
}

/// The first field of an answer (its name aside) of a shape: what a fault
/// changes, found without naming a field of the outcome.
fn first(answer: &mut Value, shape: fn(&Value) -> bool) -> &mut Value {
    let fields = answer.as_object_mut().expect("an answer is an object");
    (fields.values_mut().skip(1))
        .find(|v| shape(v))
        .expect("a field of that shape")
}

/// Prints one line of the runner's output; `None`: the runner goes on.
fn print(out: &mut impl Write, line: &str) -> Option<ExitCode> {
    writeln!(out, "{line}")
        .and_then(|()| out.flush())
        .expect("stdout is writable");
    None
}

/// Starts `argv` (a `sleep`), never waited for (on purpose), with `leave`
/// (a `setsid`, a `setpgid`) run in it before exec, so it has left once
/// `spawn` returns (util-linux's `setsid` would leave only after, and a
/// test that signals at once could catch it in our group); its pid.
fn sleep(argv: &[&str], leave: impl Fn() -> i32 + Send + Sync + 'static) -> String {
    let mut command = Command::new(argv[0]);
    command.args(&argv[1..]);
    // SAFETY: `leave` makes async-signal-safe system calls only.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut command, move || {
            leave();
            Ok(())
        });
    }
    #[allow(clippy::zombie_processes)]
    let grandchild = command.spawn().expect("sleep starts");
    grandchild.id().to_string()
}

/// Appends `line` to the file `FAKE_PIDS` names, if any: the pids of the
/// runner and its grandchildren, and `hanging` once the runner is on the
/// case it hangs on, which a test waits for instead of sleeping.
fn record(line: &str) {
    if let Some(path) = std::env::var_os("FAKE_PIDS") {
        let appended =
            parity::files::append_regular(path.as_ref(), &format!("{line}\n"), "FAKE_PIDS");
        appended.expect("FAKE_PIDS can be appended to");
    }
}

/// Starts a sleeper in the harness's own process group, the mark gone with
/// its whole environment: an orphan only the end of the run can sweep.
/// Returns its pid.
fn joins_the_harness() -> String {
    // SAFETY: getppid and getpgid only read process ids.
    let group = unsafe { libc::getpgid(libc::getppid()) };
    // SAFETY: setpgid is async-signal-safe and touches no memory.
    let join = move || unsafe { libc::setpgid(0, group) };
    sleep(&["env", "-i", "sleep", "300"], join)
}
