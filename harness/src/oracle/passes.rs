//! The harness's one pass loop over the reference's parts, written from
//! SPEC.md ("Runs and passes", "Runner protocol": how a runner plays a
//! case), with a hook around each run and after each pass: expected
//! outcomes, a case's picture and the generator's planned failures all
//! come from it. It is given the scenario, so a new input reaches every
//! hook without a change of signature; and it is the one place that
//! calls the reference's table and relay ([`batch`], [`run`]).
//!
//! Its shape is its own, not the Rust runner's: the rows are planned
//! before the first pass into a [`Schedule`] (the pass each is written
//! after, to its rows), and so are the unparks, so the loop takes each
//! pass's writes out of the plan instead of walking the lists, and knows
//! the plan is spent when the schedule is empty. The oracle shares the
//! case model (`outbox_cases`) and the reference crate with the runners,
//! and no code with any of them.

use std::collections::BTreeMap;

use outbox::{
    AttemptCap, Broker, DeadLetter, Fetch, FlakyBroker, IdempotentConsumer, Message, MessageId,
    OnExhausted, OutboxRelay, OutboxTable, Partition, RelayOptions,
};

use outbox_cases::{self as model, Failure, Scenario};

/// One run, one relay's `run_once`, as [`drive`] reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The relay's index, below the case's `relays`.
    pub relay: u64,
    /// The ids the relay reported sent.
    pub sent: Vec<MessageId>,
    /// The dead letters its alert raised, in order.
    pub dead: Vec<DeadLetter>,
}

/// One pass as [`drive`] reports it to its hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pass {
    /// Counted from 1.
    pub number: u64,
    /// Its runs, in the schedule's order (none: an outage).
    pub runs: Vec<Run>,
    /// The rows written into the outbox right after this pass.
    pub written_after: Vec<Message>,
    /// The orders unparked after it, after its rows.
    pub unparked: Vec<String>,
    /// Nothing is unsent and no row is written later: every pass from
    /// here on sends nothing.
    pub idle: bool,
}

/// A broker the loop can drive: the consumer behind it ticks before each
/// pass, its clock for the retention (SPEC.md).
pub trait Clocked: Broker {
    /// The consumer's tick.
    fn tick(&mut self);
}

impl Clocked for FlakyBroker {
    fn tick(&mut self) {
        self.consumer_mut().tick();
    }
}

/// What [`drive`] calls for each run and after each pass.
pub trait Hook<B: Clocked> {
    /// Runs relay `relay` in pass `number` of `scenario` over the table:
    /// by default [`run`]. A hook that watches the broker runs it itself.
    fn run(
        &mut self,
        table: &mut OutboxTable,
        broker: &mut B,
        scenario: &Scenario,
        (number, relay): (u64, u64),
    ) -> Run {
        let _ = number;
        run(table, broker, scenario, relay)
    }

    /// Called after each pass, its rows and its unparks; false stops the
    /// loop.
    fn after(&mut self, pass: Pass) -> bool {
        let _ = pass;
        true
    }
}

/// The loop with nothing around its runs: the expected outcome's.
pub struct Plain;

impl<B: Clocked> Hook<B> for Plain {}

/// One run of relay `relay` of `scenario`, as SPEC builds it: its
/// partition, the case's fetch and cap, an alert that collects the dead
/// letters. SPEC builds the relays before the first pass and, with
/// `restart_each_pass`, before every one; the reference's relay borrows
/// the table for as long as it lives and keeps nothing else (every state
/// that outlives a run is the table's or the consumer's), so a relay per
/// run is all of them.
pub fn run<B: Broker>(
    table: &mut OutboxTable,
    broker: &mut B,
    scenario: &Scenario,
    relay: u64,
) -> Run {
    let mut dead = Vec::new();
    let sent = {
        let mut alert = |letter: &DeadLetter| dead.push(letter.clone());
        let options = RelayOptions {
            alert: Some(&mut alert),
            ..options(scenario, relay)
        };
        OutboxRelay::with_options(table, broker, batch_size(scenario), options).run_once()
    };
    Run { relay, sent, dead }
}

/// The rows relay `relay`'s next run of `scenario` takes, its own first
/// step (`unsent`), for a hook that must know them before the run.
pub fn batch(table: &OutboxTable, scenario: &Scenario, relay: u64) -> Vec<Message> {
    let RelayOptions {
        partition, fetch, ..
    } = options(scenario, relay);
    table.unsent(batch_size(scenario), partition, fetch)
}

/// The options of relay `relay` of `scenario`, without an alert.
fn options(scenario: &Scenario, relay: u64) -> RelayOptions<'static> {
    let narrow = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
    let count = narrow(scenario.relays.unwrap_or(1));
    let on_exhausted = match scenario.on_exhausted.unwrap_or_default() {
        model::OnExhausted::Release => OnExhausted::Release,
        model::OnExhausted::Park => OnExhausted::Park,
    };
    RelayOptions {
        partition: Partition {
            index: narrow(relay),
            count,
        },
        fetch: match scenario.fetch.unwrap_or_default() {
            model::Fetch::Rows => Fetch::Rows,
            model::Fetch::Heads => Fetch::Heads,
        },
        cap: (scenario.max_attempts).map(|max_attempts| AttemptCap {
            max_attempts,
            on_exhausted,
        }),
        alert: None,
    }
}

fn batch_size(scenario: &Scenario) -> usize {
    scenario.batch_size.try_into().unwrap_or(usize::MAX)
}

/// What [`drive`] played: the rows written before the first pass, and the
/// ids each run sent and dead-lettered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Played {
    /// The rows written before the first pass.
    pub before_first: Vec<Message>,
    /// The ids sent, one list per run played.
    pub sent: Vec<Vec<MessageId>>,
    /// The ids dead-lettered, one list per run played.
    pub dead_letters: Vec<Vec<MessageId>>,
}

/// The reference's broker for a scenario: a fresh consumer (with the
/// case's retention) behind it, and the scenario's failures turned once
/// into the broker's script (attempt number to the reference's own
/// failure).
pub fn broker(scenario: &Scenario) -> FlakyBroker {
    let reference = |failure: &Failure| match failure {
        Failure::Down => outbox::Failure::Down,
        Failure::LostAck => outbox::Failure::LostAck,
    };
    let script = scenario.failures.iter();
    FlakyBroker::new(
        IdempotentConsumer::with_retention(scenario.retention),
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
/// first pass, then each pass (the consumer's tick, each run its schedule
/// lists through `hook`, the rows due after it, then its unparks), until
/// the passes end or the hook stops the loop; `Err` is the reference's
/// refusal of a row.
pub fn drive<B: Clocked>(
    scenario: &Scenario,
    broker: &mut B,
    hook: &mut impl Hook<B>,
) -> Result<Played, String> {
    let mut schedule = Schedule::new();
    for row in &scenario.messages {
        let message = Message::new(row.id, &*row.aggregate, &*row.event_type);
        let due = schedule.entry(row.written_after_pass).or_default();
        due.push(message);
    }
    let mut unparks = BTreeMap::<u64, Vec<String>>::new();
    for unpark in scenario.unpark.iter().flatten() {
        let due = unparks.entry(unpark.after_pass).or_default();
        due.push(unpark.aggregate.clone());
    }
    let mut table = OutboxTable::new();
    let mut played = Played {
        before_first: write_after(&mut schedule, 0, &mut table)?,
        ..Played::default()
    };
    for number in 1..=scenario.passes {
        broker.tick();
        let relays = scenario.relays_in(number).into_iter();
        let runs: Vec<Run> = relays
            .map(|relay| hook.run(&mut table, broker, scenario, (number, relay)))
            .collect();
        for run in &runs {
            played.sent.push(run.sent.clone());
            let dead = run.dead.iter().map(|letter| letter.message.id);
            played.dead_letters.push(dead.collect());
        }
        let written_after = write_after(&mut schedule, number, &mut table)?;
        let unparked = unparks.remove(&number).unwrap_or_default();
        unparked
            .iter()
            .for_each(|aggregate| table.unpark(aggregate));
        let idle = schedule.is_empty() && !table.has_unsent();
        let pass = Pass {
            number,
            runs,
            written_after,
            unparked,
            idle,
        };
        if !hook.after(pass) {
            break;
        }
    }
    Ok(played)
}
