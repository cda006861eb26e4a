//! Watching a run: the events of every pass, as they happen.
//!
//! The relay's result (the ids sent) hides the story a reader needs: which
//! attempt failed and how, which rows waited behind a blocked order, which
//! redelivery the consumer dropped. An [`ObservedBroker`] wraps the
//! [`FlakyBroker`] and tells an [`Observer`] one [`Event::Attempt`] per
//! publish; [`traced_pass`] adds the rows the relay skipped, learnt from
//! outside the relay: the batch taken before the pass
//! (`table.unsent(batch_size)`, the relay's own first step) against the
//! attempts the broker saw. A parity report draws its pictures from them
//! and a narration can print them.
//!
//! So the relay and the [`Broker`] trait stay exactly what the practice
//! describes: nothing in them exists for the trace, and the plain
//! `FlakyBroker` does no extra work.

use crate::broker::{Broker, Failure, FlakyBroker, PublishFailed};
use crate::message::{Message, MessageId};
use crate::relay::OutboxRelay;
use crate::table::OutboxTable;

/// How one publish attempt went, as the practice names the three cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Delivered and acknowledged: the relay marks the row sent.
    Published,
    /// The broker did not answer: not delivered, the row stays unsent.
    BrokerDown,
    /// Delivered, but the ack was lost: the row stays unsent and will be
    /// delivered again, which is why the consumer dedupes.
    AckLost,
}

impl Outcome {
    /// Whether the consumer received the message on this attempt.
    pub fn delivered(self) -> bool {
        self != Outcome::BrokerDown
    }
}

/// One thing that happened to one row of a relay's batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The relay handed `message` to the broker.
    Attempt {
        /// The broker's attempt number, counted from 1 over its whole life:
        /// the number a failure script names.
        attempt: u64,
        /// The row.
        message: Message,
        /// What the publisher saw.
        outcome: Outcome,
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

/// Receives the events of a run, in the order they happen.
pub trait Observer {
    /// Called once per event; an observer only watches, it cannot change
    /// what the relay or the broker does.
    fn observe(&mut self, event: &Event);
}

/// The simplest observer: keep every event, to look at after the run.
impl Observer for Vec<Event> {
    fn observe(&mut self, event: &Event) {
        self.push(event.clone());
    }
}

/// A [`FlakyBroker`] that reports every publish attempt to an observer, and
/// otherwise behaves exactly like the broker it wraps. It cannot see the
/// rows the relay skips (no broker can); [`traced_pass`] adds them.
#[derive(Debug)]
pub struct ObservedBroker<O: Observer> {
    broker: FlakyBroker,
    observer: O,
}

impl<O: Observer> ObservedBroker<O> {
    /// Wraps `broker`; build it fresh, so its attempt numbers are the ones
    /// the failure script names.
    pub fn new(broker: FlakyBroker, observer: O) -> Self {
        Self { broker, observer }
    }

    /// The wrapped broker, to read its consumer after the run.
    pub fn broker(&self) -> &FlakyBroker {
        &self.broker
    }

    /// The observer, to read what it collected.
    pub fn observer(&self) -> &O {
        &self.observer
    }

    /// The observer, mutably, e.g. to take one pass's events before the next.
    pub fn observer_mut(&mut self) -> &mut O {
        &mut self.observer
    }

    /// Gives back the broker and the observer.
    pub fn into_parts(self) -> (FlakyBroker, O) {
        (self.broker, self.observer)
    }
}

impl<O: Observer> Broker for ObservedBroker<O> {
    fn publish(&mut self, message: &Message) -> Result<(), PublishFailed> {
        // The consumer's counter is the only witness of a dropped duplicate
        // that does not change the consumer's API.
        let duplicates_before = self.broker.consumer().duplicates();
        let result = self.broker.publish(message);
        let outcome = match result {
            Ok(()) => Outcome::Published,
            Err(PublishFailed {
                failure: Failure::Down,
            }) => Outcome::BrokerDown,
            Err(PublishFailed {
                failure: Failure::LostAck,
            }) => Outcome::AckLost,
        };
        self.observer.observe(&Event::Attempt {
            attempt: self.broker.attempts(),
            message: message.clone(),
            outcome,
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
/// observer's earlier events are dropped, so each pass starts clean.
pub fn traced_pass(
    table: &mut OutboxTable,
    broker: &mut ObservedBroker<Vec<Event>>,
    batch_size: usize,
) -> (Vec<MessageId>, Vec<Event>) {
    let batch = table.unsent(batch_size);
    broker.observer_mut().clear();
    let sent = OutboxRelay::new(table, broker, batch_size).run_once();
    let attempts = std::mem::take(broker.observer_mut());
    (sent, with_held_back(&batch, attempts))
}

/// The events of one pass: each row of `batch` (taken before the pass) with
/// the broker's attempt for it, or [`Event::HeldBack`] where there was none.
///
/// The relay publishes the rows it does not skip in batch order, each at
/// most once per pass, so the attempts are matched to the rows in order. An
/// attempt for a row not in `batch` (a batch cut short by the caller) is
/// kept at the end, so nothing the broker saw goes missing.
pub fn with_held_back(batch: &[Message], attempts: Vec<Event>) -> Vec<Event> {
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

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::IdempotentConsumer;

    fn table(rows: &[(u64, &str, &str)]) -> OutboxTable {
        let mut table = OutboxTable::new();
        for &(id, aggregate, event_type) in rows {
            table.add(Message::new(id, aggregate, event_type)).unwrap();
        }
        table
    }

    fn observed(failures: &[(u64, Failure)]) -> ObservedBroker<Vec<Event>> {
        let failures: HashMap<u64, Failure> = failures.iter().copied().collect();
        ObservedBroker::new(
            FlakyBroker::new(IdempotentConsumer::new(), failures),
            Vec::new(),
        )
    }

    /// (attempt, id, outcome, duplicate) or (0, id, held back) as text, so a
    /// whole pass reads as one line in an assertion.
    fn story(events: &[Event]) -> Vec<String> {
        events
            .iter()
            .map(|event| match event {
                Event::Attempt {
                    attempt,
                    message,
                    outcome,
                    duplicate_dropped,
                } => format!(
                    "{attempt}:#{} {outcome:?}{}",
                    message.id,
                    if *duplicate_dropped { " dup" } else { "" }
                ),
                Event::HeldBack { message } => format!("held #{}", message.id),
            })
            .collect()
    }

    #[test]
    fn every_row_of_the_batch_is_reported_in_order() {
        let mut table = table(&[
            (1, "order-1", "OrderPlaced"),
            (2, "order-2", "OrderPlaced"),
            (3, "order-1", "OrderPaid"),
            (4, "order-2", "OrderPaid"),
        ]);
        let mut broker = observed(&[(1, Failure::LostAck), (2, Failure::Down)]);
        let (sent, first) = traced_pass(&mut table, &mut broker, 10);
        assert_eq!(sent, Vec::<u64>::new());
        assert_eq!(
            story(&first),
            ["1:#1 AckLost", "2:#2 BrokerDown", "held #3", "held #4"]
        );
        let (sent, second) = traced_pass(&mut table, &mut broker, 10);
        assert_eq!(sent, [1, 2, 3, 4]);
        assert_eq!(
            story(&second),
            [
                "3:#1 Published dup",
                "4:#2 Published",
                "5:#3 Published",
                "6:#4 Published",
            ]
        );
        let (sent, idle) = traced_pass(&mut table, &mut broker, 10);
        assert!(sent.is_empty() && idle.is_empty());
    }

    #[test]
    fn observing_changes_nothing_the_relay_or_consumer_does() {
        let rows = [
            (1, "order-1", "A"),
            (2, "order-1", "B"),
            (3, "order-2", "A"),
        ];
        let failures = [(1, Failure::LostAck), (4, Failure::Down)];

        let mut plain_table = table(&rows);
        let mut plain = FlakyBroker::new(
            IdempotentConsumer::new(),
            failures.iter().copied().collect(),
        );
        let mut seen_table = table(&rows);
        let mut seen = observed(&failures);
        let mut events = Vec::new();
        for _ in 0..3 {
            let expected = OutboxRelay::new(&mut plain_table, &mut plain, 2).run_once();
            let (actual, pass) = traced_pass(&mut seen_table, &mut seen, 2);
            assert_eq!(actual, expected);
            events.extend(pass);
        }
        let (broker, _) = seen.into_parts();
        assert_eq!(broker.consumer().journal(), plain.consumer().journal());
        assert_eq!(
            broker.consumer().duplicates(),
            plain.consumer().duplicates()
        );
        assert_eq!(broker.attempts(), plain.attempts());
        let dropped = events
            .iter()
            .filter(|e| {
                matches!(
                    e,
                    Event::Attempt {
                        duplicate_dropped: true,
                        ..
                    }
                )
            })
            .count();
        assert_eq!(dropped as u64, plain.consumer().duplicates());
    }

    #[test]
    fn only_a_down_broker_does_not_deliver() {
        assert!(Outcome::Published.delivered());
        assert!(Outcome::AckLost.delivered());
        assert!(!Outcome::BrokerDown.delivered());
        let held = Event::HeldBack {
            message: Message::new(7, "order-1", "A"),
        };
        assert_eq!(held.message().id, 7);
    }

    #[test]
    fn a_row_without_an_attempt_was_held_back_and_stray_attempts_stay() {
        let rows = [
            Message::new(1, "order-1", "A"),
            Message::new(2, "order-1", "B"),
            Message::new(3, "order-2", "A"),
        ];
        let attempt = |attempt, message: &Message, outcome| Event::Attempt {
            attempt,
            message: message.clone(),
            outcome,
            duplicate_dropped: false,
        };
        let events = with_held_back(
            &rows,
            vec![
                attempt(1, &rows[0], Outcome::BrokerDown),
                attempt(2, &rows[2], Outcome::Published),
            ],
        );
        assert_eq!(
            story(&events),
            ["1:#1 BrokerDown", "held #2", "2:#3 Published"]
        );
        // A batch cut to its first row: the later attempt is not lost.
        let events = with_held_back(
            &rows[..1],
            vec![
                attempt(1, &rows[0], Outcome::Published),
                attempt(2, &rows[1], Outcome::Published),
            ],
        );
        assert_eq!(story(&events), ["1:#1 Published", "2:#2 Published"]);
    }
}
