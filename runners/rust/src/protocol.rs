//! The Rust runner's side of the runner protocol (SPEC.md, "Runner
//! protocol"): one request line in, one answer line out. The lines' types
//! and their decoding are the shared model's (`outbox_cases::protocol`).

use outbox_cases::protocol::{decode, Answer, Refusal, Request};

use crate::scenario;

/// Answers one request line with one line (no newline): the result, or an
/// `error` answer when the line is not a request this runner can run.
pub fn answer(line: &str) -> String {
    let value = match decode(line) {
        Ok(Request { name, scenario }) => match scenario::run(&scenario) {
            Ok(outcome) => {
                serde_json::to_value(Answer { name, outcome }).expect("an answer serializes")
            }
            Err(error) => serde_json::json!({"name": name, "error": error}),
        },
        Err(Refusal { name, error }) => serde_json::json!({"name": name, "error": error}),
    };
    value.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use outbox_cases::{CaseRequest, Failure, Row, Scenario};
    use serde_json::Value;

    fn scenario() -> Scenario {
        let row = |id, event_type: &str, written_after_pass| Row {
            written_after_pass,
            ..Row::new(id, "order-1", event_type)
        };
        Scenario {
            batch_size: 10,
            messages: vec![row(1, "OrderPlaced", 0), row(2, "OrderPaid", 1)],
            failures: [(1, Failure::LostAck)].into(),
            passes: 2,
            ..Default::default()
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
        assert_eq!(answer.outcome.sent, vec![vec![], vec![1, 2]]);
        assert_eq!(answer.outcome.duplicates, 1);
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
