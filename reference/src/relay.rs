use std::collections::HashSet;

use crate::broker::{Broker, PublishFailed};
use crate::message::MessageId;
use crate::table::{DeadLetter, Fetch, OutboxTable, Partition};

/// What becomes of a dead letter's order: the choice between liveness and
/// order that every capped relay makes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OnExhausted {
    /// The order goes on with its next row on the next run: the consumer
    /// may then see `OrderPaid` without `OrderPlaced`.
    #[default]
    Release,
    /// No row of the order is fetched until a person unparks it, so none
    /// overtakes the dead letter.
    Park,
}

/// The attempt limit: without it, a message that always fails blocks its
/// order forever.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttemptCap {
    /// Failed publish calls after which a row becomes a dead letter, at
    /// least 1.
    pub max_attempts: u64,
    /// What becomes of the row's order then.
    pub on_exhausted: OnExhausted,
}

/// What a relay is told beyond its table, broker and batch size. The
/// default is the relay built without options: the whole table, row by
/// row, no cap.
#[derive(Default)]
pub struct RelayOptions<'a> {
    /// The orders this relay publishes, when several share the table.
    pub partition: Partition,
    /// Rows, or only the oldest row of each order.
    pub fetch: Fetch,
    /// `None`: a failing row is retried on every run, forever.
    pub cap: Option<AttemptCap>,
    /// Told each dead letter as the relay makes it, so that a person hears
    /// of it: the relay raises the alert, the caller decides where it goes.
    /// Borrowed, so the relay holds nothing the caller must wait to drop.
    pub alert: Option<&'a mut dyn FnMut(&DeadLetter)>,
}

/// Moves unsent rows from the outbox table to the broker, one pass at a time.
///
/// It keeps nothing between passes (all state is in the table), so a new
/// relay can be built at any pass boundary and carries on where the last one
/// stopped.
pub struct OutboxRelay<'a, B: Broker> {
    table: &'a mut OutboxTable,
    broker: &'a mut B,
    batch_size: usize,
    options: RelayOptions<'a>,
}

impl<'a, B: Broker> OutboxRelay<'a, B> {
    /// A relay taking at most `batch_size` rows per pass.
    pub fn new(table: &'a mut OutboxTable, broker: &'a mut B, batch_size: usize) -> Self {
        Self::with_options(table, broker, batch_size, RelayOptions::default())
    }

    /// A relay as `new` builds it, told `options` as well: one of several,
    /// a fetch by heads, an attempt cap and its alert.
    pub fn with_options(
        table: &'a mut OutboxTable,
        broker: &'a mut B,
        batch_size: usize,
        options: RelayOptions<'a>,
    ) -> Self {
        Self {
            table,
            broker,
            batch_size,
            options,
        }
    }

    /// One pass over the oldest unsent rows, returning the ids sent, in order.
    ///
    /// A failed publish leaves its row unsent (the next pass retries it) and
    /// blocks its aggregate for the rest of the pass, so a later event of the
    /// same order cannot overtake it. The table counts the failure; when the
    /// count reaches the cap, the row becomes a dead letter, its order is
    /// parked if the cap says so, and the alert is raised.
    pub fn run_once(&mut self) -> Vec<MessageId> {
        let RelayOptions {
            partition,
            fetch,
            cap,
            ..
        } = self.options;
        let batch = self.table.unsent(self.batch_size, partition, fetch);
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
                    let attempts = self.table.mark_failed(message.id);
                    if let Some(cap) = cap.filter(|cap| attempts >= cap.max_attempts) {
                        let letter = self.table.dead_letter(message.id);
                        if cap.on_exhausted == OnExhausted::Park {
                            self.table.park(&message.aggregate);
                        }
                        if let Some(alert) = self.options.alert.as_mut() {
                            alert(&letter);
                        }
                    }
                }
            }
        }
        sent
    }
}
