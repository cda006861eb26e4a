use std::collections::HashMap;
use std::fmt;

use crate::consumer::IdempotentConsumer;
use crate::message::Message;

/// How a scripted publish attempt goes wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The broker did not answer: the message was NOT delivered.
    Down,
    /// The message was delivered, but the ack was lost: the publisher sees
    /// an error anyway. This is why delivery is at-least-once.
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

/// No acknowledgement: whether the message arrived is unknown to the
/// publisher.
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

/// What the relay publishes to.
pub trait Broker {
    /// Hands the message over. `Err` means no ack came back: the relay must
    /// retry later, although the message may have arrived.
    fn publish(&mut self, message: &Message) -> Result<(), PublishFailed>;
}

/// A fake broker that delivers to the consumer inside `publish` and fails
/// on scripted attempt numbers, counted from 1 over its whole life.
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

    /// The consumer behind the broker: the broker owns it, so this is how
    /// the caller reads what it processed.
    pub fn consumer(&self) -> &IdempotentConsumer {
        &self.consumer
    }

    /// The consumer, to change: the caller ticks its clock before each pass
    /// (its retention counts passes), and only the broker can reach it.
    pub fn consumer_mut(&mut self) -> &mut IdempotentConsumer {
        &mut self.consumer
    }
}

impl Broker for FlakyBroker {
    fn publish(&mut self, message: &Message) -> Result<(), PublishFailed> {
        self.attempts += 1;
        let failure = self.failures.get(&self.attempts).copied();
        if let Some(failure @ Failure::Down) = failure {
            return Err(PublishFailed { failure });
        }
        self.consumer.handle(message);
        match failure {
            Some(failure) => Err(PublishFailed { failure }),
            None => Ok(()),
        }
    }
}
