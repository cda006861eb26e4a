//! The reference's run of a case, traced pass by pass and cut to what a
//! picture draws: the oracle's pass loop with a hook that watches the
//! broker, so the picture shows exactly what the expected outcomes come
//! from.

use outbox::trace::{traced_pass, Event, ObservedBroker};
use outbox::{FlakyBroker, IdempotentConsumer, Message, OutboxRelay, OutboxTable};

use crate::oracle::passes::{self, Hook};

use super::Scenario;

/// More passes than this are summarised, not drawn, so a long case keeps
/// the page small.
const MAX_DRAWN_PASSES: usize = 12;
/// More rows in one column than this are summarised, not drawn.
const MAX_DRAWN_ROWS: usize = 40;

/// One pass of the reference over the scenario, cut to what the picture
/// draws: a long batch keeps only its first [`MAX_DRAWN_ROWS`] rows and
/// the counts of the rest, so the page's memory does not grow with the
/// square of the case (passes times rows).
#[derive(Debug)]
pub(super) struct Pass {
    /// Counted from 1.
    pub number: u64,
    /// A relay was built for this pass (the first, or every one when the
    /// case restarts the relay).
    pub new_relay: bool,
    /// One event per row of the batch, in batch order, the first
    /// [`MAX_DRAWN_ROWS`] of them.
    pub events: Vec<Event>,
    /// How many rows the batch had.
    pub rows: usize,
    /// The consumer's side: each delivery (the row, and whether it was a
    /// dropped duplicate), the first [`MAX_DRAWN_ROWS`] of them.
    pub deliveries: Vec<(Message, bool)>,
    /// How many deliveries the pass made.
    pub delivered: usize,
    /// The ids the relay reported sent.
    pub sent: Vec<u64>,
    /// Rows written into the outbox right after this pass, the first
    /// [`MAX_DRAWN_ROWS`] of them.
    pub written_after: Vec<Message>,
    /// How many rows were written right after this pass.
    pub written: usize,
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
    /// Rows in the outbox before the first pass, the first
    /// [`MAX_DRAWN_ROWS`] of them.
    pub initial: Vec<Message>,
    /// How many rows were in the outbox before the first pass.
    pub initial_rows: usize,
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
        self.initial.len()
            + self
                .passes
                .iter()
                .map(|p| p.events.len() + p.deliveries.len() + p.written_after.len())
                .sum::<usize>()
    }
}

/// The first [`MAX_DRAWN_ROWS`] of `items`, and how many there were.
fn cut<T>(mut items: Vec<T>) -> (Vec<T>, usize) {
    let all = items.len();
    items.truncate(MAX_DRAWN_ROWS);
    items.shrink_to_fit();
    (items, all)
}

/// Draws what the oracle's pass loop ([`crate::oracle::passes`]) does:
/// each of the first [`MAX_DRAWN_PASSES`] passes is traced with
/// [`outbox::trace::traced_pass`] (the batch taken before the pass against
/// the attempts the broker saw), the later busy ones only counted.
struct Tracer {
    run: Run,
    restart_each_pass: bool,
    total_passes: u64,
    /// The events of the pass being drawn, until its end is reported.
    events: Option<Vec<Event>>,
}

impl Hook<Observed> for Tracer {
    fn pass(
        &mut self,
        table: &mut OutboxTable,
        broker: &mut Observed,
        batch_size: usize,
        _number: u64,
    ) -> Vec<u64> {
        if self.run.passes.len() < MAX_DRAWN_PASSES {
            let (sent, events) = traced_pass(table, broker, batch_size);
            self.events = Some(events);
            return sent;
        }
        let sent = OutboxRelay::new(table, broker, batch_size).run_once();
        broker.observer_mut().clear();
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
                    outcome,
                    duplicate_dropped,
                    ..
                } if outcome.delivered() => Some((message.clone(), *duplicate_dropped)),
                _ => None,
            })
            .collect();
        let (events, rows) = cut(events);
        let (deliveries, delivered) = cut(deliveries);
        let (written_after, written) = cut(pass.written_after);
        self.run.passes.push(Pass {
            number: pass.number,
            new_relay: pass.number == 1 || self.restart_each_pass,
            events,
            rows,
            deliveries,
            delivered,
            sent: pass.sent,
            written_after,
            written,
        });
    }
}

/// The broker a picture watches.
type Observed = ObservedBroker<Vec<Event>>;

/// The reference's run of `scenario`, as much as the picture draws; a test
/// keeps it sending what every case of the table expects.
pub(super) fn simulate(scenario: &Scenario) -> Result<Run, String> {
    let flaky = FlakyBroker::new(IdempotentConsumer::new(), passes::failures(scenario));
    let mut broker = ObservedBroker::new(flaky, Vec::new());
    let mut tracer = Tracer {
        run: Run {
            initial: Vec::new(),
            initial_rows: 0,
            passes: Vec::new(),
            undrawn: None,
            idle_passes: None,
        },
        restart_each_pass: scenario.restart_each_pass,
        total_passes: scenario.passes,
        events: None,
    };
    let initial = passes::drive(scenario, &mut broker, &mut tracer)?;
    let mut run = tracer.run;
    (run.initial, run.initial_rows) = cut(initial);
    Ok(run)
}
