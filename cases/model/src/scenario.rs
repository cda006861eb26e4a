//! What a case asks of the relay and what the relay did: the types every
//! side reads and writes, with serde's spelling of them the case files'
//! and the wire's.

use std::collections::BTreeMap;

use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize};

/// An outbox row's id (the reference's `MessageId`, here without it).
pub type MessageId = u64;

/// What a case asks of the relay: everything but its name, description and
/// expected result. Field order is the wire's and the case files' order.
///
/// `Default` is there so code that builds a scenario (the generator, tests)
/// writes `..Default::default()` and a new optional field needs no edit
/// there.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Rows per pass.
    pub batch_size: u64,
    /// Outbox rows in insertion order.
    pub messages: Vec<Row>,
    /// Attempt number to scripted failure (decimal-string keys in JSON).
    #[serde(default, deserialize_with = "attempts")]
    pub failures: BTreeMap<u64, Failure>,
    /// How many times the relay runs.
    pub passes: u64,
    /// Build a new relay before every pass (the broker keeps counting).
    #[serde(default, skip_serializing_if = "is_false")]
    pub restart_each_pass: bool,
    /// Failed publish calls after which a row becomes a dead letter;
    /// `None`: no cap. Feature `attempt_cap`, as are the next two.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_attempts: Option<u64>,
    /// What becomes of a dead letter's order (default release).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_exhausted: Option<OnExhausted>,
    /// Parked orders a person lets go, each after a pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unpark: Option<Vec<Unpark>>,
    /// Passes the consumer remembers an id for; `None`: forever. Feature
    /// `retention`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention: Option<u64>,
    /// How many relays share the table, split by order (default 1).
    /// Feature `relays`, as is the next.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relays: Option<u64>,
    /// Per pass, the relays that run in it, in order (default: each once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Vec<Vec<u64>>>,
    /// Which unsent rows a run takes (default rows). Feature `heads`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fetch: Option<Fetch>,
}

/// A parked order let go after a pass: what a person does after reading a
/// dead letter.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unpark {
    /// The order.
    pub aggregate: String,
    /// The pass after whose runs and writes it is unparked, from 1.
    pub after_pass: u64,
}

/// What becomes of a dead letter's order, as case files spell it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnExhausted {
    /// The order goes on with its next row.
    #[default]
    Release,
    /// The order waits for an unpark.
    Park,
}

/// Which unsent rows a run takes, as case files spell it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fetch {
    /// The oldest rows.
    #[default]
    Rows,
    /// The oldest row of each order.
    Heads,
}

/// One outbox row of a case.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    /// Outbox id, strictly increasing along the rows.
    pub id: MessageId,
    /// The order whose events must stay in order.
    pub aggregate: String,
    /// The event type (`type` in JSON).
    #[serde(rename = "type")]
    pub event_type: String,
    /// The row is written after this pass and before the next (0: before
    /// the first), so a case can show the order service writing while the
    /// relay runs.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub written_after_pass: u64,
}

/// A scripted broker failure, as case files and the protocol spell it;
/// another spelling is refused naming the ones allowed ([`one_of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Failure {
    /// Not delivered.
    Down,
    /// Delivered, but the ack was lost.
    LostAck,
}

/// The things compared per case: what was sent in each run, what the
/// consumer did, how many repeats it dropped, and, with an attempt cap,
/// what was dead-lettered in each run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outcome {
    /// Ids sent, one list per run (per pass with one relay).
    pub sent: Vec<Vec<MessageId>>,
    /// The consumer's journal, `"<aggregate> <type>"` per handled event.
    pub journal: Vec<String>,
    /// Redeliveries the consumer dropped.
    pub duplicates: u64,
    /// Ids dead-lettered, one list per run; present exactly when the case
    /// has `max_attempts`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dead_letters: Option<Vec<Vec<MessageId>>>,
}

impl Scenario {
    /// The relays that run in pass `pass` (from 1), in run order: the
    /// schedule's list for it, or every relay once (SPEC.md, "Runs and
    /// passes").
    pub fn relays_in(&self, pass: u64) -> Vec<u64> {
        let listed = (self.schedule.as_ref())
            .and_then(|s| s.get(usize::try_from(pass).ok()?.checked_sub(1)?));
        listed
            .cloned()
            .unwrap_or_else(|| (0..self.relays.unwrap_or(1)).collect())
    }

    /// How many runs the case plays, one list of `sent` each: the
    /// schedule's lists summed, or `passes` times `relays` (saturating).
    pub fn runs(&self) -> u64 {
        match &self.schedule {
            Some(schedule) => schedule.iter().map(|runs| runs.len() as u64).sum(),
            None => self.passes.saturating_mul(self.relays.unwrap_or(1)),
        }
    }
}

pub(crate) fn is_false(value: &bool) -> bool {
    !*value
}

pub(crate) fn is_zero(value: &u64) -> bool {
    *value == 0
}

impl Row {
    /// A row written before the first pass; a literal with
    /// `..Row::new(..)` sets the rest, so code that builds rows needs no
    /// edit for a new optional field.
    pub fn new(id: MessageId, aggregate: impl Into<String>, event_type: impl Into<String>) -> Self {
        Row {
            id,
            aggregate: aggregate.into(),
            event_type: event_type.into(),
            ..Row::default()
        }
    }
}

/// What an enum of the case format says of a value it does not know:
/// `"dwon" is not one of "down", "lost_ack"`, so a typo names what was meant.
pub fn one_of(value: &str, allowed: &[&str]) -> String {
    let allowed: Vec<String> = allowed.iter().map(|a| format!("{a:?}")).collect();
    format!("{value:?} is not one of {}", allowed.join(", "))
}

impl<'de> Deserialize<'de> for Failure {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        let spelled = |failure: &Failure| failure.as_str() == text;
        Failure::ALL
            .into_iter()
            .find(spelled)
            .ok_or_else(|| D::Error::custom(one_of(&text, &Failure::ALL.map(Failure::as_str))))
    }
}

/// `failures` read from its decimal-string keys (serde's own map of `u64`
/// keys cannot read them through a flattened case), each failure that is
/// not one named with its key: `field `failures."3"`: "dwon" is not one
/// of ...`.
fn attempts<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<BTreeMap<u64, Failure>, D::Error> {
    let entries = BTreeMap::<String, serde_json::Value>::deserialize(deserializer)?;
    let entry = |(key, value): (String, serde_json::Value)| {
        let field = format!("field `failures.{key:?}`");
        let attempt = key
            .parse()
            .map_err(|_| D::Error::custom(format!("{field}: {key:?} is not an attempt number")))?;
        let failure =
            Failure::deserialize(value).map_err(|e| D::Error::custom(format!("{field}: {e}")))?;
        Ok((attempt, failure))
    };
    entries.into_iter().map(entry).collect()
}

impl Failure {
    /// Every failure, in the order case files' messages list them.
    pub const ALL: [Failure; 2] = [Failure::Down, Failure::LostAck];

    /// The spelling in case files and on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Failure::Down => "down",
            Failure::LostAck => "lost_ack",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_fields_are_left_out_when_they_are_their_default() {
        let scenario = Scenario {
            batch_size: 1,
            messages: vec![Row::new(1, "order-1", "OrderPlaced")],
            passes: 1,
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_string(&scenario).unwrap(),
            r#"{"batch_size":1,"messages":[{"id":1,"aggregate":"order-1","type":"OrderPlaced"}],"failures":{},"passes":1}"#
        );
        let back: Scenario =
            serde_json::from_str(&serde_json::to_string(&scenario).unwrap()).unwrap();
        assert_eq!(back, scenario);
    }

    #[test]
    fn a_feature_field_at_its_default_value_is_still_present() {
        let text = r#"{"batch_size":1,"messages":[],"failures":{},"passes":1,"max_attempts":1,"on_exhausted":"release","unpark":[],"retention":1,"relays":1,"schedule":[[0]],"fetch":"rows"}"#;
        let scenario: Scenario = serde_json::from_str(text).unwrap();
        assert_eq!(scenario.on_exhausted, Some(OnExhausted::Release));
        assert_eq!(scenario.unpark, Some(vec![]));
        assert_eq!(scenario.fetch, Some(Fetch::Rows));
        assert_eq!(serde_json::to_string(&scenario).unwrap(), text);
        let park = r#"{"aggregate":"order-1","after_pass":2}"#;
        let unpark: Unpark = serde_json::from_str(park).unwrap();
        assert_eq!(unpark.after_pass, 2);
        let extra = park.replace('}', r#","pass":1}"#);
        assert!(serde_json::from_str::<Unpark>(&extra).is_err());
        let heads: Fetch = serde_json::from_str(r#""heads""#).unwrap();
        assert_eq!(heads, Fetch::Heads);
        let outcome = Outcome {
            dead_letters: Some(vec![vec![], vec![1]]),
            ..Outcome::default()
        };
        let line = serde_json::to_string(&outcome).unwrap();
        assert!(line.ends_with(r#""dead_letters":[[],[1]]}"#), "{line}");
        let none = serde_json::to_string(&Outcome::default()).unwrap();
        assert!(!none.contains("dead_letters"), "{none}");
    }

    #[test]
    fn failures_are_spelled_as_the_files_spell_them() {
        for failure in [Failure::Down, Failure::LostAck] {
            assert_eq!(
                serde_json::to_value(failure).unwrap(),
                serde_json::Value::String(failure.as_str().into())
            );
        }
    }
}
