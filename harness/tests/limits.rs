//! Limits no case rule states cannot fail a valid table: a runner's answer
//! may be as long as its case makes it (reliability.rs holds the one over
//! its limit). In a file of its own: the large case's memory would blur
//! the peak-memory figures of reliability.rs.

use std::time::Duration;

use parity::judge::Verdict;
use parity::protocol::Request;

mod common;

use common::seed_cases;

/// A case of 450,000 rows, valid, has an answer of 13 MB: over any fixed
/// line bound of the past (8 MiB), within its own limit, which scales with
/// the case.
#[test]
fn answer_limits_scale_with_the_case() {
    let mut big = seed_cases()[0].clone();
    big.name = "four_hundred_fifty_thousand_rows".into();
    big.scenario.batch_size = 450_000;
    big.scenario.failures.clear();
    big.scenario.passes = 1;
    big.scenario.messages = (1..=450_000)
        .map(|id| parity::table::Row::new(id, format!("order-{}", id % 1000), "OrderPlaced"))
        .collect();
    big.expect = parity::oracle::expect(&big.scenario);
    // The fake is a debug build: 450,000 rows take it seconds.
    let runner = common::session("limits/big-case", "none", "none", Duration::from_secs(120));
    let replies = runner.run(&Request::cases([&big]));
    let contract = parity::contract::Contract::repo().unwrap();
    let judged = (parity::repo_root(), &*contract);
    let verdicts = parity::judge::answers::answers((&judged.0, judged.1), "fake", &[&big], replies);
    assert_eq!(verdicts[0], Verdict::Pass, "{:?}", verdicts[0]);
}

/// Every case of the table, and the generated scenarios, answer within
/// their limit by a wide margin, the reference's own answer measured.
#[test]
fn every_answer_of_the_table_is_within_its_limit() {
    let mut cases = seed_cases();
    cases.extend(parity::differential::cases(7, 300, parity::differential::MAX_ROWS).unwrap());
    for case in &cases {
        let request = Request::case(case);
        let answer = parity::oracle::answer(&request.line);
        assert!(
            answer.len() * 2 < request.answer_limit,
            "{}: an answer of {} bytes, a limit of {}",
            case.name,
            answer.len(),
            request.answer_limit
        );
    }
}
