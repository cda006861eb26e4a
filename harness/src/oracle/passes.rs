//! The harness's one pass loop over the reference's parts, written from
//! SPEC.md ("Runner protocol": how a runner plays a case), with a hook
//! around each pass: expected outcomes, a case's picture and the fake
//! runner's planted bug all come from it. It is given the scenario, so a
//! new input reaches every hook without a change of signature; and it is
//! the one place that calls the reference's table and relay for a pass
//! ([`batch`], [`relay`]).
//!
//! Its shape is its own, not the Rust runner's: the rows are planned
//! before the first pass into a [`Schedule`] (the pass each is written
//! after, to its rows), so the loop takes each pass's writes out of the
//! plan instead of walking the list, and knows the plan is spent when the
//! schedule is empty. The oracle shares the case model (`outbox_cases`)
//! and the reference crate with the runners, and no code with any of them.

use std::collections::BTreeMap;

use outbox::{
    Broker, Fetch, FlakyBroker, IdempotentConsumer, Message, MessageId, OutboxRelay, OutboxTable,
    Partition,
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
    /// Runs pass `number` of `scenario` over the table: by default the
    /// relay's `run_once`. A hook that watches the broker, or plants a
    /// bug, runs the pass itself.
    fn pass(
        &mut self,
        table: &mut OutboxTable,
        broker: &mut B,
        scenario: &Scenario,
        number: u64,
    ) -> Vec<MessageId> {
        let _ = number;
        relay(table, broker, scenario).run_once()
    }

    /// Called after each pass and the rows written after it; false stops
    /// the loop.
    fn after(&mut self, pass: Pass) -> bool {
        let _ = pass;
        true
    }
}

/// The loop with nothing around its passes: the expected outcome's.
pub struct Plain;

impl<B: Broker> Hook<B> for Plain {}

/// The relay of one pass of `scenario`, as SPEC builds it. SPEC builds a
/// relay before the first pass and, with `restart_each_pass`, before every
/// one; the reference's relay borrows the table for as long as it lives and
/// keeps nothing else (every state that outlives a pass is the table's or
/// the consumer's), so a relay per pass is both.
pub fn relay<'a, B: Broker>(
    table: &'a mut OutboxTable,
    broker: &'a mut B,
    scenario: &Scenario,
) -> OutboxRelay<'a, B> {
    OutboxRelay::new(table, broker, batch_size(scenario))
}

/// The rows the relay of a pass of `scenario` takes, its own first step
/// (`unsent`), for a hook that must know them before the pass.
pub fn batch(table: &OutboxTable, scenario: &Scenario) -> Vec<Message> {
    table.unsent(batch_size(scenario), Partition::default(), Fetch::Rows)
}

fn batch_size(scenario: &Scenario) -> usize {
    scenario.batch_size.try_into().unwrap_or(usize::MAX)
}

/// What [`drive`] played: the rows written before the first pass, and the
/// ids each pass sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Played {
    /// The rows written before the first pass.
    pub before_first: Vec<Message>,
    /// The ids sent, one list per pass played.
    pub sent: Vec<Vec<MessageId>>,
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
/// first pass, then each pass through `hook` and the rows due after it,
/// until the passes end or the hook stops the loop; `Err` is the
/// reference's refusal of a row.
pub fn drive<B: Broker>(
    scenario: &Scenario,
    broker: &mut B,
    hook: &mut impl Hook<B>,
) -> Result<Played, String> {
    let mut schedule = Schedule::new();
    for row in &scenario.messages {
        let message = Message::new(row.id, &*row.aggregate, &*row.event_type);
        schedule
            .entry(row.written_after_pass)
            .or_default()
            .push(message);
    }
    let mut table = OutboxTable::new();
    let mut played = Played {
        before_first: write_after(&mut schedule, 0, &mut table)?,
        sent: Vec::new(),
    };
    for number in 1..=scenario.passes {
        let sent = hook.pass(&mut table, broker, scenario, number);
        played.sent.push(sent.clone());
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
    Ok(played)
}
