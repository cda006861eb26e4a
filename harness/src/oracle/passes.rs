//! The oracle's pass loop over the reference's parts, written from SPEC.md
//! ("Runner protocol": how a runner plays a case), with a hook around each
//! pass, so that expected outcomes and a case's picture come from one loop.
//!
//! Its shape is its own, not the Rust runner's: the rows are planned
//! before the first pass into a [`Schedule`] (the pass each is written
//! after, to its rows), so the loop takes each pass's writes out of the
//! plan instead of walking the list, and knows the plan is spent when the
//! schedule is empty. The oracle shares the case model (`outbox_cases`)
//! and the reference crate with the runners, and no code with any of them.

use std::collections::BTreeMap;

use outbox::{
    Broker, FlakyBroker, IdempotentConsumer, Message, MessageId, OutboxRelay, OutboxTable,
};

use outbox_cases::{Failure, Scenario};

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
    /// `run_once`, built anew for the pass. SPEC builds a relay before the
    /// first pass and, with `restart_each_pass`, before every one; the
    /// reference's relay borrows the table for as long as it lives and
    /// keeps nothing else, so a relay per pass is both. A hook that
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

/// The reference's broker for a scenario: a fresh consumer behind it, and
/// the scenario's failures turned once into the broker's script (attempt
/// number to the reference's own failure).
pub fn broker(scenario: &Scenario) -> FlakyBroker {
    let reference = |failure: &Failure| match failure {
        Failure::Down => outbox::Failure::Down,
        Failure::LostAck => outbox::Failure::LostAck,
    };
    let script = scenario.failures.iter();
    FlakyBroker::new(
        IdempotentConsumer::new(),
        script.map(|(&n, f)| (n, reference(f))).collect(),
    )
}

/// A scenario's rows by the pass they are written after (0: before the
/// first pass), each pass's in list order: every write of the loop,
/// planned before it starts. A pass that writes nothing has no entry.
type Schedule = BTreeMap<u64, Vec<Message>>;

/// Takes the rows due after `pass` out of the plan and adds them through
/// the table's ordinary `add`, handing them back; `Err` is the table's
/// refusal (an id that does not increase).
fn write_after(
    plan: &mut Schedule,
    pass: u64,
    table: &mut OutboxTable,
) -> Result<Vec<Message>, String> {
    let due = plan.remove(&pass).unwrap_or_default();
    due.iter().try_for_each(|message| {
        let refused = |e| format!("message {}: {e}", message.id);
        table.add(message.clone()).map_err(refused)
    })?;
    Ok(due)
}

/// Plays `scenario` over a new table and `broker`: the rows due before the
/// first pass, then each pass through `hook` and the rows due after it.
/// Returns the rows written before the first pass; `Err` is the
/// reference's refusal of a row.
pub fn drive<B: Broker>(
    scenario: &Scenario,
    broker: &mut B,
    hook: &mut impl Hook<B>,
) -> Result<Vec<Message>, String> {
    let mut schedule = Schedule::new();
    for row in &scenario.messages {
        let message = Message::new(row.id, &*row.aggregate, &*row.event_type);
        schedule
            .entry(row.written_after_pass)
            .or_default()
            .push(message);
    }
    let mut table = OutboxTable::new();
    let batch_size = scenario.batch_size.try_into().unwrap_or(usize::MAX);
    let before_first = write_after(&mut schedule, 0, &mut table)?;
    for number in 1..=scenario.passes {
        let sent = hook.pass(&mut table, broker, batch_size, number);
        let written_after = write_after(&mut schedule, number, &mut table)?;
        let idle = schedule.is_empty() && !table.has_unsent();
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
    Ok(before_first)
}
