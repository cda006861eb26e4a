//! The Rust side of the runner protocol (see `../shared/SPEC.md` and the
//! README): one case per stdin line in, one result per stdout line out.
//!
//! The same code serves the runner binary and the parity harness's fake
//! runners, so a fake answers exactly as the reference does until it is told
//! to misbehave.

use std::collections::{BTreeMap, HashMap};

use outbox::{
    Failure, FlakyBroker, IdempotentConsumer, Message, MessageId, OutboxRelay, OutboxTable,
};
use serde::{Deserialize, Serialize};

pub mod demo;

/// One case as the harness sends it: everything but `expect`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// The case's stable name, echoed in the answer.
    pub name: String,
    /// Rows per pass.
    pub batch_size: u64,
    /// Outbox rows in insertion order.
    pub messages: Vec<WireMessage>,
    /// Attempt number (decimal string) to failure kind.
    pub failures: BTreeMap<String, WireFailure>,
    /// How many times to run the relay.
    pub passes: u64,
    /// Build a new relay before every pass.
    #[serde(default)]
    pub restart_each_pass: bool,
}

/// A message as the case table writes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireMessage {
    /// Outbox id.
    pub id: MessageId,
    /// The order.
    pub aggregate: String,
    /// The event.
    #[serde(rename = "type")]
    pub event_type: String,
}

/// A failure kind as the case table writes it.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireFailure {
    /// See [`Failure::Down`].
    Down,
    /// See [`Failure::LostAck`].
    LostAck,
}

impl From<WireFailure> for Failure {
    fn from(failure: WireFailure) -> Self {
        match failure {
            WireFailure::Down => Failure::Down,
            WireFailure::LostAck => Failure::LostAck,
        }
    }
}

/// What the reference did with a case: the three things the harness compares.
#[derive(Debug, Serialize)]
pub struct Outcome {
    /// Ids sent, one list per pass.
    pub sent: Vec<Vec<MessageId>>,
    /// The consumer's journal.
    pub journal: Vec<String>,
    /// Redeliveries the consumer dropped.
    pub duplicates: u64,
}

/// Runs one case through the reference. `Err` carries a message for the
/// protocol's `error` answer (input the harness would never send).
pub fn run_case(request: &Request) -> Result<Outcome, String> {
    let mut table = OutboxTable::new();
    for m in &request.messages {
        table
            .add(Message::new(
                m.id,
                m.aggregate.clone(),
                m.event_type.clone(),
            ))
            .map_err(|e| e.to_string())?;
    }
    let mut failures = HashMap::new();
    for (attempt, failure) in &request.failures {
        let attempt: u64 = attempt
            .parse()
            .map_err(|_| format!("failure key {attempt:?} is not an attempt number"))?;
        failures.insert(attempt, Failure::from(*failure));
    }
    let mut broker = FlakyBroker::new(IdempotentConsumer::new(), failures);
    let batch_size = usize::try_from(request.batch_size).unwrap_or(usize::MAX);

    let mut sent = Vec::new();
    if request.restart_each_pass {
        for _ in 0..request.passes {
            sent.push(OutboxRelay::new(&mut table, &mut broker, batch_size).run_once());
        }
    } else {
        let mut relay = OutboxRelay::new(&mut table, &mut broker, batch_size);
        for _ in 0..request.passes {
            sent.push(relay.run_once());
        }
    }
    let consumer = broker.consumer();
    Ok(Outcome {
        sent,
        journal: consumer.journal().to_vec(),
        duplicates: consumer.duplicates(),
    })
}

/// Answers one protocol line with one line (no newline): the outcome, or an
/// `error` answer when the line is not a case this runner can run.
pub fn answer(line: &str) -> String {
    let request: Request = match serde_json::from_str(line) {
        Ok(request) => request,
        Err(e) => {
            let name = serde_json::from_str::<serde_json::Value>(line)
                .ok()
                .and_then(|v| v.get("name").cloned())
                .unwrap_or(serde_json::Value::Null);
            return serde_json::json!({"name": name, "error": format!("bad request: {e}")})
                .to_string();
        }
    };
    let value = match run_case(&request) {
        Ok(outcome) => serde_json::json!({
            "name": request.name,
            "sent": outcome.sent,
            "journal": outcome.journal,
            "duplicates": outcome.duplicates,
        }),
        Err(error) => serde_json::json!({"name": request.name, "error": error}),
    };
    value.to_string()
}
