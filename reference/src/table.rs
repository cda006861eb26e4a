use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;

use crate::message::{Message, MessageId};

/// The orders one relay of several publishes: those whose hash, modulo the
/// number of relays, is its index, so two relays never take rows of one
/// order and each order keeps its order.
///
/// The default, 0 of 1, is the whole table: one relay owns every order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partition {
    /// This relay's index, below `count`.
    pub index: u32,
    /// How many relays share the table, at least 1.
    pub count: u32,
}

impl Partition {
    /// FNV-1a, 32 bits, over the UTF-8 bytes of `text`: the same number in
    /// every language, which a language's built-in string hash is not.
    pub fn fnv1a32(text: &str) -> u32 {
        text.bytes().fold(2_166_136_261, |hash, byte| {
            (hash ^ u32::from(byte)).wrapping_mul(16_777_619)
        })
    }

    /// Whether this relay publishes the order `aggregate`: its hash, read as
    /// an unsigned number, modulo `count` is `index`.
    pub fn owns(&self, aggregate: &str) -> bool {
        Self::fnv1a32(aggregate) % self.count == self.index
    }
}

impl Default for Partition {
    fn default() -> Self {
        Self { index: 0, count: 1 }
    }
}

/// Which unsent rows a fetch takes, before it takes at most `limit` of them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Fetch {
    /// Every row: a batch full of one blocked order sends nothing for the
    /// others.
    #[default]
    Rows,
    /// The oldest row of each order only: a blocked order costs one slot,
    /// and an order with k rows needs k runs.
    Heads,
}

/// A row the relay gave up on: it left the unsent rows after `attempts`
/// failed publish calls, for a person to look at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeadLetter {
    /// The row as it was written.
    pub message: Message,
    /// Its failed publish calls, the last included.
    pub attempts: u64,
}

/// The rows waiting for the relay: the unsent messages in insertion order.
/// A dictionary keyed by id: ids increase in insertion order, so key order
/// is insertion order.
#[derive(Debug, Default)]
pub struct OutboxTable {
    unsent: BTreeMap<MessageId, Message>,
    /// Kept apart from the rows: the last row may be sent already.
    last_id: Option<MessageId>,
    /// Failed publish calls per row that ever failed; kept after the row
    /// is sent, as a count never resets.
    attempts: HashMap<MessageId, u64>,
    dead_letters: Vec<DeadLetter>,
    /// Orders whose rows no fetch takes until they are unparked. Ordered:
    /// the fetch looks up every row's order, and an empty `BTreeSet` answers
    /// without hashing (the usual case, nothing parked).
    parked: BTreeSet<String>,
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
    ///
    /// Only rows of the orders the `partition` owns that are not parked, and
    /// with [`Fetch::Heads`] only the oldest such row of each order: these
    /// filters come before the limit, so a row they leave out takes no slot.
    pub fn unsent(&self, limit: usize, partition: Partition, fetch: Fetch) -> Vec<Message> {
        let mut orders = HashSet::new();
        self.unsent
            .values()
            .filter(|m| partition.owns(&m.aggregate) && !self.parked.contains(&m.aggregate))
            .filter(|m| fetch == Fetch::Rows || orders.insert(m.aggregate.as_str()))
            .take(limit)
            .cloned()
            .collect()
    }

    /// Takes the row out of later `unsent` selections.
    pub fn mark_sent(&mut self, id: MessageId) {
        self.unsent.remove(&id);
    }

    /// Counts one failed publish call of the row and returns its count so
    /// far: the table keeps it, since a relay keeps nothing between runs.
    ///
    /// A lost ack counts, as the relay cannot tell it from a broker that is
    /// down; a count never resets.
    pub fn mark_failed(&mut self, id: MessageId) -> u64 {
        let attempts = self.attempts.entry(id).or_insert(0);
        *attempts += 1;
        *attempts
    }

    /// Moves the row from the unsent rows to the dead letters, with its
    /// attempts, and returns it: no fetch takes it again.
    ///
    /// # Panics
    /// When `id` is not an unsent row: the relay dead-letters only a row it
    /// has just fetched.
    pub fn dead_letter(&mut self, id: MessageId) -> DeadLetter {
        let message = self.unsent.remove(&id).expect("a dead letter is unsent");
        let attempts = self.attempts.remove(&id).unwrap_or(0);
        let letter = DeadLetter { message, attempts };
        self.dead_letters.push(letter.clone());
        letter
    }

    /// Holds every row of the order back from `unsent` (they take no slot)
    /// until [`unpark`](Self::unpark): a dead letter then cannot be
    /// overtaken by its order's later events.
    pub fn park(&mut self, aggregate: &str) {
        self.parked.insert(aggregate.to_owned());
    }

    /// Lets `unsent` take the order's rows again, from its oldest; an order
    /// that is not parked is left as it is.
    pub fn unpark(&mut self, aggregate: &str) {
        self.parked.remove(aggregate);
    }

    /// The rows given up on, in the order they were: what a person reads.
    pub fn dead_letters(&self) -> &[DeadLetter] {
        &self.dead_letters
    }

    /// Whether the relay still has work: the demo's loop condition.
    ///
    /// A parked order's rows count (they are still unsent); dead letters do
    /// not.
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
