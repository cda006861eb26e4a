//! The runner protocol, version [`VERSION`] (SPEC.md, "Runner protocol"):
//! one request per stdin line, each with its `kind` and `version`, and one
//! answer per stdout line.
//!
//! The harness encodes its requests with [`CaseRequest`] and reads answers
//! as [`Answer`]; the Rust runner
//! decodes the same lines with [`decode`], so the two cannot drift apart
//! although neither depends on the other.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::scenario::{Outcome, Scenario};

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

/// A `case` answer as it travels: the name, and the outcome's fields
/// beside it (`cases/schema.json`'s `$defs/answer`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// The case answered.
    pub name: String,
    /// What the relay did.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// A request the runner understood: a case to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// Echoed in the answer.
    pub name: String,
    /// What to run.
    pub scenario: Scenario,
}

/// A request the runner refuses, and the name to answer with (`null` when
/// the request had none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The request's `name` when it is a string, else `null`.
    pub name: Value,
    /// Why: starts with `unknown request kind`, `unsupported protocol
    /// version`, `unknown failure kind` (then the field and the failures
    /// allowed) or `bad request`.
    pub error: String,
}

/// Decodes one request line: one parse into a JSON tree, then the kind and
/// version checked and the rest read into a [`Scenario`].
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
    match fields.remove("kind") {
        Some(kind) if kind == "case" => {}
        other => {
            return Err(refuse(format!(
                "unknown request kind: {} (want \"case\")",
                other.map_or("missing".to_owned(), |v| v.to_string())
            )))
        }
    }
    match fields.remove("version") {
        Some(version) if version.as_u64() == Some(VERSION) => {}
        other => {
            return Err(refuse(format!(
                "unsupported protocol version: {} (want {VERSION})",
                other.map_or("missing".to_owned(), |v| v.to_string())
            )))
        }
    }
    let scenario = Scenario::deserialize(Value::Object(fields)).map_err(|e| {
        let text = e.to_string();
        let failure = text.starts_with("field `failures.") && text.contains(" is not one of ");
        let kind = if failure {
            "unknown failure kind"
        } else {
            "bad case request"
        };
        refuse(format!("{kind}: {text}"))
    })?;
    Ok(Request { name, scenario })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Failure, Row};

    fn scenario() -> Scenario {
        let row = |id, event_type: &str| Row::new(id, "order-1", event_type);
        Scenario {
            batch_size: 10,
            messages: vec![row(1, "OrderPlaced"), row(2, "OrderPaid")],
            failures: [(1, Failure::LostAck)].into(),
            passes: 2,
            ..Default::default()
        }
    }

    #[test]
    fn a_request_line_decodes_to_what_it_was_made_from() {
        let line = CaseRequest::new("c", &scenario()).line();
        assert_eq!(
            decode(&line),
            Ok(Request {
                name: "c".into(),
                scenario: scenario()
            })
        );
    }

    #[test]
    fn refuses_unknown_kinds_versions_and_failures() {
        let refusal = |line: &str| decode(line).unwrap_err();
        let Refusal { name, error } = refusal(r#"{"kind":"dance","version":1,"name":"x"}"#);
        assert_eq!(name, "x");
        assert!(
            error.starts_with("unknown request kind: \"dance\""),
            "{error}"
        );
        let error = refusal(r#"{"name":"x","batch_size":1}"#).error;
        assert!(
            error.starts_with("unknown request kind: missing"),
            "{error}"
        );
        let error = refusal(r#"{"kind":"case","version":2,"name":"x"}"#).error;
        assert!(
            error.starts_with("unsupported protocol version: 2"),
            "{error}"
        );
        let line = CaseRequest::new("x", &scenario())
            .line()
            .replace("lost_ack", "on_fire");
        let error = refusal(&line).error;
        assert_eq!(
            error,
            r#"unknown failure kind: field `failures."1"`: "on_fire" is not one of "down", "lost_ack""#
        );
        let unknown = CaseRequest::new("x", &scenario())
            .line()
            .replace("\"passes\":2", "\"passes\":2,\"x\":1");
        let error = refusal(&unknown).error;
        assert!(
            error.starts_with("bad case request: unknown field"),
            "{error}"
        );
        let Refusal { name, error } = refusal("not json");
        assert_eq!(name, Value::Null);
        assert!(error.starts_with("bad request"), "{error}");
    }
}
