//! The demo: the relay as a background process, narrated.
//!
//! Its composition root reads the batch size and the pass limit from a
//! config file, builds the table, the broker, the delivery service's
//! consumer and the relay, and calls `run_once` while the table has unsent
//! rows, at most `max_passes` times. The call path: process loop -> relay ->
//! outbox -> broker -> consumer.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use outbox::{
    Broker, Failure, Fetch, FlakyBroker, IdempotentConsumer, Message, MessageId, OutboxRelay,
    OutboxTable, Partition, PublishFailed,
};
use serde_json::Value;

/// The process's settings, read from its config file.
#[derive(Debug, PartialEq, Eq)]
pub struct Config {
    /// Rows per pass, at least 1.
    pub batch_size: u64,
    /// The loop stops after this many passes even if rows remain; at least 1.
    pub max_passes: u64,
}

/// Reads the config file, or says in one line what is wrong with it, naming
/// the key at fault.
pub fn load_config(path: &Path) -> Result<Config, String> {
    let file = path.display();
    let bytes = std::fs::read(path).map_err(|_| format!("{file}: cannot read the file"))?;
    let value: Value =
        serde_json::from_slice(&bytes).map_err(|_| format!("{file}: not valid JSON"))?;
    let fields = value
        .as_object()
        .ok_or_else(|| format!("{file}: not a JSON object"))?;
    // The first by name: not every port's parser keeps the file's order.
    let unknown = fields
        .keys()
        .filter(|key| !matches!(key.as_str(), "batch_size" | "max_passes"))
        .min();
    if let Some(key) = unknown {
        return Err(format!("{file}: unknown key {key:?}"));
    }
    let integer = |key: &str| match fields.get(key) {
        None => Err(format!("{file}: {key:?} is missing")),
        // as_u64 is None for true, "3", 3.5, 3.0 and -1 alike.
        Some(value) => value
            .as_u64()
            .filter(|&n| n >= 1)
            .ok_or_else(|| format!("{file}: {key:?} must be an integer >= 1")),
    };
    Ok(Config {
        batch_size: integer("batch_size")?,
        max_passes: integer("max_passes")?,
    })
}

/// Wraps the real broker and tells how each attempt went, so the transcript
/// shows the pass's story in batch order. It watches the delivery service
/// too: when its count of dropped repeats rises during a publish, that
/// publish was a redelivery the service recognised.
struct NarratingBroker {
    inner: FlakyBroker,
    attempts: u64,
    story: HashMap<MessageId, String>,
}

impl Broker for NarratingBroker {
    fn publish(&mut self, message: &Message) -> Result<(), PublishFailed> {
        self.attempts += 1;
        let dropped = self.inner.consumer().duplicates();
        let result = self.inner.publish(message);
        let mut line = format!("attempt {}: {} -> ", self.attempts, describe(message));
        match &result {
            Ok(()) => line.push_str("published"),
            Err(e) => _ = write!(line, "{e}; {} blocked for this pass", message.aggregate),
        }
        if self.inner.consumer().duplicates() > dropped {
            let id = message.id;
            _ = write!(
                line,
                "\n    delivery service: #{id} already processed, repeat dropped"
            );
        }
        self.story.insert(message.id, line);
        result
    }
}

fn describe(message: &Message) -> String {
    let Message {
        id,
        aggregate,
        event_type,
    } = message;
    format!("#{id} {aggregate} {event_type}")
}

fn id_list(ids: impl IntoIterator<Item = MessageId>) -> String {
    let ids: Vec<String> = ids.into_iter().map(|id| id.to_string()).collect();
    format!("[{}]", ids.join(", "))
}

/// Runs the scenario of SPEC.md's demo section and returns the transcript.
pub fn run(config: &Config) -> String {
    let mut table = OutboxTable::new();
    for (id, aggregate, event_type) in [
        (1, "order-1", "OrderPlaced"),
        (2, "order-2", "OrderPlaced"),
        (3, "order-1", "OrderPaid"),
        (4, "order-2", "OrderPaid"),
    ] {
        table
            .add(Message::new(id, aggregate, event_type))
            .expect("the scenario's ids increase");
    }
    // The broker owns the delivery service's consumer, across the broker.
    let consumer = IdempotentConsumer::new();
    let failures = HashMap::from([(1, Failure::LostAck)]);
    let mut broker = NarratingBroker {
        inner: FlakyBroker::new(consumer, failures),
        attempts: 0,
        story: HashMap::new(),
    };
    let batch_size = usize::try_from(config.batch_size).unwrap_or(usize::MAX);

    let mut out = String::new();
    let w = &mut out;
    let Config {
        batch_size: size,
        max_passes,
    } = config;
    _ = writeln!(
        w,
        "Outbox relay demo: batch size {size}, at most {max_passes} passes."
    );
    let everything = table.unsent(usize::MAX, Partition::default(), Fetch::Rows);
    let rows: Vec<String> = everything.iter().map(describe).collect();
    _ = writeln!(w, "Outbox: {}.", rows.join(", "));
    _ = writeln!(w, "The broker will lose the ack of attempt 1.");

    let mut passes = 0;
    while table.has_unsent() && passes < config.max_passes {
        passes += 1;
        let batch = table.unsent(batch_size, Partition::default(), Fetch::Rows);
        _ = writeln!(
            w,
            "\nPass {passes}: batch {}",
            id_list(batch.iter().map(|m| m.id))
        );
        // A new relay each pass: it borrows the table, which the loop reads.
        let sent = OutboxRelay::new(&mut table, &mut broker, batch_size).run_once();
        for message in &batch {
            let line = broker.story.remove(&message.id).unwrap_or_else(|| {
                format!(
                    "skipped {}: {} is blocked",
                    describe(message),
                    message.aggregate
                )
            });
            _ = writeln!(w, "  {line}");
        }
        _ = writeln!(w, "  sent {}", id_list(sent));
    }

    if table.has_unsent() {
        _ = writeln!(w, "\nStopped at the pass limit with messages still unsent.");
    } else {
        _ = writeln!(w, "\nOutbox drained after {passes} passes.");
    }
    let consumer = broker.inner.consumer();
    _ = writeln!(w, "Consumer journal:");
    for entry in consumer.journal() {
        _ = writeln!(w, "  {entry}");
    }
    _ = writeln!(w, "Duplicates dropped: {}", consumer.duplicates());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `load_config` says of `content`, without the file name.
    fn refusal(content: &str) -> String {
        let path = std::env::temp_dir().join(format!("outbox-demo-{}.json", std::process::id()));
        std::fs::write(&path, content).expect("the temporary directory is writable");
        let result = load_config(&path);
        std::fs::remove_file(&path).expect("the file was just written");
        let error = result.expect_err(content);
        let prefix = format!("{}: ", path.display());
        error
            .strip_prefix(&prefix)
            .expect("names the file")
            .to_owned()
    }

    /// Every refusal of SPEC's demo contract; the demo_config trial starts
    /// the demo on three of them only.
    #[test]
    fn one_line_per_problem_naming_the_key() {
        for (content, expected) in [
            ("batch_size = 3", "not valid JSON"),
            ("[3, 10]", "not a JSON object"),
            (r#"{"batch_size": 3}"#, r#""max_passes" is missing"#),
            (
                r#"{"batch_size": 3, "max_passes": true}"#,
                r#""max_passes" must be an integer >= 1"#,
            ),
            (
                r#"{"batch_size": 3.5, "max_passes": 10}"#,
                r#""batch_size" must be an integer >= 1"#,
            ),
            (
                r#"{"batch_size": 0, "max_passes": 10}"#,
                r#""batch_size" must be an integer >= 1"#,
            ),
            (
                r#"{"batch_size": "3", "max_passes": 10}"#,
                r#""batch_size" must be an integer >= 1"#,
            ),
            (r#"{"z": 1, "batch_size": 3, "a": 2}"#, r#"unknown key "a""#),
        ] {
            assert_eq!(refusal(content), expected, "for {content}");
        }
        let missing = load_config(Path::new("no/such/demo.json")).expect_err("no file");
        assert_eq!(missing, "no/such/demo.json: cannot read the file");
    }

    #[test]
    fn the_transcript_follows_the_run() {
        let short = run(&Config {
            batch_size: 1,
            max_passes: 2,
        });
        assert!(
            short.contains("\nPass 2: batch [1]\n  attempt 2: "),
            "{short}"
        );
        assert!(
            short.ends_with(
                "Stopped at the pass limit with messages still unsent.\n\
            Consumer journal:\n  order-1 OrderPlaced\nDuplicates dropped: 1\n"
            ),
            "{short}"
        );
    }
}
