//! Watching a run: the events of every pass, as they happen.
//!
//! The relay's result (the ids sent) hides the story a reader needs: which
//! attempt failed and how, which rows waited behind a blocked order, which
//! redelivery the consumer dropped. An [`ObservedBroker`] wraps the
//! [`FlakyBroker`] and tells an [`Observer`] one [`Event`] per row of each
//! batch, in batch order; a parity report draws its pictures from them and
//! a narration can print them.
//!
//! Nothing changes for code that does not observe: the plain `FlakyBroker`
//! does no extra work, and the relay's [`Broker::held_back`] call is an
//! empty default method for it.

use crate::broker::{Broker, Failure, FlakyBroker, PublishFailed};
use crate::message::Message;

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

/// A [`FlakyBroker`] that reports every attempt and every held-back row to
/// an observer, and otherwise behaves exactly like the broker it wraps.
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

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::{IdempotentConsumer, OutboxRelay, OutboxTable};

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
        let mut relay = OutboxRelay::new(&mut table, &mut broker, 10);
        assert_eq!(relay.run_once(), Vec::<u64>::new());
        assert_eq!(relay.run_once(), [1, 2, 3, 4]);
        assert_eq!(
            story(broker.observer()),
            [
                "1:#1 AckLost",
                "2:#2 BrokerDown",
                "3:#1 Published dup",
                "4:#2 Published",
                "5:#3 Published",
                "6:#4 Published",
            ]
        );
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
        for _ in 0..3 {
            let expected = OutboxRelay::new(&mut plain_table, &mut plain, 2).run_once();
            let actual = OutboxRelay::new(&mut seen_table, &mut seen, 2).run_once();
            assert_eq!(actual, expected);
        }
        let (broker, events) = seen.into_parts();
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
}
