use std::collections::{HashMap, VecDeque};

use crate::message::{Message, MessageId};

/// The delivery service: turns at-least-once delivery into exactly-once
/// effect by remembering which message ids it has processed.
///
/// It cannot tell a repeat by content (two identical "paid" events can both
/// be honest); only the outbox-assigned id tells.
#[derive(Debug, Default)]
pub struct IdempotentConsumer {
    /// Each processed id and the pass it was applied in.
    processed: HashMap<MessageId, u64>,
    /// The processed ids oldest first, kept only with a retention: a
    /// `HashMap` has no order, and `tick` forgets from the oldest.
    applied: VecDeque<MessageId>,
    /// In passes; `None` keeps every id forever.
    retention: Option<u64>,
    /// The pass number: how many times `tick` was called.
    clock: u64,
    journal: Vec<String>,
    duplicates: u64,
}

impl IdempotentConsumer {
    /// A consumer that has processed nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// A consumer that forgets each id `retention` passes after the pass it
    /// applied it in (`None`: never), as a real inbox's cleanup does.
    pub fn with_retention(retention: Option<u64>) -> Self {
        Self {
            retention,
            ..Self::default()
        }
    }

    /// Advances the clock by one pass and forgets every id whose window
    /// ended: one applied at pass t is forgotten at pass t + retention.
    ///
    /// A repeat that comes later is applied again: the retention must
    /// outlast the longest redelivery.
    pub fn tick(&mut self) {
        self.clock += 1;
        let Some(retention) = self.retention else {
            return;
        };
        while let Some(&id) = self.applied.front() {
            if self.clock - self.processed[&id] < retention {
                break;
            }
            self.applied.pop_front();
            self.processed.remove(&id);
        }
    }

    /// Does the work once per message id; a redelivery is only counted.
    ///
    /// With a retention, once per id within its window: the id is
    /// remembered from the pass it is applied in, and a dropped repeat does
    /// not extend the window.
    pub fn handle(&mut self, message: &Message) {
        if self.processed.contains_key(&message.id) {
            self.duplicates += 1;
            return;
        }
        self.processed.insert(message.id, self.clock);
        if self.retention.is_some() {
            self.applied.push_back(message.id);
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
