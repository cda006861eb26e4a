//! Differential checking: every language against the reference and against
//! the properties, on generated scenarios, with shrinking of what fails.
//!
//! Each scenario goes to a runner twice, as it is and with
//! `restart_each_pass`, in one stream with all the others: a relay rebuilt
//! at every pass boundary must not change the result.

pub mod generate;
pub mod properties;
pub mod shrink;

use serde::Deserialize;

use crate::contract::{Contract, Fields};
use crate::judge::{compare, emit};
use crate::oracle;
use crate::protocol::{Reply, Request};
use crate::session::{Answers, Session};
use crate::table::{Case, Outcome, Scenario};
use generate::draw;

pub use generate::{sizes, Draw, MAX_ROWS};
pub use shrink::{shrink, Finding};

/// The two cases sent for scenario `index` of `seed`: as drawn, and with a
/// new relay before every pass; `Err` when the reference itself fails on
/// it, naming the scenario.
pub fn case_pair(scenario: &Scenario, seed: u64, index: usize) -> Result<[Case; 2], String> {
    let expect = oracle::try_expect(scenario).map_err(|e| {
        format!(
            "the reference fails on generated scenario {index} of seed {seed}: {e}\n{scenario:?}"
        )
    })?;
    let plain = Case {
        file: "(generated)".into(),
        name: format!("generated-{seed}-{index}"),
        description: format!("Scenario {index} drawn from seed {seed}."),
        scenario: scenario.clone(),
        expect: oracle::fields(&expect),
        features: Default::default(),
    };
    let mut restart = plain.clone();
    restart.name.push_str("-restart");
    restart.scenario.restart_each_pass = true;
    Ok([plain, restart])
}

/// The cases for `count` scenarios of `seed`, drawn as `drawn` says,
/// pairs in order.
pub fn cases(seed: u64, count: usize, drawn: Draw) -> Result<Vec<Case>, String> {
    let mut cases = Vec::with_capacity(2 * count);
    for (index, tree) in draw(seed, count, drawn).iter().enumerate() {
        cases.extend(case_pair(&tree.current(), seed, index)?);
    }
    Ok(cases)
}

/// The start of a problem that is the reference's own, not the runner's
/// (its outcome breaks a property): a shrink report blames it so.
pub const BY_REFERENCE: &str = "the Rust reference's own outcome breaks a property";

/// Why one language's answers to a scenario pair are wrong, or `Ok`.
fn judge_pair(contract: &Contract, plain: &Case, replies: [&Reply; 2]) -> Result<(), String> {
    let check = |fields| typed(fields).and_then(|o| properties::check(&plain.scenario, &o));
    check(&plain.expect).map_err(|broken| format!("{BY_REFERENCE}: {broken}"))?;
    let answer = answer_of(replies[0])?;
    check(answer).map_err(|broken| format!("breaks a property: {broken}"))?;
    let same = |expected, actual, otherwise: &str| {
        let differs = compare::differences(contract, expected, actual);
        match differs.is_empty() {
            true => Ok(()),
            false => Err(format!("{otherwise}:\n{}", emit::differences(&differs))),
        }
    };
    same(&plain.expect, answer, "disagrees with the reference")?;
    let restarted = "gives another result with restart_each_pass (expected: without, actual: with)";
    same(answer, answer_of(replies[1])?, restarted)
}

/// An outcome's fields read into the model, whose properties are typed.
fn typed(fields: &Fields) -> Result<Outcome, String> {
    Outcome::deserialize(fields).map_err(|e| format!("the outcome is not the model's: {e}"))
}

fn answer_of(reply: &Reply) -> Result<&Fields, String> {
    match reply {
        Reply::Answer(fields) => Ok(fields),
        Reply::Error(error) => Err(format!("answered with an error: {error}")),
        Reply::Fault(why) => Err(why.to_string()),
    }
}

/// What is wrong with one scenario's answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The scenario's index in the run.
    pub index: usize,
    /// What is wrong, for a person.
    pub text: String,
    /// Whether the runner faulted on the scenario (crashed, hung, printed
    /// garbage): a fault of the runner, not a wrong result, so it is never
    /// shrunk nor saved as a regression.
    pub fault: bool,
}

/// One runner's verdict on a run of scenario pairs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Checked {
    /// The scenarios it got wrong or faulted on, by index.
    pub problems: Vec<Problem>,
    /// Its fault after the last answer (a non-zero exit, more output): the
    /// runner's, not any scenario's.
    pub runner_fault: Option<crate::fault::Fault>,
}

/// Runs scenario pairs through `runner` (their requests made already, so
/// several runners share the work) and judges every answer.
pub fn check_all(runner: &Session, cases: &[Case], requests: &[Request]) -> Checked {
    let Answers { replies, after } = runner.answer(requests, &|_| false);
    Checked {
        problems: judge_all(&runner.contract, cases, &replies),
        runner_fault: after,
    }
}

/// Judges the replies to scenario pairs (as [`cases`] makes them); returns
/// the problems by scenario index. A pair without two replies is a problem.
pub fn judge_all(contract: &Contract, cases: &[Case], replies: &[Reply]) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (index, pair) in cases.chunks(2).enumerate() {
        let answers = replies.get(2 * index..2 * index + 2).unwrap_or_default();
        let fault = answers.iter().any(|r| matches!(r, Reply::Fault(_)));
        let verdict = match (pair.first(), answers) {
            (Some(plain), [a, b]) => judge_pair(contract, plain, [a, b]),
            _ => Err("no answer".to_owned()),
        };
        if let Err(text) = verdict {
            problems.push(Problem { index, text, fault });
        }
    }
    problems
}
