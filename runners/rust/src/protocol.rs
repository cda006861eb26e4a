//! The runner protocol, version [`VERSION`], as the Rust side speaks it:
//! one request per stdin line, each with its `kind` and `version`, and one
//! answer per stdout line (SPEC.md, "Runner protocol").
//!
//! The harness encodes its requests with [`CaseRequest`] and
//! [`BenchRequest`] and decodes answers with [`Answer`]; the Rust runner
//! decodes the same types in [`answer`], so the two cannot drift apart.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::bench::{self, Bench};
use crate::scenario::{self, Scenario};

/// The protocol version this crate speaks.
pub const VERSION: u64 = 1;

/// A `case` request: run a scenario, answer with its [`Answer`].
#[derive(Debug, Serialize)]
pub struct CaseRequest<'a> {
    /// Always `"case"`.
    pub kind: &'static str,
    /// Always [`VERSION`].
    pub version: u64,
    /// The case's name, echoed in the answer.
    pub name: &'a str,
    /// What to run; its fields sit beside `name` on the wire.
    #[serde(flatten)]
    pub scenario: &'a Scenario,
}

impl<'a> CaseRequest<'a> {
    /// The request for one case.
    pub fn new(name: &'a str, scenario: &'a Scenario) -> Self {
        CaseRequest {
            kind: "case",
            version: VERSION,
            name,
            scenario,
        }
    }

    /// The request as one line (no newline).
    pub fn line(&self) -> String {
        serde_json::to_string(self).expect("a request serializes")
    }
}

/// A `bench` request: build the bench table, drain it, answer with a
/// [`bench::Report`].
#[derive(Debug, Serialize)]
pub struct BenchRequest<'a> {
    /// Always `"bench"`.
    pub kind: &'static str,
    /// Always [`VERSION`].
    pub version: u64,
    /// Echoed in the answer.
    pub name: &'a str,
    /// Which table; its fields sit beside `name` on the wire.
    #[serde(flatten)]
    pub bench: &'a Bench,
}

impl<'a> BenchRequest<'a> {
    /// The request for one bench table.
    pub fn new(name: &'a str, bench: &'a Bench) -> Self {
        BenchRequest {
            kind: "bench",
            version: VERSION,
            name,
            bench,
        }
    }

    /// The request as one line (no newline).
    pub fn line(&self) -> String {
        serde_json::to_string(self).expect("a request serializes")
    }
}

/// A `case` answer as it travels: the name and the outcome's fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    /// The case answered.
    pub name: String,
    /// See [`scenario::Outcome::sent`].
    pub sent: Vec<Vec<u64>>,
    /// See [`scenario::Outcome::journal`].
    pub journal: Vec<String>,
    /// See [`scenario::Outcome::duplicates`].
    pub duplicates: u64,
}

impl Answer {
    /// The outcome, without the name.
    pub fn into_outcome(self) -> scenario::Outcome {
        scenario::Outcome {
            sent: self.sent,
            journal: self.journal,
            duplicates: self.duplicates,
        }
    }
}

/// A request the runner understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Run a case.
    Case {
        /// Echoed in the answer.
        name: String,
        /// What to run.
        scenario: Scenario,
    },
    /// Build and drain a bench table.
    Bench {
        /// Echoed in the answer.
        name: String,
        /// Which table.
        bench: Bench,
    },
}

/// A request the runner refuses, and the name to answer with (`null` when
/// the request had none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The request's `name` when it is a string, else `null`.
    pub name: Value,
    /// Why: starts with `unknown request kind`, `unsupported protocol
    /// version`, `unknown failure kind` or `bad request`.
    pub error: String,
}

/// Decodes one request line: one parse into a JSON tree, then the kind and
/// version checked and the rest read into the kind's type.
pub fn decode(line: &str) -> Result<Request, Refusal> {
    let mut fields: Map<String, Value> = serde_json::from_str(line).map_err(|e| Refusal {
        name: Value::Null,
        error: format!("bad request: {e}"),
    })?;
    let name = match fields.remove("name") {
        Some(Value::String(name)) => name,
        other => {
            let name = other.filter(Value::is_string).unwrap_or(Value::Null);
            return Err(Refusal {
                name,
                error: "bad request: no string field `name`".to_owned(),
            });
        }
    };
    let refuse = |error: String| Refusal {
        name: Value::String(name.clone()),
        error,
    };
    let kind = match fields.remove("kind") {
        Some(Value::String(kind)) if kind == "case" || kind == "bench" => kind,
        other => {
            return Err(refuse(format!(
                "unknown request kind: {} (want \"case\" or \"bench\")",
                other.map_or("missing".to_owned(), |v| v.to_string())
            )))
        }
    };
    match fields.remove("version") {
        Some(version) if version.as_u64() == Some(VERSION) => {}
        other => {
            return Err(refuse(format!(
                "unsupported protocol version: {} (want {VERSION})",
                other.map_or("missing".to_owned(), |v| v.to_string())
            )))
        }
    }
    let rest = Value::Object(fields);
    if kind == "bench" {
        let bench =
            Bench::deserialize(rest).map_err(|e| refuse(format!("bad bench request: {e}")))?;
        return Ok(Request::Bench { name, bench });
    }
    let scenario = Scenario::deserialize(rest).map_err(|e| {
        let text = e.to_string();
        if text.contains("unknown variant") {
            refuse(format!("unknown failure kind: {text}"))
        } else {
            refuse(format!("bad case request: {text}"))
        }
    })?;
    Ok(Request::Case { name, scenario })
}

/// Answers one request line with one line (no newline): the result, or an
/// `error` answer when the line is not a request this runner can run.
pub fn answer(line: &str) -> String {
    let value = match decode(line) {
        Ok(Request::Case { name, scenario }) => match scenario::run(&scenario) {
            Ok(outcome) => serde_json::to_value(Answer {
                name,
                sent: outcome.sent,
                journal: outcome.journal,
                duplicates: outcome.duplicates,
            })
            .expect("an answer serializes"),
            Err(error) => serde_json::json!({"name": name, "error": error}),
        },
        Ok(Request::Bench { name, bench }) => {
            let mut value = serde_json::to_value(bench::run(&bench)).expect("a report serializes");
            value["name"] = Value::String(name);
            value
        }
        Err(Refusal { name, error }) => serde_json::json!({"name": name, "error": error}),
    };
    value.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Failure, Row};

    fn scenario() -> Scenario {
        Scenario {
            batch_size: 10,
            messages: vec![
                Row {
                    id: 1,
                    aggregate: "order-1".into(),
                    event_type: "OrderPlaced".into(),
                    written_after_pass: 0,
                },
                Row {
                    id: 2,
                    aggregate: "order-1".into(),
                    event_type: "OrderPaid".into(),
                    written_after_pass: 1,
                },
            ],
            failures: [(1, Failure::LostAck)].into(),
            passes: 2,
            restart_each_pass: false,
        }
    }

    #[test]
    fn a_request_the_harness_writes_is_one_the_runner_runs() {
        let line = CaseRequest::new("c", &scenario()).line();
        assert_eq!(
            line,
            r#"{"kind":"case","version":1,"name":"c","batch_size":10,"messages":[{"id":1,"aggregate":"order-1","type":"OrderPlaced"},{"id":2,"aggregate":"order-1","type":"OrderPaid","written_after_pass":1}],"failures":{"1":"lost_ack"},"passes":2}"#
        );
        let answer: Answer = serde_json::from_str(&answer(&line)).unwrap();
        assert_eq!(answer.name, "c");
        assert_eq!(answer.sent, vec![vec![], vec![1, 2]]);
        assert_eq!(answer.duplicates, 1);
    }

    #[test]
    fn refuses_unknown_kinds_versions_and_failures() {
        let error = |line: &str| -> (Value, String) {
            let value: Value = serde_json::from_str(&answer(line)).unwrap();
            (
                value["name"].clone(),
                value["error"].as_str().unwrap().to_owned(),
            )
        };
        let (name, text) = error(r#"{"kind":"dance","version":1,"name":"x"}"#);
        assert_eq!(name, "x");
        assert!(
            text.starts_with("unknown request kind: \"dance\""),
            "{text}"
        );
        let (_, text) = error(r#"{"name":"x","batch_size":1}"#);
        assert!(text.starts_with("unknown request kind: missing"), "{text}");
        let (_, text) = error(r#"{"kind":"case","version":2,"name":"x"}"#);
        assert!(
            text.starts_with("unsupported protocol version: 2"),
            "{text}"
        );
        let line = CaseRequest::new("x", &scenario())
            .line()
            .replace("lost_ack", "on_fire");
        let (_, text) = error(&line);
        assert!(text.starts_with("unknown failure kind"), "{text}");
        let (name, text) = error("not json");
        assert_eq!(name, Value::Null);
        assert!(text.starts_with("bad request"), "{text}");
    }

    #[test]
    fn an_id_that_does_not_increase_is_an_error_answer() {
        let mut scenario = scenario();
        scenario.messages[1].id = 1;
        let value: Value =
            serde_json::from_str(&answer(&CaseRequest::new("x", &scenario).line())).unwrap();
        assert!(value["error"].as_str().is_some(), "{value}");
    }
}
