use std::collections::BTreeMap;
use std::fmt;

use crate::message::{Message, MessageId};

/// The outbox table: rows written by the business transaction, waiting for
/// the relay.
///
/// Unsent rows live in a map ordered by id. Ids increase in insertion order,
/// so key order is insertion order, `unsent(limit)` walks only the rows it
/// returns (O(log n + limit), however many rows were sent before) and
/// `mark_sent` is O(log n). An insertion-ordered hash would keep a hole for
/// every sent row and make draining a large backlog quadratic.
#[derive(Debug, Default)]
pub struct OutboxTable {
    unsent: BTreeMap<MessageId, Message>,
    last_id: Option<MessageId>,
}

/// `add` was given an id not greater than the last one: the table's order
/// would no longer be insertion order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfOrder {
    /// The rejected id.
    pub id: MessageId,
    /// The last id the table accepted.
    pub last_id: MessageId,
}

impl fmt::Display for OutOfOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "message id {} is not greater than the last id {}",
            self.id, self.last_id
        )
    }
}

impl std::error::Error for OutOfOrder {}

impl OutboxTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a row. The outbox assigns increasing ids, so an id that does
    /// not increase is a bug in the writer and is refused.
    pub fn add(&mut self, message: Message) -> Result<(), OutOfOrder> {
        if let Some(last_id) = self.last_id.filter(|&last| message.id <= last) {
            return Err(OutOfOrder {
                id: message.id,
                last_id,
            });
        }
        self.last_id = Some(message.id);
        self.unsent.insert(message.id, message);
        Ok(())
    }

    /// The oldest unsent rows in insertion order, at most `limit`.
    ///
    /// A copy, because the relay marks rows sent while it walks the batch.
    pub fn unsent(&self, limit: usize) -> Vec<Message> {
        self.unsent.values().take(limit).cloned().collect()
    }

    /// Takes the row out of later `unsent` selections. Marking an id that is
    /// not unsent (already sent, or never added) changes nothing.
    pub fn mark_sent(&mut self, id: MessageId) {
        self.unsent.remove(&id);
    }

    /// Whether the relay still has work: the demo's loop condition.
    pub fn has_unsent(&self) -> bool {
        !self.unsent.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsent_is_the_oldest_rows_in_insertion_order() {
        let mut table = OutboxTable::new();
        for id in [3, 7, 9] {
            table.add(Message::new(id, "order-1", "E")).unwrap();
        }
        table.mark_sent(3);
        let ids: Vec<_> = table.unsent(5).iter().map(|m| m.id).collect();
        assert_eq!(ids, [7, 9]);
        assert_eq!(table.unsent(1).len(), 1);
        assert!(table.has_unsent());
    }

    #[test]
    fn add_refuses_an_id_that_does_not_increase() {
        let mut table = OutboxTable::new();
        table.add(Message::new(5, "order-1", "E")).unwrap();
        let err = table.add(Message::new(5, "order-2", "E")).unwrap_err();
        assert_eq!(err, OutOfOrder { id: 5, last_id: 5 });
        assert_eq!(
            err.to_string(),
            "message id 5 is not greater than the last id 5"
        );
    }
}
