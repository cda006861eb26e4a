use std::collections::BTreeMap;
use std::fmt;

use crate::message::{Message, MessageId};

/// The rows waiting for the relay: the unsent messages in insertion order.
/// A dictionary keyed by id: ids increase in insertion order, so key order
/// is insertion order.
#[derive(Debug, Default)]
pub struct OutboxTable {
    unsent: BTreeMap<MessageId, Message>,
    /// Kept apart from the rows: the last row may be sent already.
    last_id: Option<MessageId>,
}

impl OutboxTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a row; refuses an id that does not increase (a writer's bug)
    /// with [`OutOfOrder`].
    pub fn add(&mut self, message: Message) -> Result<(), OutOfOrder> {
        if let Some(last_id) = self.last_id.filter(|&last| message.id <= last) {
            let id = message.id;
            return Err(OutOfOrder { id, last_id });
        }
        self.last_id = Some(message.id);
        self.unsent.insert(message.id, message);
        Ok(())
    }

    /// The oldest unsent rows in insertion order, at most `limit`: a copy,
    /// because the relay marks rows sent while it walks the batch.
    pub fn unsent(&self, limit: usize) -> Vec<Message> {
        self.unsent.values().take(limit).cloned().collect()
    }

    /// Takes the row out of later `unsent` selections.
    pub fn mark_sent(&mut self, id: MessageId) {
        self.unsent.remove(&id);
    }

    /// Whether the relay still has work: the demo's loop condition.
    pub fn has_unsent(&self) -> bool {
        !self.unsent.is_empty()
    }
}

/// `add` was given an id not greater than the last one: the table's order
/// would no longer be insertion order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfOrder {
    /// The refused id.
    pub id: MessageId,
    /// The last id the table accepted.
    pub last_id: MessageId,
}

impl fmt::Display for OutOfOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Self { id, last_id } = self;
        write!(
            f,
            "message id {id} is not greater than the last id {last_id}"
        )
    }
}

impl std::error::Error for OutOfOrder {}
