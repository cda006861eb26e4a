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

/// SPEC's first seed case, to grow.
fn all_in_one_pass() -> Case {
    let mut cases = seed_cases().into_iter();
    cases.find(|case| case.name == "all_in_one_pass").unwrap()
}

/// A case of 450,000 rows, valid, has an answer of 13 MB: over any fixed
/// line bound of the past (8 MiB), within its own limit, which scales with
/// the case.
#[test]
fn answer_limits_scale_with_the_case() {
    let mut big = all_in_one_pass();
    big.name = "four_hundred_fifty_thousand_rows".into();
    big.scenario.batch_size = 450_000;
    big.scenario.failures.clear();
    big.scenario.passes = 1;
    big.scenario.messages = (1..=450_000)
        .map(|id| Row::new(id, format!("order-{}", id % 1000), "OrderPlaced"))
        .collect();
    big.expect = parity::oracle::expect(&big.scenario);
    // The fake is a debug build: 450,000 rows take it seconds.
    let runner = common::session("big-case", "none", "none", Duration::from_secs(120));
    let replies = runner.run(&Request::cases([&big]));
    let contract = parity::contract::Contract::repo().unwrap();
    let verdicts = answers((&parity::repo_root(), &contract), "fake", &[&big], replies);
    assert_eq!(verdicts[0], Verdict::Pass, "{:?}", verdicts[0]);
}

/// The features make a right answer longer, and its limit grows with
/// them: a million runs (a list each of `sent` and `dead_letters`), 100,000
/// dead letters, and 20,000 entries journalled again under a retention
/// (their text all control characters, six bytes each escaped), each over
/// what the limit gave before them but the dead letters, played by the
/// Rust runner and judged as `make test` judges it.
#[test]
fn answer_limits_grow_with_runs_dead_letters_and_entries_applied_again() {
    let base = all_in_one_pass();
    let mut cases = [base.clone(), base.clone(), base];
    let runs = &mut cases[0].scenario;
    (runs.passes, runs.relays, runs.max_attempts) = (3_906, Some(256), Some(1));
    for (i, failure) in [Failure::Down, Failure::LostAck].into_iter().enumerate() {
        let count = [100_000, 20_000][i];
        let aggregate = |id: u64| format!("{}{id}", "\u{1}".repeat(40 * i));
        let scenario = &mut cases[i + 1].scenario;
        let rows = (1..=count).map(|id| Row::new(id, aggregate(id), "E"));
        scenario.messages = rows.collect();
        scenario.failures = (1..=count).map(|attempt| (attempt, failure)).collect();
        (scenario.batch_size, scenario.passes) = (count, 2);
        match failure {
            Failure::Down => scenario.max_attempts = Some(1),
            Failure::LostAck => scenario.retention = Some(1),
        }
    }
    let names = ["many_runs", "many_dead_letters", "many_applied_again"];
    for (case, name) in cases.iter_mut().zip(names) {
        (case.name, case.expect) = (name.into(), parity::oracle::expect(&case.scenario));
    }
    let suite = common::suite(Duration::from_secs(120));
    let rust = suite.ready(suite.reference()).unwrap();
    let replies = suite.runner(rust).run(&Request::cases(&cases));
    let cases: Vec<&Case> = cases.iter().collect();
    let verdicts = answers((&suite.root, &suite.contract), "rust", &cases, replies);
    assert_eq!(verdicts, [Verdict::Pass, Verdict::Pass, Verdict::Pass]);
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
