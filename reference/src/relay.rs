use std::collections::HashSet;

use crate::broker::{Broker, PublishFailed};
use crate::message::MessageId;
use crate::table::OutboxTable;

/// Moves unsent rows from the outbox table to the broker, one pass at a time.
///
/// It only borrows the table and the broker: all state lives in the table,
/// so a relay can be dropped and a new one built at any pass boundary (a
/// restart) and it carries on where the last one stopped.
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

    /// One pass over the oldest unsent rows; returns the ids sent, in order.
    ///
    /// A failed publish leaves its row unsent (the next pass retries it, as
    /// the oldest unsent row) and blocks its aggregate for the rest of this
    /// pass, so that a later event of the same order cannot overtake it.
    pub fn run_once(&mut self) -> Vec<MessageId> {
        let batch = self.table.unsent(self.batch_size);
        let mut blocked: HashSet<&str> = HashSet::new();
        let mut sent = Vec::new();
        for message in &batch {
            if blocked.contains(&*message.aggregate) {
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
