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

/// The table and the broker (with its consumer) a case starts from. `Err`
/// carries a message for the protocol's `error` answer (input the harness
/// would never send).
pub fn setup(request: &Request) -> Result<(OutboxTable, FlakyBroker), String> {
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
    Ok((table, FlakyBroker::new(IdempotentConsumer::new(), failures)))
}

/// Runs one case through the reference; `Err` as for [`setup`].
pub fn run_case(request: &Request) -> Result<Outcome, String> {
    let (mut table, mut broker) = setup(request)?;
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

/// A bench request: the runner builds the table itself (`messages` rows
/// over `aggregates` orders, every `lost_ack_every`-th attempt losing its
/// ack) and drains it, timing only the relay's passes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bench {
    /// Rows in the table, ids 1 to `messages`.
    pub messages: u64,
    /// Row i belongs to order `(i - 1) % aggregates + 1`.
    pub aggregates: u64,
    /// Rows per pass.
    pub batch_size: u64,
    /// Attempts `lost_ack_every`, `2 * lost_ack_every`, ... lose their ack (at least 2).
    pub lost_ack_every: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BenchRequest {
    name: String,
    bench: Bench,
}

/// What draining a bench table did; the harness checks the counts against
/// the reference's and reports the time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BenchOutcome {
    /// Nanoseconds spent in the passes (building the table excluded).
    pub elapsed_ns: u64,
    /// Messages sent, over all passes.
    pub sent: u64,
    /// Redeliveries the consumer dropped.
    pub duplicates: u64,
    /// Passes until the table was empty.
    pub passes: u64,
}

/// Builds and drains a bench table.
pub fn run_bench(bench: &Bench) -> BenchOutcome {
    let mut table = OutboxTable::new();
    for id in 1..=bench.messages {
        let order = (id - 1) % bench.aggregates.max(1) + 1;
        table
            .add(Message::new(id, format!("order-{order}"), "Event"))
            .expect("bench ids increase");
    }
    let every = bench.lost_ack_every.max(2);
    let failures = (1..=(2 * bench.messages + 2) / every)
        .map(|k| (k * every, Failure::LostAck))
        .collect();
    let mut broker = FlakyBroker::new(IdempotentConsumer::new(), failures);
    let batch_size = usize::try_from(bench.batch_size).unwrap_or(usize::MAX);
    let mut relay = OutboxRelay::new(&mut table, &mut broker, batch_size);
    let started = std::time::Instant::now();
    let (mut sent, mut passes) = (0, 0);
    loop {
        let ids = relay.run_once();
        if ids.is_empty() {
            break;
        }
        sent += ids.len() as u64;
        passes += 1;
    }
    let elapsed_ns = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
    BenchOutcome {
        elapsed_ns,
        sent,
        duplicates: broker.consumer().duplicates(),
        passes,
    }
}

/// Answers one protocol line with one line (no newline): the outcome, or an
/// `error` answer when the line is not a case this runner can run.
pub fn answer(line: &str) -> String {
    let request: Request = match serde_json::from_str(line) {
        Ok(request) => request,
        Err(_) if line.contains("\"bench\"") => return answer_bench(line),
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

fn answer_bench(line: &str) -> String {
    match serde_json::from_str::<BenchRequest>(line) {
        Ok(request) => {
            let outcome = run_bench(&request.bench);
            serde_json::json!({
                "name": request.name,
                "elapsed_ns": outcome.elapsed_ns,
                "sent": outcome.sent,
                "duplicates": outcome.duplicates,
                "passes": outcome.passes,
            })
            .to_string()
        }
        Err(e) => serde_json::json!({"name": null, "error": format!("bad bench request: {e}")})
            .to_string(),
    }
}
