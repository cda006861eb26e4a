/// The id the outbox assigns to a row: increasing in insertion order, and the
/// only thing that tells a redelivery from an honest second event.
pub type MessageId = u64;

/// One outbox row: an event of one aggregate (an order).
///
/// The teaching scope drops payload and headers; id, aggregate and event type
/// are all the relay and the consumer need to show ordering and dedupe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Assigned by the outbox, increasing in insertion order.
    pub id: MessageId,
    /// The entity whose events must stay in order, e.g. `order-1`.
    pub aggregate: String,
    /// What happened, e.g. `OrderPlaced`.
    pub event_type: String,
}

impl Message {
    /// Builds a message; the outbox table checks that ids increase.
    pub fn new(id: MessageId, aggregate: impl Into<String>, event_type: impl Into<String>) -> Self {
        Self {
            id,
            aggregate: aggregate.into(),
            event_type: event_type.into(),
        }
    }
}
