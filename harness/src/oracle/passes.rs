//! The harness's one pass loop over the reference: the loop of the runner
//! protocol (SPEC.md, "Runner protocol"), with a hook around each pass, so
//! that expected outcomes and a case's picture come from the same loop.
//!
//! It is written here, not borrowed from the Rust runner: the judge shares
//! no code with a port it judges, only the case model (`outbox_cases`).

use std::collections::HashMap;

use outbox::{Broker, Message, MessageId, OutboxRelay, OutboxTable};

use outbox_cases::{Failure, Row, Scenario};

/// One pass as [`drive`] reports it to its hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pass {
    /// Counted from 1.
    pub number: u64,
    /// The ids the relay reported sent.
    pub sent: Vec<MessageId>,
    /// The rows written into the outbox right after this pass.
    pub written_after: Vec<Message>,
    /// Nothing is unsent and no row is written later: every pass from
    /// here on sends nothing.
    pub idle: bool,
}

/// What [`drive`] calls around each pass.
pub trait Hook<B: Broker> {
    /// Runs pass `number` over the table: by default the relay's
    /// `run_once`, built anew for the pass (a relay keeps no state of its
    /// own, so this is also what `restart_each_pass` does). A hook that
    /// watches the broker runs the pass itself.
    fn pass(
        &mut self,
        table: &mut OutboxTable,
        broker: &mut B,
        batch_size: usize,
        number: u64,
    ) -> Vec<MessageId> {
        let _ = number;
        OutboxRelay::new(table, broker, batch_size).run_once()
    }

    /// Called after each pass and the rows written after it; false stops
    /// the loop.
    fn after(&mut self, pass: Pass) -> bool;
}

/// The pass loop: the rows written before the first pass, then each pass
/// and the rows written after it, through the table's ordinary `add`.
/// Returns the rows written before the first pass; `Err` is the
/// reference's refusal of a row (an id that does not increase).
pub fn drive<B: Broker>(
    scenario: &Scenario,
    broker: &mut B,
    hook: &mut impl Hook<B>,
) -> Result<Vec<Message>, String> {
    let mut table = OutboxTable::new();
    let batch_size = usize::try_from(scenario.batch_size).unwrap_or(usize::MAX);
    let mut rows = scenario.messages.iter().peekable();
    let mut write = |pass: u64, table: &mut OutboxTable| -> Result<Vec<Message>, String> {
        let mut written = Vec::new();
        while let Some(row) = rows.next_if(|row| row.written_after_pass <= pass) {
            let message = message(row);
            table
                .add(message.clone())
                .map_err(|e| format!("message {}: {e}", row.id))?;
            written.push(message);
        }
        Ok(written)
    };
    let last_written = scenario.messages.last().map_or(0, |r| r.written_after_pass);
    let initial = write(0, &mut table)?;
    for number in 1..=scenario.passes {
        let sent = hook.pass(&mut table, broker, batch_size, number);
        let written_after = write(number, &mut table)?;
        let idle = !table.has_unsent() && last_written <= number;
        let pass = Pass {
            number,
            sent,
            written_after,
            idle,
        };
        if !hook.after(pass) {
            break;
        }
    }
    Ok(initial)
}

/// A scenario's failure script, as the reference's broker takes it.
pub fn failures(scenario: &Scenario) -> HashMap<u64, outbox::Failure> {
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

/// A case's row as the reference's message.
pub fn message(row: &Row) -> Message {
    Message::new(row.id, row.aggregate.as_str(), row.event_type.as_str())
}
