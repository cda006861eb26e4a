//! Differential checking: every language against the reference and against
//! the properties, on generated scenarios, with shrinking of what fails.
//!
//! Each scenario goes to a runner twice, as it is and with
//! `restart_each_pass`, in one stream with all the others: a relay rebuilt
//! at every pass boundary must not change the result.

use proptest::strategy::ValueTree;

use crate::case::{Case, Outcome};
use crate::compare::compare;
use crate::format;
use crate::generate::{draw, reference_outcome, Scenario, MAX_ROWS};
use crate::process::{Implementation, ProcessRunner};
use crate::properties;
use crate::protocol::Reply;

/// How many shrink steps to try at most, so a pathological runner cannot
/// keep the shrinker busy for ever.
const MAX_SHRINK_STEPS: usize = 1000;
/// How many smaller scenarios to draw in each search below a shrunk one.
const SMALLER_DRAWS: usize = 2000;

/// The two cases sent for scenario `index` of `seed`: as drawn, and with a
/// new relay before every pass.
pub fn case_pair(scenario: &Scenario, seed: u64, index: usize) -> [Case; 2] {
    let name = format!("generated-{seed}-{index}");
    let description = format!("Scenario {index} drawn from seed {seed}.");
    let plain = scenario.to_case(&name, &description, false);
    let mut restart = plain.clone();
    restart.name = format!("{name}-restart");
    restart.restart_each_pass = true;
    [plain, restart]
}

/// The cases for `count` scenarios of `seed`, pairs in order.
pub fn cases(seed: u64, count: usize) -> Vec<Case> {
    cases_up_to(seed, count, MAX_ROWS)
}

fn cases_up_to(seed: u64, count: usize, max_rows: usize) -> Vec<Case> {
    draw(seed, count, max_rows)
        .iter()
        .enumerate()
        .flat_map(|(index, tree)| case_pair(&tree.current(), seed, index))
        .collect()
}

/// Why one language's answers to a scenario pair are wrong, or `Ok`.
pub fn judge_pair(plain: &Case, replies: [&Reply; 2]) -> Result<(), String> {
    properties::check(plain, &plain.expect)
        .map_err(|broken| format!("the Rust reference itself breaks a property: {broken}"))?;
    let answer = answer_of(replies[0])?;
    properties::check(plain, answer).map_err(|broken| format!("breaks a property: {broken}"))?;
    compare(&plain.expect, answer)
        .map_err(|report| format!("disagrees with the reference:\n{report}"))?;
    let restarted = answer_of(replies[1])?;
    compare(answer, restarted).map_err(|report| {
        format!("gives another result with restart_each_pass (expected: without, actual: with):\n{report}")
    })?;
    Ok(())
}

fn answer_of(reply: &Reply) -> Result<&Outcome, String> {
    match reply {
        Reply::Answer(outcome) => Ok(outcome),
        Reply::Error(error) => Err(format!("answered with an error: {error}")),
        Reply::Fault(why) => Err(why.clone()),
    }
}

/// One scenario a language got wrong, shrunk.
#[derive(Debug, Clone)]
pub struct Finding {
    /// Where it was drawn: the seed and its index.
    pub seed: u64,
    /// The scenario's index under the seed.
    pub index: usize,
    /// What was wrong with the original scenario.
    pub problem: String,
    /// The smallest scenario found that still fails, as a case.
    pub shrunk: Case,
    /// What is wrong with the shrunk scenario.
    pub shrunk_problem: String,
    /// Whether the reference satisfies every property on the shrunk case,
    /// so its `expect` can be trusted.
    pub reference_is_right: bool,
}

/// Runs scenario pairs through `runner` and judges every answer; returns
/// the problems by scenario index.
pub fn check_all(runner: &dyn Implementation, cases: &[Case]) -> Vec<(usize, String)> {
    let refs: Vec<&Case> = cases.iter().collect();
    judge_all(cases, &runner.run(&refs))
}

/// [`check_all`] with the request lines made once for several runners.
pub fn check_all_lines(
    runner: &ProcessRunner,
    cases: &[Case],
    lines: &[String],
) -> Vec<(usize, String)> {
    let refs: Vec<&Case> = cases.iter().collect();
    judge_all(cases, &runner.run_lines(&refs, lines))
}

/// Judges the replies to scenario pairs (as [`cases`] makes them); returns
/// the problems by scenario index. A pair without two replies is a problem.
pub fn judge_all(cases: &[Case], replies: &[Reply]) -> Vec<(usize, String)> {
    let mut problems = Vec::new();
    for (index, pair) in cases.chunks(2).enumerate() {
        let answers = replies.get(2 * index..2 * index + 2).unwrap_or_default();
        let verdict = match (pair.first(), answers) {
            (Some(plain), [a, b]) => judge_pair(plain, [a, b]),
            _ => Err("no answer".to_owned()),
        };
        if let Err(problem) = verdict {
            problems.push((index, problem));
        }
    }
    problems
}

/// Shrinks scenario `index` of `seed`, which `runner` gets wrong, to the
/// smallest scenario it still gets wrong.
///
/// proptest shrinks a list only in its first round, so a shrunk scenario can
/// be stuck above the minimum (a failure on attempt 3 needs two messages
/// before it). So, after shrinking, fresh scenarios with fewer messages are
/// drawn and streamed through the runner; one that fails is shrunk in turn,
/// until no smaller one fails.
pub fn shrink(runner: &dyn Implementation, seed: u64, index: usize, problem: String) -> Finding {
    let tree = draw(seed, index + 1, MAX_ROWS)
        .pop()
        .expect("draw gives index + 1 trees");
    let (mut scenario, mut shrunk_problem) = shrink_tree(runner, tree, problem.clone());
    let mut round = 0u64;
    while !scenario.rows.is_empty() {
        round += 1;
        let round_seed = seed.wrapping_mul(1_000_003).wrapping_add(round);
        let smaller = scenario.rows.len() - 1;
        let candidates = cases_up_to(round_seed, SMALLER_DRAWS, smaller);
        let Some((i, candidate_problem)) = check_all(runner, &candidates).into_iter().next() else {
            break;
        };
        let tree = draw(round_seed, i + 1, smaller)
            .pop()
            .expect("draw gives i + 1 trees");
        (scenario, shrunk_problem) = shrink_tree(runner, tree, candidate_problem);
    }
    let name = format!("regression_s{seed}_{index}");
    let mut shrunk = scenario.to_case(&name, "", false);
    let reference_is_right = properties::check(&shrunk, &shrunk.expect).is_ok();
    shrunk.description = format!(
        "Found by the differential run (seed {seed}, scenario {index}) and shrunk: {}",
        first_line(&shrunk_problem)
    );
    Finding {
        seed,
        index,
        problem,
        shrunk,
        shrunk_problem,
        reference_is_right,
    }
}

/// proptest's shrink loop over one value tree: simplify while the runner
/// still fails, step back when it passes.
fn shrink_tree(
    runner: &dyn Implementation,
    mut tree: Box<dyn ValueTree<Value = Scenario>>,
    problem: String,
) -> (Scenario, String) {
    let fails = |scenario: &Scenario| -> Option<String> {
        let [plain, restart] = case_pair(scenario, 0, 0);
        let replies = runner.run(&[&plain, &restart]);
        match replies.as_slice() {
            [a, b] => judge_pair(&plain, [a, b]).err(),
            _ => Some("the runner did not answer".to_owned()),
        }
    };
    let mut smallest = (tree.current(), problem);
    if !tree.simplify() {
        return smallest;
    }
    for _ in 0..MAX_SHRINK_STEPS {
        let candidate = tree.current();
        let more = match fails(&candidate) {
            Some(problem) => {
                smallest = (candidate, problem);
                tree.simplify()
            }
            None => tree.complicate(),
        };
        if !more {
            break;
        }
    }
    smallest
}

fn first_line(text: &str) -> &str {
    text.lines()
        .next()
        .unwrap_or_default()
        .trim_end_matches(':')
}

impl Finding {
    /// A report ending in the shrunk scenario as a ready case for
    /// `cases/regressions.json`.
    pub fn report(&self, language: &str) -> String {
        let mut text = format!(
            "{language} got generated scenario {} of seed {} wrong: {}\n\nShrunk to {} message(s), it {}\n",
            self.index,
            self.seed,
            self.problem,
            self.shrunk.messages.len(),
            self.shrunk_problem
        );
        if self.reference_is_right {
            text.push_str("\nAs a ready case (expect from the reference; `make fuzz SAVE=1` appends such cases to cases/regressions.json):\n");
            text.push_str(&format::case_text(&self.shrunk, 0));
        } else {
            let broken =
                properties::check(&self.shrunk, &reference_outcome(&self.shrunk)).unwrap_err();
            text.push_str(&format!(
                "\nThe reference is wrong here too ({broken}), so no expect can be trusted; the case without it:\n"
            ));
            text.push_str(&format::case_text_without_expect(&self.shrunk, 0));
        }
        text.push('\n');
        text
    }
}
