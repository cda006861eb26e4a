use std::collections::HashMap;
use std::fmt;

use crate::consumer::IdempotentConsumer;
use crate::message::Message;

/// What the relay publishes to. `FlakyBroker` is the practice's fake; the
/// demo wraps it to narrate each attempt.
pub trait Broker {
    /// Hands the message over. `Err` means the relay must assume it was not
    /// delivered and retry later, even though it may have been.
    fn publish(&mut self, message: &Message) -> Result<(), PublishFailed>;
}

/// How a scripted publish attempt goes wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The broker did not answer: the message was NOT delivered.
    Down,
    /// The message was delivered, but the acknowledgement was lost: the
    /// publisher sees an error anyway. This is why delivery is at-least-once.
    LostAck,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Failure::Down => "broker down",
            Failure::LostAck => "ack lost",
        })
    }
}

/// The publisher got no acknowledgement; whether the message arrived is
/// unknown to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublishFailed {
    /// Which scripted failure happened.
    pub failure: Failure,
}

impl fmt::Display for PublishFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "publish failed: {}", self.failure)
    }
}

impl std::error::Error for PublishFailed {}

/// A fake broker that delivers straight to the consumer inside `publish` and
/// fails on scripted attempt numbers.
///
/// Attempts are counted from 1 over the broker's whole life, across passes
/// and relay restarts, so a script says exactly which publish fails.
#[derive(Debug)]
pub struct FlakyBroker {
    consumer: IdempotentConsumer,
    failures: HashMap<u64, Failure>,
    attempts: u64,
}

impl FlakyBroker {
    /// A broker delivering to `consumer`, failing attempt `n` as
    /// `failures[n]` says.
    pub fn new(consumer: IdempotentConsumer, failures: HashMap<u64, Failure>) -> Self {
        Self {
            consumer,
            failures,
            attempts: 0,
        }
    }

    /// The consumer behind the broker, to read what it processed.
    pub fn consumer(&self) -> &IdempotentConsumer {
        &self.consumer
    }

    /// How many publish attempts the broker has seen, so an observer can
    /// name the attempt the failure script refers to.
    pub fn attempts(&self) -> u64 {
        self.attempts
    }
}

impl Broker for FlakyBroker {
    fn publish(&mut self, message: &Message) -> Result<(), PublishFailed> {
        self.attempts += 1;
        let failure = self.failures.get(&self.attempts).copied();
        if failure == Some(Failure::Down) {
            return Err(PublishFailed {
                failure: Failure::Down,
            });
        }
        self.consumer.handle(message);
        match failure {
            Some(failure) => Err(PublishFailed { failure }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn broker(failures: &[(u64, Failure)]) -> FlakyBroker {
        FlakyBroker::new(
            IdempotentConsumer::new(),
            failures.iter().copied().collect(),
        )
    }

    #[test]
    fn down_does_not_deliver_and_lost_ack_does() {
        let message = Message::new(1, "order-1", "OrderPlaced");
        let mut down = broker(&[(1, Failure::Down)]);
        assert_eq!(
            down.publish(&message),
            Err(PublishFailed {
                failure: Failure::Down
            })
        );
        assert!(down.consumer().journal().is_empty());

        let mut lost = broker(&[(1, Failure::LostAck)]);
        assert!(lost.publish(&message).is_err());
        assert_eq!(lost.consumer().journal(), ["order-1 OrderPlaced"]);
    }

    #[test]
    fn attempts_count_across_calls() {
        let message = Message::new(1, "order-1", "OrderPlaced");
        let mut broker = broker(&[(2, Failure::Down)]);
        assert!(broker.publish(&message).is_ok());
        assert!(broker.publish(&message).is_err());
        assert!(broker.publish(&message).is_ok());
        assert_eq!(broker.consumer().duplicates(), 1);
    }
}
