//! The reference's run of a case, traced pass by pass and cut to what a
//! picture draws: the oracle's pass loop with a hook that watches the
//! broker, so the picture shows exactly what the expected outcomes come
//! from.
//!
//! The watching is the report's own: an [`ObservedBroker`] wraps the
//! reference's [`FlakyBroker`] behind the reference's public [`Broker`]
//! trait and records one [`Event::Attempt`] per publish; [`traced_pass`]
//! adds the rows the relay skipped, learnt from outside the relay: the
//! batch taken before the pass (`table.unsent(batch_size)`, the relay's own
//! first step) against the attempts the broker saw. So the reference stays
//! the four parts and the message, with nothing in it for the report.

use outbox::{
    Broker, Failure, FlakyBroker, Message, MessageId, OutboxRelay, OutboxTable, PublishFailed,
};

use crate::oracle::passes::{self, Hook};

use super::Scenario;

/// One thing that happened to one row of a relay's batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Event {
    /// The relay handed `message` to the broker.
    Attempt {
        /// The broker's attempt number, counted from 1 over its whole life:
        /// the number a failure script names.
        attempt: u64,
        /// The row.
        message: Message,
        /// What went wrong, as the broker's script names it (`Down`: not
        /// delivered; `LostAck`: delivered, the row stays unsent); `None`:
        /// published.
        failure: Option<Failure>,
        /// The message reached the consumer, which had processed its id
        /// before and dropped it: at-least-once delivery made harmless.
        duplicate_dropped: bool,
    },
    /// The relay skipped `message` without publishing it: an earlier
    /// message of its order failed in this pass, so it must not overtake it.
    /// Found by [`with_held_back`]: a row of the batch with no attempt.
    HeldBack {
        /// The row.
        message: Message,
    },
}

impl Event {
    /// The row the event is about.
    pub fn message(&self) -> &Message {
        match self {
            Event::Attempt { message, .. } | Event::HeldBack { message } => message,
        }
    }
}

/// A [`FlakyBroker`] whose every publish attempt is recorded, and which
/// otherwise behaves exactly like it. It cannot see the rows the relay
/// skips (no broker can); [`traced_pass`] adds them.
#[derive(Debug)]
pub(super) struct ObservedBroker {
    broker: FlakyBroker,
    /// Counted here, as the wrapped broker counts its own: every publish
    /// goes through this one, and the broker is new, so the two agree.
    attempts: u64,
    /// The attempts of the pass being traced.
    events: Vec<Event>,
}

impl ObservedBroker {
    /// Wraps `broker`, which must be new, so that its attempt numbers are
    /// the ones counted here and the failure script names.
    pub fn new(broker: FlakyBroker) -> Self {
        Self {
            broker,
            attempts: 0,
            events: Vec::new(),
        }
    }

    /// The wrapped broker, to read its consumer after the run.
    #[cfg(test)]
    pub fn broker(&self) -> &FlakyBroker {
        &self.broker
    }
}

impl Broker for ObservedBroker {
    fn publish(&mut self, message: &Message) -> Result<(), PublishFailed> {
        // The consumer's counter is the only witness of a dropped duplicate
        // that does not change the consumer's API.
        let duplicates_before = self.broker.consumer().duplicates();
        let result = self.broker.publish(message);
        self.attempts += 1;
        self.events.push(Event::Attempt {
            attempt: self.attempts,
            message: message.clone(),
            failure: result.err().map(|e| e.failure),
            duplicate_dropped: self.broker.consumer().duplicates() > duplicates_before,
        });
        result
    }
}

/// One pass of a relay over `table` with an observed broker: the ids sent,
/// and one event per row of the batch, in batch order.
///
/// The batch is taken first, as the relay's own first step takes it
/// (`table.unsent(batch_size)`); the relay then runs unchanged, and every
/// row of that batch the broker saw no attempt for was held back. The
/// broker's earlier events are dropped, so each pass starts clean.
pub(super) fn traced_pass(
    table: &mut OutboxTable,
    broker: &mut ObservedBroker,
    batch_size: usize,
) -> (Vec<MessageId>, Vec<Event>) {
    let batch = table.unsent(batch_size);
    broker.events.clear();
    let sent = OutboxRelay::new(table, broker, batch_size).run_once();
    let attempts = std::mem::take(&mut broker.events);
    (sent, with_held_back(&batch, attempts))
}

/// The events of one pass: each row of `batch` (taken before the pass) with
/// the broker's attempt for it, or [`Event::HeldBack`] where there was none.
///
/// The relay publishes the rows it does not skip in batch order, each at
/// most once per pass, so the attempts are matched to the rows in order. An
/// attempt for a row not in `batch` (a batch cut short by the caller) is
/// kept at the end, so nothing the broker saw goes missing.
pub(super) fn with_held_back(batch: &[Message], attempts: Vec<Event>) -> Vec<Event> {
    let mut attempts = attempts.into_iter().peekable();
    let mut events = Vec::with_capacity(batch.len());
    for row in batch {
        match attempts.next_if(|attempt| attempt.message().id == row.id) {
            Some(attempt) => events.push(attempt),
            None => events.push(Event::HeldBack {
                message: row.clone(),
            }),
        }
    }
    events.extend(attempts);
    events
}

/// More passes than this are summarised, not drawn, so a long case keeps
/// the page small.
const MAX_DRAWN_PASSES: usize = 12;
/// More rows in one column than this are summarised, not drawn.
const MAX_DRAWN_ROWS: usize = 40;

/// The first [`MAX_DRAWN_ROWS`] items of a column, and how many there
/// were: a long case keeps what the picture draws, so the page's memory
/// does not grow with the square of the case (passes times rows).
#[derive(Debug)]
pub(super) struct Cut<T> {
    /// The items drawn, in order.
    pub kept: Vec<T>,
    /// How many there were.
    pub all: usize,
}

impl<T> Cut<T> {
    fn new(mut kept: Vec<T>) -> Self {
        let all = kept.len();
        kept.truncate(MAX_DRAWN_ROWS);
        kept.shrink_to_fit();
        Cut { kept, all }
    }
}

/// One pass of the reference over the scenario, cut to what the picture
/// draws.
#[derive(Debug)]
pub(super) struct Pass {
    /// Counted from 1.
    pub number: u64,
    /// A relay was built for this pass (the first, or every one when the
    /// case restarts the relay).
    pub new_relay: bool,
    /// One event per row of the batch, in batch order.
    pub events: Cut<Event>,
    /// The consumer's side: each delivery (the row, and whether it was a
    /// dropped duplicate).
    pub deliveries: Cut<(Message, bool)>,
    /// The ids the relay reported sent.
    pub sent: Vec<u64>,
    /// Rows written into the outbox right after this pass.
    pub written_after: Cut<Message>,
}

/// Passes that did something but are beyond [`MAX_DRAWN_PASSES`]: only
/// their span and what they sent is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Undrawn {
    /// The first such pass.
    pub first: u64,
    /// The last such pass.
    pub last: u64,
    /// The rows they sent, together.
    pub sent: usize,
}

/// The reference's whole run of a scenario, as much as the picture draws.
#[derive(Debug)]
pub(super) struct Run {
    /// Rows in the outbox before the first pass.
    pub initial: Cut<Message>,
    /// The first passes, at most [`MAX_DRAWN_PASSES`], in order.
    pub passes: Vec<Pass>,
    /// The busy passes after those.
    pub undrawn: Option<Undrawn>,
    /// Passes after the last busy one, all with nothing to send.
    pub idle_passes: Option<(u64, u64)>,
}

#[cfg(test)]
impl Run {
    /// How many rows and events the run keeps, whatever the case's size:
    /// what a test bounds, so the page's memory cannot grow unseen.
    pub fn kept(&self) -> usize {
        let pass = |p: &Pass| p.events.kept.len() + p.deliveries.kept.len();
        let written = |p: &Pass| p.written_after.kept.len();
        let passes: usize = self.passes.iter().map(|p| pass(p) + written(p)).sum();
        self.initial.kept.len() + passes
    }
}

/// Draws what the oracle's pass loop ([`crate::oracle::passes`]) does:
/// each of the first [`MAX_DRAWN_PASSES`] passes is traced with
/// [`traced_pass`] (the batch taken before the pass against the attempts
/// the broker saw), the later busy ones only counted.
struct Tracer {
    run: Run,
    restart_each_pass: bool,
    total_passes: u64,
    /// The events of the pass being drawn, until its end is reported.
    events: Option<Vec<Event>>,
}

impl Hook<ObservedBroker> for Tracer {
    fn pass(
        &mut self,
        table: &mut OutboxTable,
        broker: &mut ObservedBroker,
        batch_size: usize,
    ) -> Vec<u64> {
        if self.run.passes.len() < MAX_DRAWN_PASSES {
            let (sent, events) = traced_pass(table, broker, batch_size);
            self.events = Some(events);
            return sent;
        }
        let sent = OutboxRelay::new(table, broker, batch_size).run_once();
        broker.events.clear();
        sent
    }

    fn after(&mut self, pass: passes::Pass) -> bool {
        let (number, idle) = (pass.number, pass.idle);
        match self.events.take() {
            Some(events) => self.drawn(pass, events),
            None => {
                let undrawn = self.run.undrawn.get_or_insert(Undrawn {
                    first: number,
                    last: number,
                    sent: 0,
                });
                undrawn.last = number;
                undrawn.sent += pass.sent.len();
            }
        }
        if idle && number < self.total_passes {
            self.run.idle_passes = Some((number + 1, self.total_passes));
        }
        !idle
    }
}

impl Tracer {
    /// Keeps a drawn pass, cut to what the picture shows.
    fn drawn(&mut self, pass: passes::Pass, events: Vec<Event>) {
        let deliveries: Vec<(Message, bool)> = events
            .iter()
            .filter_map(|event| match event {
                Event::Attempt {
                    message,
                    failure,
                    duplicate_dropped,
                    ..
                } if *failure != Some(Failure::Down) => Some((message.clone(), *duplicate_dropped)),
                _ => None,
            })
            .collect();
        self.run.passes.push(Pass {
            number: pass.number,
            new_relay: pass.number == 1 || self.restart_each_pass,
            events: Cut::new(events),
            deliveries: Cut::new(deliveries),
            sent: pass.sent,
            written_after: Cut::new(pass.written_after),
        });
    }
}

/// The reference's run of `scenario`, as much as the picture draws; a test
/// keeps it sending what every case of the table expects.
pub(super) fn simulate(scenario: &Scenario) -> Result<Run, String> {
    let mut broker = ObservedBroker::new(passes::broker(scenario));
    let mut tracer = Tracer {
        run: Run {
            initial: Cut::new(Vec::new()),
            passes: Vec::new(),
            undrawn: None,
            idle_passes: None,
        },
        restart_each_pass: scenario.restart_each_pass,
        total_passes: scenario.passes,
        events: None,
    };
    let initial = passes::drive(scenario, &mut broker, &mut tracer)?;
    Ok(Run {
        initial: Cut::new(initial),
        ..tracer.run
    })
}
