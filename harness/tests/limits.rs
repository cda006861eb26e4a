//! Limits no case rule states cannot fail a valid table: a runner's answer
//! may be as long as its case makes it (reliability.rs holds the one over
//! its limit). In a file of its own: the large case's memory would blur
//! the peak-memory figures of reliability.rs.

use std::time::Duration;

use parity::judge::answers::answers;
use parity::judge::Verdict;
use parity::protocol::Request;
use parity::table::{Case, Failure, Row};

mod common;

use common::seed_cases;

/// A right answer may be as long as its case makes it, and its limit
/// grows with the case: a case of 450,000 rows, valid, has an answer of
/// 13 MB, over any fixed line bound of the past (8 MiB); and the features
/// make an answer longer: a million runs (a list each of `sent` and
/// `dead_letters`), 100,000 dead letters, and 20,000 entries journalled
/// again under a retention (their text all control characters, six bytes
/// each escaped), each over what the limit gave before them but the dead
/// letters. Each is played by the Rust runner and judged as `make test`
/// judges it.
#[test]
fn answer_limits_grow_with_rows_runs_dead_letters_and_entries_applied_again() {
    // SPEC's first seed case, grown.
    let mut seed = seed_cases().into_iter();
    let base = seed.find(|case| case.name == "all_in_one_pass").unwrap();
    let mut cases = [base.clone(), base.clone(), base.clone(), base];
    let rows = &mut cases[0].scenario;
    (rows.batch_size, rows.passes) = (450_000, 1);
    rows.failures.clear();
    let aggregate = |id: u64| format!("order-{}", id % 1000);
    let messages = (1..=450_000).map(|id| Row::new(id, aggregate(id), "OrderPlaced"));
    rows.messages = messages.collect();
    let runs = &mut cases[1].scenario;
    (runs.passes, runs.relays, runs.max_attempts) = (3_906, Some(256), Some(1));
    for (i, failure) in [Failure::Down, Failure::LostAck].into_iter().enumerate() {
        let count = [100_000, 20_000][i];
        let aggregate = |id: u64| format!("{}{id}", "\u{1}".repeat(40 * i));
        let scenario = &mut cases[i + 2].scenario;
        let rows = (1..=count).map(|id| Row::new(id, aggregate(id), "E"));
        scenario.messages = rows.collect();
        scenario.failures = (1..=count).map(|attempt| (attempt, failure)).collect();
        (scenario.batch_size, scenario.passes) = (count, 2);
        match failure {
            Failure::Down => scenario.max_attempts = Some(1),
            Failure::LostAck => scenario.retention = Some(1),
        }
    }
    let names = [
        "four_hundred_fifty_thousand_rows",
        "many_runs",
        "many_dead_letters",
        "many_applied_again",
    ];
    for (case, name) in cases.iter_mut().zip(names) {
        (case.name, case.expect) = (name.into(), parity::oracle::expect(&case.scenario));
    }
    let suite = common::suite(Duration::from_secs(120));
    let rust = suite.ready(suite.reference()).unwrap();
    let replies = suite.runner(rust).run(&Request::cases(&cases));
    let cases: Vec<&Case> = cases.iter().collect();
    let verdicts = answers((&suite.root, &suite.contract), "rust", &cases, replies);
    assert_eq!(verdicts, vec![Verdict::Pass; 4]);
}

/// Every case of the table, and the generated scenarios, answer within
/// their limit by a wide margin, the reference's own answer measured.
#[test]
fn every_answer_of_the_table_is_within_its_limit() {
    let mut cases = seed_cases();
    cases.extend(parity::differential::cases(7, 300, parity::differential::Draw::ALL).unwrap());
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
