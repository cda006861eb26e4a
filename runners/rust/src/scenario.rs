//! The Rust runner's pass loop: a decoded scenario (the shared model,
//! `outbox_cases`) run through the reference, as every runner runs it.

use std::collections::{BTreeMap, HashMap};

use outbox::{
    AttemptCap, DeadLetter, FlakyBroker, IdempotentConsumer, Message, OutboxRelay, OutboxTable,
    Partition, RelayOptions,
};
use outbox_cases::{Failure, Fetch, OnExhausted, Outcome, Row, Scenario};

/// The most relays a case may have (SPEC.md, "Several relays").
const MAX_RELAYS: u64 = 256;

/// Runs a scenario through the reference. `Err` carries the reference's
/// own refusal (a row whose id does not increase), which the harness never
/// sends but a hand-written request can, and a relay count the partition
/// cannot divide by.
///
/// The pass loop every runner follows (SPEC.md, "Runner protocol"): the
/// rows written before the first pass, then each pass (the consumer's
/// tick, the runs its schedule lists, the rows written after it and the
/// unparks after it), through the parts' ordinary members. The relay
/// borrows the table for as long as it lives, so one is built for every
/// run: it keeps no state of its own (everything is in the table and the
/// consumer), which is also why `restart_each_pass` cannot change what the
/// reference does.
pub fn run(scenario: &Scenario) -> Result<Outcome, String> {
    let consumer = IdempotentConsumer::with_retention(scenario.retention);
    let mut broker = FlakyBroker::new(consumer, failures(scenario));
    let mut table = OutboxTable::new();
    let batch_size = usize::try_from(scenario.batch_size).unwrap_or(usize::MAX);
    let relays = scenario.relays.unwrap_or(1);
    let count = u32::try_from(relays)
        .ok()
        .filter(|_| (1..=MAX_RELAYS).contains(&relays))
        .ok_or_else(|| format!("relays: {relays} is not from 1 to {MAX_RELAYS}"))?;
    let every_relay: Vec<u64> = (0..relays).collect();
    let unparks = unparks(scenario);
    let (fetch, cap) = (fetch(scenario), cap(scenario));
    let mut rows = scenario.messages.iter().peekable();
    let mut write = |pass: u64, table: &mut OutboxTable| -> Result<(), String> {
        while let Some(row) = rows.next_if(|row| row.written_after_pass <= pass) {
            table
                .add(message(row))
                .map_err(|e| format!("message {}: {e}", row.id))?;
        }
        Ok(())
    };
    write(0, &mut table)?;
    let (mut sent, mut dead_letters) = (Vec::new(), Vec::new());
    for number in 1..=scenario.passes {
        broker.consumer_mut().tick();
        let schedule = scenario.schedule.as_ref();
        let runs = schedule.and_then(|s| s.get(index(number - 1)));
        for &relay in runs.unwrap_or(&every_relay) {
            // An index the case rules forbid owns no order: its runs send nothing.
            let index = u32::try_from(relay).unwrap_or(u32::MAX);
            let mut dead = Vec::new();
            let mut alert = |letter: &DeadLetter| dead.push(letter.message.id);
            let options = RelayOptions {
                partition: Partition { index, count },
                fetch,
                cap,
                alert: Some(&mut alert),
            };
            let mut relay = OutboxRelay::with_options(&mut table, &mut broker, batch_size, options);
            sent.push(relay.run_once());
            dead_letters.push(dead);
        }
        write(number, &mut table)?;
        for aggregate in unparks.get(&number).into_iter().flatten() {
            table.unpark(aggregate);
        }
    }
    let consumer = broker.consumer();
    Ok(Outcome {
        sent,
        journal: consumer.journal().to_vec(),
        duplicates: consumer.duplicates(),
        dead_letters: scenario.max_attempts.map(|_| dead_letters),
    })
}

fn index(pass: u64) -> usize {
    usize::try_from(pass).unwrap_or(usize::MAX)
}

fn failures(scenario: &Scenario) -> HashMap<u64, outbox::Failure> {
    scenario
        .failures
        .iter()
        .map(|(&attempt, &failure)| {
            let failure = match failure {
                Failure::Down => outbox::Failure::Down,
                Failure::LostAck => outbox::Failure::LostAck,
            };
            (attempt, failure)
        })
        .collect()
}

fn fetch(scenario: &Scenario) -> outbox::Fetch {
    match scenario.fetch.unwrap_or_default() {
        Fetch::Rows => outbox::Fetch::Rows,
        Fetch::Heads => outbox::Fetch::Heads,
    }
}

fn cap(scenario: &Scenario) -> Option<AttemptCap> {
    let on_exhausted = match scenario.on_exhausted.unwrap_or_default() {
        OnExhausted::Release => outbox::OnExhausted::Release,
        OnExhausted::Park => outbox::OnExhausted::Park,
    };
    scenario.max_attempts.map(|max_attempts| AttemptCap {
        max_attempts,
        on_exhausted,
    })
}

/// The orders unparked after each pass, looked up once per pass rather than
/// by walking the list every pass.
fn unparks(scenario: &Scenario) -> BTreeMap<u64, Vec<&str>> {
    let mut after = BTreeMap::<u64, Vec<&str>>::new();
    for unpark in scenario.unpark.iter().flatten() {
        let aggregates = after.entry(unpark.after_pass).or_default();
        aggregates.push(&unpark.aggregate);
    }
    after
}

fn message(row: &Row) -> Message {
    Message::new(row.id, row.aggregate.as_str(), row.event_type.as_str())
}
