use std::collections::HashSet;

use crate::message::{Message, MessageId};

/// The delivery service: turns at-least-once delivery into exactly-once
/// effect by remembering which message ids it has processed.
///
/// It cannot tell a repeat by content (two identical "paid" events can both
/// be honest); only the outbox-assigned id tells.
#[derive(Debug, Default)]
pub struct IdempotentConsumer {
    processed: HashSet<MessageId>,
    journal: Vec<String>,
    duplicates: u64,
}

impl IdempotentConsumer {
    /// A consumer that has processed nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// Does the work once per message id; a redelivery is only counted.
    pub fn handle(&mut self, message: &Message) {
        if !self.processed.insert(message.id) {
            self.duplicates += 1;
            return;
        }
        let Message {
            aggregate,
            event_type,
            ..
        } = message;
        self.journal.push(format!("{aggregate} {event_type}"));
    }

    /// The work done, in order: `"<aggregate> <type>"` per message.
    pub fn journal(&self) -> &[String] {
        &self.journal
    }

    /// How many redeliveries were dropped.
    pub fn duplicates(&self) -> u64 {
        self.duplicates
    }
}
