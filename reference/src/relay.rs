use std::collections::HashSet;

use crate::broker::{Broker, PublishFailed};
use crate::message::MessageId;
use crate::table::OutboxTable;

/// Moves unsent rows from the outbox table to the broker, one pass at a time.
///
/// It keeps nothing between passes (all state is in the table), so a new
/// relay can be built at any pass boundary and carries on where the last one
/// stopped.
pub struct OutboxRelay<'a, B: Broker> {
    table: &'a mut OutboxTable,
    broker: &'a mut B,
    batch_size: usize,
}

impl<'a, B: Broker> OutboxRelay<'a, B> {
    /// A relay taking at most `batch_size` rows per pass.
    pub fn new(table: &'a mut OutboxTable, broker: &'a mut B, batch_size: usize) -> Self {
        Self {
            table,
            broker,
            batch_size,
        }
    }

    /// One pass over the oldest unsent rows, returning the ids sent, in order.
    ///
    /// A failed publish leaves its row unsent (the next pass retries it) and
    /// blocks its aggregate for the rest of the pass, so a later event of the
    /// same order cannot overtake it.
    pub fn run_once(&mut self) -> Vec<MessageId> {
        let batch = self.table.unsent(self.batch_size);
        let mut blocked: HashSet<&str> = HashSet::new();
        let mut sent = Vec::new();
        for message in &batch {
            if blocked.contains(message.aggregate.as_str()) {
                continue;
            }
            match self.broker.publish(message) {
                Ok(()) => {
                    self.table.mark_sent(message.id);
                    sent.push(message.id);
                }
                Err(PublishFailed { .. }) => {
                    blocked.insert(&message.aggregate);
                }
            }
        }
        sent
    }
}
