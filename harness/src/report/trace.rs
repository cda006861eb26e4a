//! The reference's run of a case, traced run by run for its picture
//! (`picture.rs` hooks the oracle's pass loop, so the picture shows exactly
//! what the expected outcomes come from).
//!
//! The watching is the report's own: an [`ObservedBroker`] wraps the
//! reference's [`FlakyBroker`] behind the reference's public [`Broker`]
//! trait and records one [`Attempt`] per publish; [`traced_run`]
//! adds the rows the relay skipped, learnt from outside the relay: the
//! batch taken before the run (the relay's own first step, through the
//! pass loop's [`passes::batch`]) against the attempts the broker saw. So
//! the reference stays the four parts and the message, with nothing in it
//! for the report.

use std::collections::HashSet;

use outbox::{Broker, Failure, FlakyBroker, Message, MessageId, OutboxTable, PublishFailed};

use super::Scenario;
use crate::oracle::passes::{self, Clocked, Run};

/// One row of a relay's batch and what happened to it in the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Event {
    /// The row.
    pub message: Message,
    /// The relay handed the row to the broker; `None`: it skipped the row
    /// without publishing it, since an earlier message of its order failed
    /// in this run and it must not overtake it (found by
    /// [`with_held_back`]: a row of the batch with no attempt).
    pub attempt: Option<Attempt>,
}

/// One publish attempt, as the broker saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Attempt {
    /// The broker's attempt number, counted from 1 over its whole life:
    /// the number a failure script names.
    pub number: u64,
    /// What went wrong, as the broker's script names it (`Down`: not
    /// delivered; `LostAck`: delivered, the row stays unsent); `None`:
    /// published.
    pub failure: Option<Failure>,
    /// The message reached the consumer, which had processed its id
    /// before and dropped it: at-least-once delivery made harmless.
    pub duplicate_dropped: bool,
    /// The consumer handled it again: it had applied the id before, and
    /// its retention had forgotten it.
    pub reapplied: bool,
}

/// A [`FlakyBroker`] whose every publish attempt is recorded, and which
/// otherwise behaves exactly like it. It cannot see the rows the relay
/// skips (no broker can); [`traced_pass`] adds them.
#[derive(Debug)]
pub(super) struct ObservedBroker {
    /// The wrapped broker, whose consumer the tests read after a run.
    pub(super) broker: FlakyBroker,
    /// Counted here, as the wrapped broker counts its own: every publish
    /// goes through this one, and the broker is new, so the two agree.
    attempts: u64,
    /// The ids the consumer has applied, for an id applied again.
    applied: HashSet<MessageId>,
    /// The attempts of the run being traced; `None` between traced runs,
    /// so a run not drawn keeps nothing.
    events: Option<Vec<Event>>,
}

impl ObservedBroker {
    /// Wraps `broker`, which must be new, so that its attempt numbers are
    /// the ones counted here and the failure script names.
    pub fn new(broker: FlakyBroker) -> Self {
        Self {
            broker,
            attempts: 0,
            applied: HashSet::new(),
            events: None,
        }
    }
}

impl Broker for ObservedBroker {
    fn publish(&mut self, message: &Message) -> Result<(), PublishFailed> {
        // The consumer's counter is the only witness of a dropped duplicate
        // that does not change the consumer's API.
        let duplicates_before = self.broker.consumer().duplicates();
        let result = self.broker.publish(message);
        self.attempts += 1;
        let failure = result.err().map(|e| e.failure);
        let duplicate_dropped = self.broker.consumer().duplicates() > duplicates_before;
        let handled = failure != Some(Failure::Down) && !duplicate_dropped;
        let reapplied = handled && !self.applied.insert(message.id);
        if let Some(events) = &mut self.events {
            let attempt = Attempt {
                number: self.attempts,
                failure,
                duplicate_dropped,
                reapplied,
            };
            events.push(Event {
                message: message.clone(),
                attempt: Some(attempt),
            });
        }
        result
    }
}

impl Clocked for ObservedBroker {
    fn tick(&mut self) {
        self.broker.tick();
    }
}

/// One run of `scenario`'s relay `relay` over `table` with an observed
/// broker: the run, and one event per row of its batch, in batch order.
///
/// The batch is taken first, as the relay's own first step takes it; the
/// relay then runs unchanged, and every row of that batch the broker saw
/// no attempt for was held back.
pub(super) fn traced_run(
    table: &mut OutboxTable,
    broker: &mut ObservedBroker,
    scenario: &Scenario,
    relay: u64,
) -> (Run, Vec<Event>) {
    let batch = passes::batch(table, scenario, relay);
    broker.events = Some(Vec::new());
    let run = passes::run(table, broker, scenario, relay);
    let attempts = broker.events.take().unwrap_or_default();
    (run, with_held_back(&batch, attempts))
}

/// The events of one run: each row of `batch` (taken before the run) with
/// the broker's attempt for it, or held back where there was none.
///
/// The relay publishes the rows it does not skip in batch order, each at
/// most once per run, so the attempts are matched to the rows in order. An
/// attempt for a row not in `batch` (a batch cut short by the caller) is
/// kept at the end, so nothing the broker saw goes missing.
pub(super) fn with_held_back(batch: &[Message], attempts: Vec<Event>) -> Vec<Event> {
    let mut attempts = attempts.into_iter().peekable();
    let mut events = Vec::with_capacity(batch.len());
    for row in batch {
        events.push(
            attempts
                .next_if(|a| a.message.id == row.id)
                .unwrap_or_else(|| Event {
                    message: row.clone(),
                    attempt: None,
                }),
        );
    }
    events.extend(attempts);
    events
}
