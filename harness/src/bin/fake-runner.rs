//! A runner that answers like the Rust reference until it reaches one case,
//! then misbehaves in a chosen way. The harness's own tests use it to show
//! that each runner fault fails that case only, with a clear message.
//!
//! Usage: `fake-runner <fault> <case>`; faults: crash, hang, grandchild,
//! garbage, wrong-name, error, wrong-result, null-list, stop, chatter; and
//! `no-block` (any case name): a relay whose block-on-failure line is gone,
//! the planted bug the differential run must find.

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
    for line in io::stdin().lock().lines() {
        let line = line.expect("stdin is readable");
        if fault == "no-block" {
            writeln!(out, "{}", without_blocking(&line))
                .and_then(|()| out.flush())
                .expect("stdout is writable");
            continue;
        }
        let answer = outbox_runner::answer(&line);
        let mut value: serde_json::Value =
            serde_json::from_str(&answer).expect("the runner answers JSON");
        if value["name"] != target.as_str() {
            writeln!(out, "{answer}")
                .and_then(|()| out.flush())
                .expect("stdout is writable");
            continue;
        }
        let reply = match fault.as_str() {
            "crash" => {
                eprintln!("fake runner: crashing on purpose on {target}");
                return ExitCode::from(3);
            }
            "hang" => {
                std::thread::sleep(Duration::from_secs(3600));
                return ExitCode::FAILURE;
            }
            "grandchild" => {
                // The grandchild inherits stdout and outlives us: only killing
                // the process group closes the pipe. Never waited for, on purpose.
                #[allow(clippy::zombie_processes)]
                let grandchild = Command::new("sleep")
                    .arg("30")
                    .spawn()
                    .expect("sleep starts");
                let _ = std::fs::write(
                    "target/parity/fake-grandchild.pid",
                    grandchild.id().to_string(),
                );
                return ExitCode::FAILURE;
            }
            "stop" => return ExitCode::SUCCESS,
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
            other => panic!("unknown fault {other}"),
        };
        writeln!(out, "{reply}")
            .and_then(|()| out.flush())
            .expect("stdout is writable");
    }
    ExitCode::SUCCESS
}

/// The reference's relay loop with the block-on-failure line removed: a
/// failed message no longer holds back the later events of its order.
fn without_blocking(line: &str) -> String {
    use outbox::{Broker, FlakyBroker, IdempotentConsumer, OutboxTable};
    use outbox_runner::protocol::{decode, Request};
    let Ok(Request::Case { name, scenario }) = decode(line) else {
        return outbox_runner::answer(line);
    };
    let failures = scenario
        .failures
        .iter()
        .map(|(&attempt, &failure)| (attempt, failure.into()))
        .collect();
    let mut table = OutboxTable::new();
    let mut broker = FlakyBroker::new(IdempotentConsumer::new(), failures);
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
            table.add(row.into()).expect("a valid case");
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
