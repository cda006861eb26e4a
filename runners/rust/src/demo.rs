//! The demo: the relay as a background process, narrated.
//!
//! The composition root reads the batch size and the pass limit from the
//! shared config (`runners/demo.json`), builds the table, the broker, the
//! consumer and the relay, and loops `run_once` while the table has unsent
//! rows. Every port prints this transcript byte for byte.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use outbox::{
    Broker, Failure, FlakyBroker, IdempotentConsumer, Message, MessageId, OutboxRelay, OutboxTable,
    PublishFailed,
};
use serde::Deserialize;

/// The demo's settings, shared by every language's demo.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Rows per pass.
    pub batch_size: usize,
    /// The loop stops after this many passes even if rows remain.
    pub max_passes: u64,
}

impl Config {
    /// Reads and checks the config file.
    pub fn load(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        let config: Config =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        if config.batch_size == 0 {
            return Err(format!("{}: batch_size must be at least 1", path.display()));
        }
        Ok(config)
    }
}

/// Wraps the real broker and remembers how each attempt went, so the
/// transcript can tell the pass's story in batch order.
struct NarratingBroker {
    inner: FlakyBroker,
    attempts: u64,
    log: HashMap<MessageId, String>,
}

impl Broker for NarratingBroker {
    fn publish(&mut self, message: &Message) -> Result<(), PublishFailed> {
        self.attempts += 1;
        let result = self.inner.publish(message);
        let what = match &result {
            Ok(()) => "published".to_string(),
            Err(e) => format!("{e}; {} blocked for this pass", message.aggregate),
        };
        self.log.insert(
            message.id,
            format!("attempt {}: {} -> {what}", self.attempts, describe(message)),
        );
        result
    }
}

fn describe(message: &Message) -> String {
    format!(
        "#{} {} {}",
        message.id, message.aggregate, message.event_type
    )
}

fn id_list(ids: impl IntoIterator<Item = MessageId>) -> String {
    let ids: Vec<String> = ids.into_iter().map(|id| id.to_string()).collect();
    format!("[{}]", ids.join(", "))
}

/// Runs the scenario of SPEC.md and returns the transcript.
pub fn run(config: &Config) -> String {
    let mut table = OutboxTable::new();
    let scenario = [
        (1, "order-1", "OrderPlaced"),
        (2, "order-2", "OrderPlaced"),
        (3, "order-1", "OrderPaid"),
        (4, "order-2", "OrderPaid"),
    ];
    for (id, aggregate, event_type) in scenario {
        table
            .add(Message::new(id, aggregate, event_type))
            .expect("the scenario's ids increase");
    }
    let failures = HashMap::from([(1, Failure::LostAck)]);
    let mut broker = NarratingBroker {
        inner: FlakyBroker::new(IdempotentConsumer::new(), failures),
        attempts: 0,
        log: HashMap::new(),
    };

    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(
        w,
        "Outbox relay demo: batch size {}, at most {} passes.",
        config.batch_size, config.max_passes
    );
    let rows: Vec<String> = table.unsent(usize::MAX).iter().map(describe).collect();
    let _ = writeln!(w, "Outbox: {}.", rows.join(", "));
    let _ = writeln!(w, "The broker will lose the ack of attempt 1.");

    let mut passes = 0;
    while table.has_unsent() && passes < config.max_passes {
        passes += 1;
        let batch = table.unsent(config.batch_size);
        let _ = writeln!(
            w,
            "\nPass {passes}: batch {}",
            id_list(batch.iter().map(|m| m.id))
        );
        let sent = OutboxRelay::new(&mut table, &mut broker, config.batch_size).run_once();
        for message in &batch {
            match broker.log.remove(&message.id) {
                Some(line) => _ = writeln!(w, "  {line}"),
                None => {
                    _ = writeln!(
                        w,
                        "  skipped {}: {} is blocked",
                        describe(message),
                        message.aggregate
                    )
                }
            }
        }
        let _ = writeln!(w, "  sent {}", id_list(sent));
    }

    if table.has_unsent() {
        let _ = writeln!(w, "\nStopped at the pass limit with messages still unsent.");
    } else {
        let _ = writeln!(w, "\nOutbox drained after {passes} passes.");
    }
    let consumer = broker.inner.consumer();
    let _ = writeln!(w, "Consumer journal:");
    for entry in consumer.journal() {
        let _ = writeln!(w, "  {entry}");
    }
    let _ = writeln!(w, "Duplicates dropped: {}", consumer.duplicates());
    out
}
