//! The bench table, specified once (SPEC.md, "Runner protocol"): every
//! runner builds it from the four numbers of a `bench` request and drains
//! it, timing only the relay's passes (the table's numbers are the shared
//! model's [`Bench`]).

use std::collections::HashMap;

use outbox::{Failure, FlakyBroker, IdempotentConsumer, Message, OutboxRelay, OutboxTable};
use outbox_cases::{Bench, BenchReport};

/// Builds the bench table and drains it.
pub fn run(bench: &Bench) -> BenchReport {
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
    BenchReport {
        elapsed_ns,
        sent,
        duplicates: broker.consumer().duplicates(),
        passes,
    }
}
