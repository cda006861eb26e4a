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
use serde_json::{Map, Value};

/// The largest batch size and pass limit a demo accepts. Every port reads
/// JSON numbers as doubles or 64-bit integers; all of them hold this range
/// exactly, so every port draws the line at the same place.
pub const LIMIT: u64 = 1_000_000;

/// The demo's settings, shared by every language's demo.
#[derive(Debug, PartialEq, Eq)]
pub struct Config {
    /// Rows per pass, from 1 to [`LIMIT`].
    pub batch_size: usize,
    /// The loop stops after this many passes even if rows remain (0 to [`LIMIT`]).
    pub max_passes: u64,
}

impl Config {
    /// Reads and checks the config file.
    ///
    /// The error's first line is the same in every port's demo, so it is
    /// spelled out here rather than left to serde; a second line, when there
    /// is one, gives the language's own reason (the OS's, the parser's).
    pub fn load(path: &Path) -> Result<Self, String> {
        let file = path.display();
        let bytes =
            std::fs::read(path).map_err(|e| format!("{file}: cannot read the file\n  {e}"))?;
        let value: Value =
            serde_json::from_slice(&bytes).map_err(|e| format!("{file}: not valid JSON\n  {e}"))?;
        Self::from_json(&value).map_err(|e| format!("{file}: {e}"))
    }

    /// Checks a parsed config: unknown keys first, then each key in order.
    fn from_json(value: &Value) -> Result<Self, String> {
        let Value::Object(fields) = value else {
            return Err(format!(
                "want a JSON object with `batch_size` and `max_passes`, not {}",
                kind(value)
            ));
        };
        // Sorted, because not every port's parser keeps the file's order.
        let mut unknown: Vec<&String> = fields
            .keys()
            .filter(|key| !matches!(key.as_str(), "batch_size" | "max_passes"))
            .collect();
        if !unknown.is_empty() {
            unknown.sort();
            let names: Vec<String> = unknown
                .iter()
                .map(|key| Value::from(key.as_str()).to_string())
                .collect();
            let plural = if names.len() == 1 { "" } else { "s" };
            return Err(format!(
                "unknown key{plural} {}; the keys are `batch_size` and `max_passes`",
                names.join(", ")
            ));
        }
        let batch_size = integer(fields, "batch_size", 1)?;
        let max_passes = integer(fields, "max_passes", 0)?;
        Ok(Self {
            batch_size: usize::try_from(batch_size).expect("LIMIT fits in usize"),
            max_passes,
        })
    }
}

/// The value of `key`, an integer from `min` to [`LIMIT`].
///
/// A number counts by its value, as a double: JavaScript's `JSON.parse`
/// cannot tell `3.0` from `3`, so no port does.
fn integer(fields: &Map<String, Value>, key: &str, min: u64) -> Result<u64, String> {
    let value = fields
        .get(key)
        .ok_or_else(|| format!("`{key}` is missing"))?;
    let rule = format!("`{key}` must be an integer from {min} to {LIMIT}");
    let Some(number) = value.as_f64() else {
        return Err(format!("{rule}, not {}", kind(value)));
    };
    if number.fract() != 0.0 {
        return Err(format!("{rule}, not a fraction"));
    }
    if !(min as f64..=LIMIT as f64).contains(&number) {
        return Err(rule);
    }
    Ok(number as u64)
}

/// A JSON value's type, as the error messages name it.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Wraps the real broker and remembers how each attempt went, so the
/// transcript can tell the pass's story in batch order. It watches the
/// delivery service too: when its count of dropped repeats rises during a
/// publish, that publish was a redelivery the service recognised.
struct NarratingBroker {
    inner: FlakyBroker,
    attempts: u64,
    log: HashMap<MessageId, String>,
}

impl Broker for NarratingBroker {
    fn publish(&mut self, message: &Message) -> Result<(), PublishFailed> {
        self.attempts += 1;
        let dropped = self.inner.consumer().duplicates();
        let result = self.inner.publish(message);
        let mut story = format!("attempt {}: {} -> ", self.attempts, describe(message));
        match &result {
            Ok(()) => story.push_str("published"),
            Err(e) => _ = write!(story, "{e}; {} blocked for this pass", message.aggregate),
        }
        if self.inner.consumer().duplicates() > dropped {
            _ = write!(
                story,
                "\n    delivery service: #{} already processed, repeat dropped",
                message.id
            );
        }
        self.log.insert(message.id, story);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Loads `content` from a file of its own; an error without the file name.
    fn load(name: &str, content: &str) -> Result<Config, String> {
        let path =
            std::env::temp_dir().join(format!("outbox-demo-{}-{name}.json", std::process::id()));
        std::fs::write(&path, content).expect("the temporary directory is writable");
        let result = Config::load(&path);
        std::fs::remove_file(&path).expect("the file was just written");
        let prefix = format!("{}: ", path.display());
        result.map_err(|e| e.strip_prefix(&prefix).expect("names the file").to_owned())
    }

    #[test]
    fn accepts_whole_numbers_in_range() {
        let config = load("good", r#"{"max_passes": 0, "batch_size": 3.0}"#);
        let expected = Config {
            batch_size: 3,
            max_passes: 0,
        };
        assert_eq!(config, Ok(expected));
        let largest = load("largest", r#"{"batch_size": 1e6, "max_passes": 1000000}"#);
        assert!(largest.is_ok(), "{largest:?}");
    }

    #[test]
    fn names_the_key_and_the_rule() {
        let batch = "`batch_size` must be an integer from 1 to 1000000";
        let passes = "`max_passes` must be an integer from 0 to 1000000";
        let keys = "the keys are `batch_size` and `max_passes`";
        let cases = [
            (r#"{"batch_size": 3}"#, "`max_passes` is missing".to_owned()),
            (r#"{}"#, "`batch_size` is missing".to_owned()),
            (
                r#"{"batch_size": "3", "max_passes": 1}"#,
                format!("{batch}, not a string"),
            ),
            (
                r#"{"batch_size": 3.5, "max_passes": 1}"#,
                format!("{batch}, not a fraction"),
            ),
            (
                r#"{"batch_size": 3, "max_passes": true}"#,
                format!("{passes}, not a boolean"),
            ),
            (r#"{"batch_size": 0, "max_passes": 1}"#, batch.to_owned()),
            (r#"{"batch_size": 3, "max_passes": -1}"#, passes.to_owned()),
            (
                r#"{"batch_size": 3, "max_passes": 1e20}"#,
                passes.to_owned(),
            ),
            (
                r#"{"b": 1, "batch_size": 3, "a": 1}"#,
                format!(r#"unknown keys "a", "b"; {keys}"#),
            ),
            (
                r#"{"batch_size": 3, "max_pass": 1}"#,
                format!(r#"unknown key "max_pass"; {keys}"#),
            ),
            (
                "[3, 1]",
                "want a JSON object with `batch_size` and `max_passes`, not an array".to_owned(),
            ),
        ];
        for (content, expected) in cases {
            assert_eq!(load("bad", content), Err(expected), "for {content}");
        }
    }

    #[test]
    fn says_why_the_file_is_not_json() {
        for content in [
            "",
            "batch_size = 3",
            r#"{"batch_size": 3} x"#,
            r#"{"batch_size": NaN}"#,
        ] {
            let error = load("not-json", content).expect_err(content);
            let (first, reason) = error.split_once('\n').expect("two lines");
            assert_eq!(first, "not valid JSON");
            assert!(reason.starts_with("  ") && reason.len() > 2, "{error}");
        }
        let missing = Config::load(Path::new("no/such/demo.json")).expect_err("no file");
        assert!(
            missing.starts_with("no/such/demo.json: cannot read the file\n  "),
            "{missing}"
        );
    }
}
