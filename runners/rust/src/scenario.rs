//! The Rust runner's pass loop: a decoded scenario (the shared model,
//! `outbox_cases`) run through the reference, as every runner runs it.

use std::collections::HashMap;

use outbox::{FlakyBroker, IdempotentConsumer, Message, OutboxRelay, OutboxTable};
use outbox_cases::{Failure, Outcome, Row, Scenario};

/// Runs a scenario through the reference. `Err` carries the reference's
/// own refusal (a row whose id does not increase), which the harness never
/// sends but a hand-written request can.
///
/// The pass loop every runner follows (SPEC.md, "Runner protocol"): the
/// rows written before the first pass, then each pass and the rows written
/// after it, through the table's ordinary `add`. The relay borrows the
/// table for as long as it lives, so it is built anew for every pass: it
/// keeps no state of its own (everything is in the table), which is also
/// why `restart_each_pass` cannot change what the reference does.
pub fn run(scenario: &Scenario) -> Result<Outcome, String> {
    let mut broker = FlakyBroker::new(IdempotentConsumer::new(), failures(scenario));
    let mut table = OutboxTable::new();
    let batch_size = usize::try_from(scenario.batch_size).unwrap_or(usize::MAX);
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
    let mut sent = Vec::new();
    for number in 1..=scenario.passes {
        sent.push(OutboxRelay::new(&mut table, &mut broker, batch_size).run_once());
        write(number, &mut table)?;
    }
    let consumer = broker.consumer();
    Ok(Outcome {
        sent,
        journal: consumer.journal().to_vec(),
        duplicates: consumer.duplicates(),
    })
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

fn message(row: &Row) -> Message {
    Message::new(row.id, row.aggregate.as_str(), row.event_type.as_str())
}
