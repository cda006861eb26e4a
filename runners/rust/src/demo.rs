//! The demo: the relay as a background process, narrated.
//!
//! Its composition root reads the batch size, the pass limit and the
//! attempt limit from a config file, builds the table, the broker, the
//! delivery service's consumer and the relay, and calls `run_once` while
//! the table has unsent rows, at most `max_passes` times; a message over
//! the attempt limit becomes a dead letter, and the relay's alert prints
//! it. The call path: process loop -> relay -> outbox -> broker -> consumer.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use outbox::{
    AttemptCap, Broker, DeadLetter, Failure, Fetch, FlakyBroker, IdempotentConsumer, Message,
    MessageId, OnExhausted, OutboxRelay, OutboxTable, Partition, PublishFailed, RelayOptions,
};
use serde_json::Value;

/// The process's settings, read from its config file.
#[derive(Debug, PartialEq, Eq)]
pub struct Config {
    /// Rows per pass, at least 1.
    pub batch_size: u64,
    /// The loop stops after this many passes even if rows remain; at least 1.
    pub max_passes: u64,
    /// Failed publish calls after which a message becomes a dead letter, at
    /// least 1; `None` (the key left out): no limit, a message that always
    /// fails blocks its order forever.
    pub max_attempts: Option<u64>,
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
        .filter(|key| !matches!(key.as_str(), "batch_size" | "max_passes" | "max_attempts"))
        .min();
    if let Some(key) = unknown {
        return Err(format!("{file}: unknown key {key:?}"));
    }
    // as_u64 is None for true, "3", 3.5, 3.0 and -1 alike.
    let optional = |key: &str| match fields.get(key) {
        None => Ok(None),
        Some(value) => (value.as_u64().filter(|&n| n >= 1).map(Some))
            .ok_or_else(|| format!("{file}: {key:?} must be an integer >= 1")),
    };
    let integer = |key: &str| optional(key)?.ok_or_else(|| format!("{file}: {key:?} is missing"));
    Ok(Config {
        batch_size: integer("batch_size")?,
        max_passes: integer("max_passes")?,
        max_attempts: optional("max_attempts")?,
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

/// "1 attempt", "3 attempts".
fn attempts_text(attempts: u64) -> String {
    let s = if attempts == 1 { "" } else { "s" };
    format!("{attempts} attempt{s}")
}

fn id_list(ids: impl IntoIterator<Item = MessageId>) -> String {
    let ids: Vec<String> = ids.into_iter().map(|id| id.to_string()).collect();
    format!("[{}]", ids.join(", "))
}

/// What happened to each row of a pass's batch, in batch order (the
/// broker's story of its attempt, or why it was skipped, then the alert if
/// the relay dead-lettered it), and what the pass sent.
fn tell_pass(
    w: &mut String,
    batch: &[Message],
    story: &mut HashMap<MessageId, String>,
    alerts: &HashMap<MessageId, String>,
    sent: &[MessageId],
) {
    for message in batch {
        let line = story.remove(&message.id).unwrap_or_else(|| {
            format!(
                "skipped {}: {} is blocked",
                describe(message),
                message.aggregate
            )
        });
        _ = writeln!(w, "  {line}");
        if let Some(alert) = alerts.get(&message.id) {
            _ = writeln!(w, "  alert: {alert}");
        }
    }
    _ = writeln!(w, "  sent {}", id_list(sent.iter().copied()));
}

/// The transcript's first lines: the settings, the rows and the script.
fn introduce(w: &mut String, config: &Config, table: &OutboxTable) {
    let Config {
        batch_size: size,
        max_passes,
        max_attempts,
    } = config;
    let limit = max_attempts.map_or("no attempt limit".into(), |n| {
        format!("at most {n} attempts per message")
    });
    _ = writeln!(
        w,
        "Outbox relay demo: batch size {size}, at most {max_passes} passes, {limit}."
    );
    let everything = table.unsent(usize::MAX, Partition::default(), Fetch::Rows);
    let rows: Vec<String> = everything.iter().map(describe).collect();
    _ = writeln!(w, "Outbox: {}.", rows.join(", "));
    _ = writeln!(
        w,
        "The broker will lose the ack of attempt 1 and reject attempts 6, 7 and 8."
    );
}

/// The broker's script: it loses the ack of attempt 1 (message 1, which
/// it has delivered) and rejects attempts 6, 7 and 8, which the shared
/// config's run spends on message 5: a message that always fails, until
/// the attempt limit of 3 gives up on it.
const FAILURES: [(u64, Failure); 4] = [
    (1, Failure::LostAck),
    (6, Failure::Down),
    (7, Failure::Down),
    (8, Failure::Down),
];

/// Runs the scenario of SPEC.md's demo section and returns the transcript.
pub fn run(config: &Config) -> String {
    let mut table = OutboxTable::new();
    for (id, aggregate, event_type) in [
        (1, "order-1", "OrderPlaced"),
        (2, "order-2", "OrderPlaced"),
        (3, "order-1", "OrderPaid"),
        (4, "order-2", "OrderPaid"),
        (5, "order-3", "OrderPlaced"),
    ] {
        table
            .add(Message::new(id, aggregate, event_type))
            .expect("the scenario's ids increase");
    }
    // The broker owns the delivery service's consumer, across the broker.
    let consumer = IdempotentConsumer::new();
    let mut broker = NarratingBroker {
        inner: FlakyBroker::new(consumer, HashMap::from(FAILURES)),
        attempts: 0,
        story: HashMap::new(),
    };
    let batch_size = usize::try_from(config.batch_size).unwrap_or(usize::MAX);
    let cap = config.max_attempts.map(|max_attempts| AttemptCap {
        max_attempts,
        on_exhausted: OnExhausted::Release,
    });

    let mut out = String::new();
    let w = &mut out;
    introduce(w, config, &table);

    let mut passes = 0;
    while table.has_unsent() && passes < config.max_passes {
        passes += 1;
        let batch = table.unsent(batch_size, Partition::default(), Fetch::Rows);
        _ = writeln!(
            w,
            "\nPass {passes}: batch {}",
            id_list(batch.iter().map(|m| m.id))
        );
        // The relay raises the alert; the process says where it goes: here,
        // after the dead letter's attempt in the transcript.
        let mut alerts = HashMap::new();
        let mut alert = |letter: &DeadLetter| {
            let DeadLetter { message, attempts } = letter;
            let text = format!(
                "dead letter {} after {}",
                describe(message),
                attempts_text(*attempts)
            );
            alerts.insert(message.id, text);
        };
        let options = RelayOptions {
            cap,
            alert: Some(&mut alert),
            ..RelayOptions::default()
        };
        // A new relay each pass: it borrows the table, which the loop reads.
        let mut relay = OutboxRelay::with_options(&mut table, &mut broker, batch_size, options);
        let sent = relay.run_once();
        tell_pass(w, &batch, &mut broker.story, &alerts, &sent);
    }

    if table.has_unsent() {
        _ = writeln!(w, "\nStopped at the pass limit with messages still unsent.");
    } else {
        _ = writeln!(w, "\nOutbox drained after {passes} passes.");
    }
    if !table.dead_letters().is_empty() {
        let letters: Vec<String> = (table.dead_letters().iter())
            .map(|l| format!("{} ({})", describe(&l.message), attempts_text(l.attempts)))
            .collect();
        let letters = letters.join(", ");
        _ = writeln!(w, "Dead letters, for a person to look at: {letters}.");
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
            (
                r#"{"batch_size": 3, "max_passes": 10, "max_attempts": true}"#,
                r#""max_attempts" must be an integer >= 1"#,
            ),
            (
                r#"{"batch_size": 3, "max_passes": 10, "max_attempts": 0}"#,
                r#""max_attempts" must be an integer >= 1"#,
            ),
            (
                r#"{"batch_size": 3, "max_passes": 10, "max_attempts": "3"}"#,
                r#""max_attempts" must be an integer >= 1"#,
            ),
            (
                r#"{"batch_size": 3, "max_passes": 10, "max_attempts": 2.5}"#,
                r#""max_attempts" must be an integer >= 1"#,
            ),
        ] {
            assert_eq!(refusal(content), expected, "for {content}");
        }
        let path = std::env::temp_dir().join(format!("outbox-demo-ok-{}.json", std::process::id()));
        for (content, max_attempts) in [
            (r#"{"batch_size": 3, "max_passes": 10}"#, None),
            (
                r#"{"batch_size": 3, "max_passes": 10, "max_attempts": 3}"#,
                Some(3),
            ),
        ] {
            std::fs::write(&path, content).expect("the temporary directory is writable");
            let config = load_config(&path).expect(content);
            assert_eq!(config.max_attempts, max_attempts, "for {content}");
        }
        std::fs::remove_file(&path).expect("the file was just written");
        let missing = load_config(Path::new("no/such/demo.json")).expect_err("no file");
        assert_eq!(missing, "no/such/demo.json: cannot read the file");
    }

    #[test]
    fn the_transcript_follows_the_run() {
        let short = run(&Config {
            batch_size: 1,
            max_passes: 2,
            max_attempts: None,
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

    #[test]
    fn the_attempt_limit_dead_letters_the_message_that_always_fails() {
        let config = |max_attempts| Config {
            batch_size: 3,
            max_passes: 10,
            max_attempts,
        };
        let capped = run(&config(Some(3)));
        let alert = "  attempt 8: #5 order-3 OrderPlaced -> publish failed: broker down; \
            order-3 blocked for this pass\n  alert: dead letter #5 order-3 OrderPlaced after 3 \
            attempts\n  sent []\n\nOutbox drained after 5 passes.\nDead letters, for a person \
            to look at: #5 order-3 OrderPlaced (3 attempts).\n";
        assert!(capped.contains(alert), "{capped}");
        assert_eq!(capped.matches("alert:").count(), 1, "{capped}");
        let uncapped = run(&config(None));
        assert!(!uncapped.contains("alert:"), "{uncapped}");
        assert!(
            uncapped.contains("attempt 9: #5 order-3 OrderPlaced -> published"),
            "{uncapped}"
        );
        let early = run(&config(Some(1)));
        assert!(
            early.contains("\n  alert: dead letter #1 order-1 OrderPlaced after 1 attempt\n"),
            "a lost ack is a failed attempt too: {early}"
        );
    }
}
