//! Reference implementation of the transactional Outbox relay practice.
//!
//! An order service writes events into an outbox table in the same
//! transaction as its business data; a background relay moves them to a
//! broker that sometimes fails. Two rules make that safe:
//!
//! - the relay blocks an order (aggregate) for the rest of a pass as soon as
//!   one of its messages fails, so a later event never overtakes an earlier
//!   one ([`OutboxRelay`]);
//! - delivery is at-least-once (an ack can be lost after delivery), so the
//!   consumer drops repeats by the outbox-assigned id
//!   ([`IdempotentConsumer`]).
//!
//! Where the practice stops, the parts go on, each step off by default: a
//! message that always fails ends as a dead letter after an attempt cap
//! ([`AttemptCap`]), and the consumer may forget old ids (its retention);
//! several relays split the orders by a hash ([`Partition`]), and a fetch
//! may take only each order's oldest row ([`Fetch::Heads`]).
//!
//! The four parts are the same, with the same names, in every port of the
//! practice (Go, Python, PHP, TypeScript, Java); this crate is the one the
//! others are checked against.

mod broker;
mod consumer;
mod message;
mod relay;
mod table;

#[cfg(test)]
mod tests;

pub use broker::{Broker, Failure, FlakyBroker, PublishFailed};
pub use consumer::IdempotentConsumer;
pub use message::{Message, MessageId};
pub use relay::{AttemptCap, OnExhausted, OutboxRelay, RelayOptions};
pub use table::{DeadLetter, Fetch, OutOfOrder, OutboxTable, Partition};
