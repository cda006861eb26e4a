//! The one model of a case's input and result, shared by every Rust side of
//! the practice: the harness reads case files into it and writes them and
//! the protocol's request lines from it, the Rust runner decodes requests
//! into it, and [`run`] runs it through the reference. A new optional case
//! field is added here once.

use std::collections::{BTreeMap, HashMap};

use outbox::trace::{Event, ObservedBroker};
use outbox::{
    Broker, FlakyBroker, IdempotentConsumer, Message, MessageId, OutboxRelay, OutboxTable,
};
use serde::{Deserialize, Serialize};

/// What a case asks of the relay: everything but its name, description and
/// expected result. Field order is the wire's and the case files' order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Rows per pass.
    pub batch_size: u64,
    /// Outbox rows in insertion order.
    pub messages: Vec<Row>,
    /// Attempt number to scripted failure (decimal-string keys in JSON).
    pub failures: BTreeMap<u64, Failure>,
    /// How many times the relay runs.
    pub passes: u64,
    /// Build a new relay before every pass (the broker keeps counting).
    #[serde(default, skip_serializing_if = "is_false")]
    pub restart_each_pass: bool,
}

/// One outbox row of a case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    /// Outbox id, strictly increasing along the rows.
    pub id: MessageId,
    /// The order whose events must stay in order.
    pub aggregate: String,
    /// The event type (`type` in JSON).
    #[serde(rename = "type")]
    pub event_type: String,
    /// The row is written after this pass and before the next (0: before
    /// the first), so a case can show the order service writing while the
    /// relay runs.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub written_after_pass: u64,
}

/// A scripted broker failure, as case files and the protocol spell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Failure {
    /// Not delivered.
    Down,
    /// Delivered, but the ack was lost.
    LostAck,
}

/// The three things compared per case: what was sent in each pass, what the
/// consumer did, and how many repeats it dropped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outcome {
    /// Ids sent, one list per pass.
    pub sent: Vec<Vec<MessageId>>,
    /// The consumer's journal, `"<aggregate> <type>"` per handled event.
    pub journal: Vec<String>,
    /// Redeliveries the consumer dropped.
    pub duplicates: u64,
}

fn is_false(value: &bool) -> bool {
    !*value
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

impl Failure {
    /// The spelling in case files and on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Failure::Down => "down",
            Failure::LostAck => "lost_ack",
        }
    }
}

impl From<Failure> for outbox::Failure {
    fn from(failure: Failure) -> Self {
        match failure {
            Failure::Down => outbox::Failure::Down,
            Failure::LostAck => outbox::Failure::LostAck,
        }
    }
}

impl From<&Row> for Message {
    fn from(row: &Row) -> Self {
        Message::new(row.id, row.aggregate.as_str(), row.event_type.as_str())
    }
}

/// Runs a scenario through the reference. `Err` carries the reference's
/// own refusal (a row whose id does not increase), which the harness never
/// sends but a hand-written request can.
pub fn run(scenario: &Scenario) -> Result<Outcome, String> {
    let mut broker = FlakyBroker::new(IdempotentConsumer::new(), failures(scenario));
    let mut sent = Vec::new();
    drive(scenario, &mut broker, |_, pass| {
        sent.push(pass.sent);
        true
    })?;
    let consumer = broker.consumer();
    Ok(Outcome {
        sent,
        journal: consumer.journal().to_vec(),
        duplicates: consumer.duplicates(),
    })
}

/// What the reference did in one pass, event by event: what a picture of
/// the case draws.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassTrace {
    /// Counted from 1.
    pub number: u64,
    /// One event per row of the batch, in batch order.
    pub events: Vec<Event>,
    /// The ids the relay reported sent.
    pub sent: Vec<MessageId>,
    /// The rows written into the outbox right after this pass.
    pub written_after: Vec<Message>,
}

/// The reference's run of a scenario, traced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    /// Rows in the outbox before the first pass.
    pub initial: Vec<Message>,
    /// The passes, up to the first from which nothing can happen any more.
    pub passes: Vec<PassTrace>,
    /// Passes from this one to the last have nothing to do (the outbox is
    /// empty and no row is written later), so they are not traced.
    pub idle_from: Option<u64>,
}

/// Runs a scenario through the reference with an observing broker.
pub fn trace(scenario: &Scenario) -> Result<Trace, String> {
    let flaky = FlakyBroker::new(IdempotentConsumer::new(), failures(scenario));
    let mut broker = ObservedBroker::new(flaky, Vec::new());
    let mut passes = Vec::new();
    let mut idle_from = None;
    let initial = drive(scenario, &mut broker, |broker, pass| {
        passes.push(PassTrace {
            number: pass.number,
            events: std::mem::take(broker.observer_mut()),
            sent: pass.sent,
            written_after: pass.written_after,
        });
        if pass.idle && pass.number < scenario.passes {
            idle_from = Some(pass.number + 1);
            return false;
        }
        true
    })?;
    Ok(Trace {
        initial,
        passes,
        idle_from,
    })
}

fn failures(scenario: &Scenario) -> HashMap<u64, outbox::Failure> {
    scenario
        .failures
        .iter()
        .map(|(&attempt, &failure)| (attempt, failure.into()))
        .collect()
}

/// One pass as [`drive`] reports it.
struct Pass {
    number: u64,
    sent: Vec<MessageId>,
    written_after: Vec<Message>,
    /// Nothing is unsent and no row is written later.
    idle: bool,
}

/// The pass loop every runner follows (SPEC.md, "Runner protocol"): the
/// rows written before the first pass, then each pass and the rows written
/// after it, through the table's ordinary `add`; `after_pass` returns
/// false to stop early. Returns the rows written before the first pass.
///
/// The relay borrows the table for as long as it lives, so it is built
/// anew for every pass: it keeps no state of its own (everything is in the
/// table), which is also why `restart_each_pass` cannot change what the
/// reference does.
fn drive<B: Broker>(
    scenario: &Scenario,
    broker: &mut B,
    mut after_pass: impl FnMut(&mut B, Pass) -> bool,
) -> Result<Vec<Message>, String> {
    let mut table = OutboxTable::new();
    let batch_size = usize::try_from(scenario.batch_size).unwrap_or(usize::MAX);
    let mut rows = scenario.messages.iter().peekable();
    let mut write = |pass: u64, table: &mut OutboxTable| -> Result<Vec<Message>, String> {
        let mut written = Vec::new();
        while let Some(row) = rows.next_if(|row| row.written_after_pass <= pass) {
            let message = Message::from(row);
            table
                .add(message.clone())
                .map_err(|e| format!("message {}: {e}", row.id))?;
            written.push(message);
        }
        Ok(written)
    };
    let initial = write(0, &mut table)?;
    for number in 1..=scenario.passes {
        let sent = OutboxRelay::new(&mut table, broker, batch_size).run_once();
        let written_after = write(number, &mut table)?;
        let idle = !table.has_unsent()
            && scenario
                .messages
                .last()
                .is_none_or(|row| row.written_after_pass <= number);
        let pass = Pass {
            number,
            sent,
            written_after,
            idle,
        };
        if !after_pass(broker, pass) {
            break;
        }
    }
    Ok(initial)
}
