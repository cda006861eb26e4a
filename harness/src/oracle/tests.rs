//! The oracle against the case table and SPEC.md's own examples.

use outbox_cases::protocol::{Answer, CaseRequest};
use outbox_cases::Row;

use super::passes::{self, Hook, Pass};
use super::*;

/// The case table's expectations were blessed from the reference: the
/// oracle must reproduce every one of them whole (what `make bless
/// BLESS=all` would otherwise show as a diff of `cases/`).
#[test]
fn the_oracle_expects_what_every_table_case_expects() {
    let cases = crate::table::load(&[crate::repo_root().join("cases")]).expect("the table loads");
    for case in &cases {
        assert_eq!(expect(&case.scenario), case.expect, "{}", case.name);
        let line = CaseRequest::new(&case.name, &case.scenario).line();
        let answered: Answer = serde_json::from_str(&answer(&line)).expect("an answer");
        assert_eq!(answered.name, case.name);
        assert_eq!(fields(&answered.outcome), case.expect, "{}", case.name);
    }
    assert!(cases.len() >= 5, "only {} cases", cases.len());
}

fn lost_ack() -> Scenario {
    Scenario {
        batch_size: 10,
        messages: vec![
            Row::new(1, "order-1", "OrderPlaced"),
            Row::new(2, "order-2", "OrderPlaced"),
            Row::new(3, "order-1", "OrderPaid"),
        ],
        failures: [(1, outbox_cases::Failure::LostAck)].into(),
        passes: 2,
        ..Default::default()
    }
}

#[test]
fn answers_are_the_lines_spec_shows() {
    let line = CaseRequest::new("lost_ack", &lost_ack()).line();
    assert_eq!(
        answer(&line),
        r#"{"name":"lost_ack","sent":[[2],[1,3]],"journal":["order-1 OrderPlaced","order-2 OrderPlaced","order-1 OrderPaid"],"duplicates":1}"#
    );
    let mut refused = lost_ack();
    refused.messages[1].id = 1;
    let line = CaseRequest::new("x", &refused).line();
    assert_eq!(
        answer(&line),
        r#"{"name":"x","error":"message 1: message id 1 is not greater than the last id 1"}"#
    );
    assert!(answer("not json").starts_with(r#"{"name":null,"error":"bad request: "#));
    let unknown = r#"{"kind":"dance","version":1,"name":"y"}"#;
    assert!(answer(unknown).starts_with(r#"{"name":"y","error":"unknown request kind"#));
}

/// Records every pass the loop reports.
impl<B: passes::Clocked> Hook<B> for Vec<Pass> {
    fn after(&mut self, pass: Pass) -> bool {
        self.push(pass);
        true
    }
}

#[test]
fn rows_are_written_after_their_pass_and_idle_follows_the_last() {
    let mut scenario = lost_ack();
    scenario.failures.clear();
    scenario.batch_size = 1;
    scenario.passes = 4;
    scenario.messages[1].written_after_pass = 1;
    scenario.messages[2].written_after_pass = 4;
    let mut broker = passes::broker(&scenario);
    let mut seen = Vec::new();
    let played = passes::drive(&scenario, &mut broker, &mut seen).unwrap();
    assert_eq!(
        played.before_first.iter().map(|m| m.id).collect::<Vec<_>>(),
        [1]
    );
    let sent: Vec<_> = seen.iter().map(|p| p.runs[0].sent.clone()).collect();
    assert_eq!(sent, [vec![1], vec![2], vec![], vec![]]);
    assert_eq!(played.sent, sent);
    let written: Vec<Vec<u64>> = seen
        .iter()
        .map(|p| p.written_after.iter().map(|m| m.id).collect())
        .collect();
    assert_eq!(written, [vec![2], vec![], vec![], vec![3]]);
    let idle: Vec<bool> = seen.iter().map(|p| p.idle).collect();
    assert_eq!(
        idle,
        [false, false, false, false],
        "row 3 is unsent after the last"
    );
    scenario.messages[2].written_after_pass = 2;
    let mut seen = Vec::new();
    passes::drive(&scenario, &mut passes::broker(&scenario), &mut seen).unwrap();
    let idle: Vec<bool> = seen.iter().map(|p| p.idle).collect();
    assert_eq!(idle, [false, false, true, true]);
}
