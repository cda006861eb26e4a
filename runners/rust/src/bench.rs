//! The bench table, specified once (SPEC.md, "Runner protocol"): every
//! runner builds it from the four numbers of a `bench` request and drains
//! it, timing only the relay's passes. The harness checks each runner's
//! counts against [`run`]'s.

use std::collections::HashMap;

use outbox::{Failure, FlakyBroker, IdempotentConsumer, Message, OutboxRelay, OutboxTable};
use serde::{Deserialize, Serialize};

/// Which bench table to build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bench {
    /// Rows in the table, ids 1 to `messages`.
    pub messages: u64,
    /// Row `id` belongs to order `(id - 1) % aggregates + 1`.
    pub aggregates: u64,
    /// Rows per pass.
    pub batch_size: u64,
    /// Attempts `lost_ack_every * k`, k = 1 ..= (2 * messages + 2) / lost_ack_every,
    /// lose their ack (at least 2, so no row fails twice in a row).
    pub lost_ack_every: u64,
}

/// What draining a bench table did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Report {
    /// Nanoseconds spent in the passes (building the table excluded).
    pub elapsed_ns: u64,
    /// Messages sent, over all passes.
    pub sent: u64,
    /// Redeliveries the consumer dropped.
    pub duplicates: u64,
    /// Passes until a pass sent nothing.
    pub passes: u64,
}

/// Builds the bench table and drains it.
pub fn run(bench: &Bench) -> Report {
    let mut table = OutboxTable::new();
    let aggregates = bench.aggregates.max(1);
    for id in 1..=bench.messages {
        let order = (id - 1) % aggregates + 1;
        table
            .add(Message::new(id, format!("order-{order}"), "Event"))
            .expect("bench ids increase");
    }
    let every = bench.lost_ack_every.max(2);
    let failures: HashMap<u64, Failure> = (1..=(2 * bench.messages + 2) / every)
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
    Report {
        elapsed_ns,
        sent,
        duplicates: broker.consumer().duplicates(),
        passes,
    }
}
