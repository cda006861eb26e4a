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
    use outbox_cases::protocol::Answer;
    use outbox_cases::{CaseRequest, Failure, Fetch, OnExhausted, Row, Scenario, Unpark};
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

    /// The rows of SPEC's examples, all written before the first pass.
    fn rows(rows: &[(u64, &str, &str)]) -> Vec<Row> {
        rows.iter().map(|&(id, a, t)| Row::new(id, a, t)).collect()
    }

    fn three_rows() -> Vec<Row> {
        rows(&[
            (1, "order-1", "OrderPlaced"),
            (2, "order-2", "OrderPlaced"),
            (3, "order-1", "OrderPaid"),
        ])
    }

    /// The answer to the request line the harness writes for `scenario`.
    fn played(scenario: &Scenario) -> Value {
        let line = CaseRequest::new("c", scenario).line();
        serde_json::from_str(&answer(&line)).unwrap()
    }

    #[test]
    fn the_attempt_cap_releases_and_answers_dead_letters_per_run() {
        let scenario = Scenario {
            batch_size: 10,
            messages: three_rows(),
            failures: [(1, Failure::Down), (3, Failure::Down)].into(),
            passes: 3,
            max_attempts: Some(2),
            ..Default::default()
        };
        let line = CaseRequest::new("c", &scenario).line();
        assert!(line.ends_with(r#""passes":3,"max_attempts":2}"#), "{line}");
        let expected = serde_json::json!({"name": "c",
            "sent": [[2], [], [3]],
            "journal": ["order-2 OrderPlaced", "order-1 OrderPaid"],
            "duplicates": 0, "dead_letters": [[], [1], []]});
        assert_eq!(played(&scenario), expected);
        let uncapped = Scenario {
            max_attempts: None,
            ..scenario
        };
        assert!(played(&uncapped).get("dead_letters").is_none());
    }

    #[test]
    fn park_holds_the_order_until_its_unpark_after_the_writes() {
        let mut messages = three_rows();
        messages.push(Row {
            written_after_pass: 2,
            ..Row::new(4, "order-1", "OrderShipped")
        });
        let scenario = Scenario {
            batch_size: 10,
            messages,
            failures: [(1, Failure::LostAck)].into(),
            passes: 4,
            max_attempts: Some(1),
            on_exhausted: Some(OnExhausted::Park),
            unpark: Some(vec![Unpark {
                aggregate: "order-1".into(),
                after_pass: 2,
            }]),
            ..Default::default()
        };
        let answer = played(&scenario);
        assert_eq!(answer["sent"], serde_json::json!([[2], [], [3, 4], []]));
        assert_eq!(answer["dead_letters"], serde_json::json!([[1], [], [], []]));
        assert_eq!(answer["journal"][0], "order-1 OrderPlaced", "{answer}");
    }

    #[test]
    fn a_retention_shorter_than_the_redelivery_applies_it_again() {
        let scenario = |retention| Scenario {
            batch_size: 10,
            messages: three_rows(),
            failures: [(1, Failure::LostAck)].into(),
            passes: 2,
            retention,
            ..Default::default()
        };
        let short = played(&scenario(Some(1)));
        let journal = serde_json::json!([
            "order-1 OrderPlaced",
            "order-2 OrderPlaced",
            "order-1 OrderPlaced",
            "order-1 OrderPaid"
        ]);
        assert_eq!(short["sent"], serde_json::json!([[2], [1, 3]]));
        assert_eq!(
            (&short["journal"], &short["duplicates"]),
            (&journal, &0.into())
        );
        let long = played(&scenario(Some(2)));
        assert_eq!(long["duplicates"], 1);
        assert_eq!(long, played(&scenario(None)));
    }

    #[test]
    fn two_relays_answer_one_list_per_run() {
        let scenario = Scenario {
            batch_size: 10,
            messages: rows(&[
                (1, "order-1", "OrderPlaced"),
                (2, "order-2", "OrderPlaced"),
                (3, "order-1", "OrderPaid"),
                (4, "order-2", "OrderPaid"),
            ]),
            passes: 2,
            relays: Some(2),
            ..Default::default()
        };
        let answer = played(&scenario);
        assert_eq!(answer["sent"], serde_json::json!([[2, 4], [1, 3], [], []]));
        let scheduled = Scenario {
            schedule: Some(vec![vec![], vec![1, 1, 0]]),
            ..scenario
        };
        let answer = played(&scheduled);
        assert_eq!(answer["sent"], serde_json::json!([[1, 3], [], [2, 4]]));
        let journal = &answer["journal"];
        assert_eq!(
            (&journal[0], &journal[2]),
            (&"order-1 OrderPlaced".into(), &"order-2 OrderPlaced".into())
        );
    }

    #[test]
    fn heads_let_other_orders_past_a_blocked_one() {
        let scenario = Scenario {
            batch_size: 3,
            messages: rows(&[
                (1, "order-1", "OrderPlaced"),
                (2, "order-1", "OrderPaid"),
                (3, "order-1", "OrderShipped"),
                (4, "order-2", "OrderPlaced"),
            ]),
            failures: [(1, Failure::Down), (2, Failure::Down)].into(),
            passes: 3,
            fetch: Some(Fetch::Heads),
            ..Default::default()
        };
        assert_eq!(
            played(&scenario)["sent"],
            serde_json::json!([[], [1, 4], [2]])
        );
        let rows = Scenario {
            fetch: Some(Fetch::Rows),
            ..scenario
        };
        let starved = serde_json::json!([[], [], [1, 2, 3]]);
        assert_eq!(
            played(&rows)["sent"],
            starved,
            "order-2 waits behind order-1"
        );
    }

    #[test]
    fn a_relay_count_the_partition_cannot_divide_by_is_an_error_answer() {
        let scenario = Scenario {
            batch_size: 1,
            passes: 1,
            relays: Some(0),
            ..Default::default()
        };
        let answer = played(&scenario);
        assert_eq!(
            answer["error"], "relays: 0 is not from 1 to 256",
            "{answer}"
        );
    }
}
