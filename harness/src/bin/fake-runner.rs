//! A runner that answers like the Rust reference until it reaches one case,
//! then misbehaves in a chosen way. The harness's own tests use it to show
//! that each runner fault fails that case only, with a clear message.
//!
//! Usage: `fake-runner <fault> <case>` (`*`: every case; `a,b`: those
//! cases); faults: crash,
//! nasty-stderr (a crash whose stderr holds `\r`, U+202E, U+FFFE, NUL, ESC),
//! hang, grandchild, setsid (a grandchild in a session of its own, then a
//! hang), garbage, wrong-name, error, wrong-result, null-list, stop,
//! chatter, twice (the answer printed twice), stderr-flood, endless-line,
//! big-string (a 7 MB journal entry, under the line bound) and huge-string
//! (100 MB, over it); whole-runner faults: `no-block` (a relay whose
//! block-on-failure line is gone, the planted bug the differential run must
//! find), `cannot-start` (exits at once like a syntax error), `exit-after`
//! (answers every case, then exits 1); and as a demo, `demo-forever <config>`
//! prints without end.
//!
//! `FAKE_PIDS=<file>`: the pids of the runner and of any grandchild it
//! starts are appended to the file, for the tests that look for strays,
//! and then the line `hanging` once it hangs (`hang`, `setsid`).

use std::io::{self, BufRead, Write};
use std::process::{Command, ExitCode};
use std::time::Duration;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [fault, target] = args.as_slice() else {
        eprintln!("usage: fake-runner <fault> <case>");
        return ExitCode::from(2);
    };
    let mut out = io::stdout().lock();
    if let Some(code) = before_input(fault, &mut out) {
        return code;
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

/// The faults that act before reading any input (a demo without end, a
/// runner that cannot start), with the exit code; every other fault records
/// the runner's pid first and reads on.
fn before_input(fault: &str, out: &mut impl Write) -> Option<ExitCode> {
    match fault {
        "demo-forever" => loop {
            if writeln!(out, "the demo that never ends").is_err() {
                return Some(ExitCode::FAILURE);
            }
        },
        "cannot-start" => {
            record_pid(std::process::id());
            eprintln!("  File \"runner.py\", line 1\nSyntaxError: invalid syntax (fake)");
            Some(ExitCode::FAILURE)
        }
        _ => {
            record_pid(std::process::id());
            None
        }
    }
}

/// Answers one request line: like the reference unless the case is
/// targeted (or the fault is `no-block`); `Some` ends the runner with
/// that exit code.
fn serve(fault: &str, target: &str, line: &str, out: &mut impl Write) -> Option<ExitCode> {
    if fault == "no-block" {
        writeln!(out, "{}", without_blocking(line))
            .and_then(|()| out.flush())
            .expect("stdout is writable");
        return None;
    }
    let answer = parity::oracle::answer(line);
    let value: serde_json::Value = serde_json::from_str(&answer).expect("the runner answers JSON");
    let targeted = target == "*" || target.split(',').any(|t| value["name"].as_str() == Some(t));
    let reply = if targeted {
        if let Some(code) = end_on(fault, target, out) {
            return Some(code);
        }
        bad_reply(fault, target, answer, value, out)
    } else {
        answer
    };
    writeln!(out, "{reply}")
        .and_then(|()| out.flush())
        .expect("stdout is writable");
    None
}

/// The faults that end the runner on a targeted case (a crash, a hang, a
/// flood, a stop), with the exit code; `None` for the faults that answer.
fn end_on(fault: &str, target: &str, out: &mut impl Write) -> Option<ExitCode> {
    match fault {
        "crash" => {
            eprintln!("fake runner: crashing on purpose on {target}");
            Some(ExitCode::from(3))
        }
        "nasty-stderr" => {
            // What XML forbids, what acts on a terminal, then a crash.
            eprintln!(
                "fake runner: FAILED\rok      \u{202e}desrever \u{fffe}\u{ffff}\u{0}\u{1b}[2J end"
            );
            Some(ExitCode::from(3))
        }
        "hang" => {
            record_hanging();
            std::thread::sleep(Duration::from_secs(3600));
            Some(ExitCode::FAILURE)
        }
        "grandchild" => {
            leave_grandchild();
            Some(ExitCode::FAILURE)
        }
        "setsid" => {
            hang_beside_own_session_grandchild();
            Some(ExitCode::FAILURE)
        }
        "stderr-flood" => {
            let chunk = "fake runner: flooding stderr ".repeat(1000);
            let mut err = io::stderr().lock();
            while writeln!(err, "{chunk}").is_ok() {}
            Some(ExitCode::FAILURE)
        }
        "endless-line" => {
            let chunk = "x".repeat(64 * 1024);
            while out.write_all(chunk.as_bytes()).is_ok() {}
            Some(ExitCode::FAILURE)
        }
        "stop" => Some(ExitCode::SUCCESS),
        _ => None,
    }
}

/// Starts a grandchild that inherits stdout and outlives us: only killing
/// the process group closes the pipe. Its pid goes to
/// [`grandchild_pid_file`].
fn leave_grandchild() {
    // Never waited for, on purpose.
    #[allow(clippy::zombie_processes)]
    let grandchild = Command::new("sleep")
        .arg("30")
        .spawn()
        .expect("sleep starts");
    let _ = std::fs::write(grandchild_pid_file(), grandchild.id().to_string());
}

/// Starts a grandchild that leaves the runner's group and session (killing
/// the group does not reach it), records it, then hangs.
fn hang_beside_own_session_grandchild() {
    let mut command = Command::new("sleep");
    command.arg("300");
    // SAFETY: setsid is async-signal-safe and touches no memory.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut command, || {
            libc::setsid();
            Ok(())
        });
    }
    #[allow(clippy::zombie_processes)]
    let grandchild = command.spawn().expect("sleep starts");
    record_pid(grandchild.id());
    record_hanging();
    std::thread::sleep(Duration::from_secs(3600));
}

/// The reply a targeted case gets under the faults that answer: wrong,
/// malformed, oversized, doubled, or (`none`, `exit-after`) right.
fn bad_reply(
    fault: &str,
    target: &str,
    answer: String,
    mut value: serde_json::Value,
    out: &mut impl Write,
) -> String {
    match fault {
        "big-string" | "huge-string" => {
            let size = if fault == "big-string" { 7 } else { 100 } * 1_000_000;
            value["journal"] = serde_json::json!(["y".repeat(size)]);
            value.to_string()
        }
        "twice" => {
            writeln!(out, "{answer}").expect("stdout is writable");
            answer
        }
        "garbage" => "this is not the protocol".to_owned(),
        "wrong-name" => {
            value["name"] = "someone_else".into();
            value.to_string()
        }
        "error" => serde_json::json!({"name": target, "error": "boom"}).to_string(),
        "wrong-result" => {
            value["duplicates"] = 999.into();
            value.to_string()
        }
        "null-list" => {
            value["sent"] = serde_json::Value::Null;
            value.to_string()
        }
        "chatter" => {
            writeln!(out, "{answer}").expect("stdout is writable");
            "and one more thing".to_owned()
        }
        "none" | "exit-after" => answer,
        other => panic!("unknown fault {other}"),
    }
}

/// Where the `grandchild` fault leaves its grandchild's pid: under the
/// target folder (`CARGO_TARGET_DIR` when set).
pub fn grandchild_pid_file() -> std::path::PathBuf {
    parity::config::target_dir(&parity::repo_root()).join("parity/fake-grandchild.pid")
}

/// Appends `pid` to the file `FAKE_PIDS` names, if any.
fn record_pid(pid: u32) {
    record(&pid.to_string());
}

/// Appends `hanging` to the `FAKE_PIDS` file: the runner is now on the case
/// it hangs on, which a test waits for instead of sleeping.
fn record_hanging() {
    record("hanging");
}

fn record(line: &str) {
    if let Some(path) = std::env::var_os("FAKE_PIDS") {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("FAKE_PIDS can be opened");
        writeln!(file, "{line}").expect("FAKE_PIDS is writable");
    }
}

/// The reference's relay loop with the block-on-failure line removed: a
/// failed message no longer holds back the later events of its order.
fn without_blocking(line: &str) -> String {
    use outbox::{Broker, Message, OutboxTable};
    use outbox_cases::protocol::{decode, Request};
    use parity::oracle::passes;
    let Ok(Request { name, scenario }) = decode(line) else {
        return parity::oracle::answer(line);
    };
    let mut table = OutboxTable::new();
    let mut broker = passes::broker(&scenario);
    let batch_size = usize::try_from(scenario.batch_size).unwrap_or(usize::MAX);
    let mut rows = scenario.messages.iter().peekable();
    let mut sent = Vec::new();
    for pass in 0..=scenario.passes {
        if pass > 0 {
            let mut ids = Vec::new();
            for message in table.unsent(batch_size) {
                if broker.publish(&message).is_ok() {
                    table.mark_sent(message.id);
                    ids.push(message.id);
                }
            }
            sent.push(ids);
        }
        while let Some(row) = rows.next_if(|row| row.written_after_pass <= pass) {
            let message = Message::new(row.id, &*row.aggregate, &*row.event_type);
            table.add(message).expect("a valid case");
        }
    }
    let consumer = broker.consumer();
    serde_json::json!({
        "name": name,
        "sent": sent,
        "journal": consumer.journal(),
        "duplicates": consumer.duplicates(),
    })
    .to_string()
}
