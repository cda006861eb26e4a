//! Shrinking a scenario a language gets wrong to the smallest one it still
//! gets wrong, and reporting it as a ready case.

use std::cell::Cell;

use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};

use super::generate::{draw, Draw};
use super::{case_pair, cases, check_all, properties, Problem, BY_REFERENCE};
use crate::oracle;
use crate::protocol::Request;
use crate::session::Session;
use crate::table::{layout, Case, Scenario};
use crate::text::first_line;

/// How many shrink steps to try at most, so a pathological runner cannot
/// keep the shrinker busy for ever.
const MAX_SHRINK_STEPS: u32 = 1000;
/// How many smaller scenarios to draw in each search below a shrunk one.
const SMALLER_DRAWS: usize = 2000;

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
    /// The property the reference breaks on the shrunk case, if any: then
    /// its `expect` cannot be trusted.
    pub reference_broken: Option<String>,
}

/// Shrinks scenario `index` of `seed`, which `runner` gets wrong, to the
/// smallest scenario it still gets wrong. A runner fault along the way (a
/// crash, a hang, a runner that cannot start) ends the shrinking with the
/// smallest failure found so far: a fault is not the failure being shrunk,
/// and retrying it would only restart a broken runner again and again.
///
/// proptest shrinks a list only in its first round, so a shrunk scenario can
/// be stuck above the minimum (a failure on attempt 3 needs two messages
/// before it). So, after shrinking, fresh scenarios with fewer messages are
/// drawn and streamed through the runner; one that fails is shrunk in turn,
/// until no smaller one fails.
pub fn shrink(runner: &Session, at: (u64, Draw), index: usize, problem: String) -> Finding {
    let (seed, drawn) = at;
    let faulted = Cell::new(false);
    let tree = nth(seed, index, drawn);
    let (mut scenario, mut shrunk_problem) = shrink_tree(runner, &faulted, tree, problem.clone());
    let mut round = 0u64;
    while !faulted.get() && !scenario.messages.is_empty() {
        round += 1;
        let round_seed = seed.wrapping_mul(1_000_003).wrapping_add(round);
        let smaller = Draw {
            rows: scenario.messages.len() - 1,
            ..drawn
        };
        let Ok(candidates) = cases(round_seed, SMALLER_DRAWS, smaller) else {
            break;
        };
        let Some(wrong) = first_wrong(runner, &faulted, &candidates) else {
            break;
        };
        let tree = nth(round_seed, wrong.index, smaller);
        (scenario, shrunk_problem) = shrink_tree(runner, &faulted, tree, wrong.text);
    }
    let expect = oracle::try_expect(&scenario).unwrap_or_default();
    let reference_broken = properties::check(&scenario, &expect).err();
    let shrunk = Case {
        file: "(generated)".into(),
        name: format!("regression_s{seed}_{index}"),
        description: format!(
            "Found by the differential run (seed {seed}, scenario {index}) and shrunk: {}",
            first_line(&shrunk_problem).trim_end_matches(':')
        ),
        scenario,
        expect: oracle::fields(&expect),
        features: Default::default(),
    };
    Finding {
        seed,
        index,
        problem,
        shrunk,
        shrunk_problem,
        reference_broken,
    }
}

/// The value tree of scenario `index` of `seed`.
fn nth(seed: u64, index: usize, drawn: Draw) -> Box<dyn ValueTree<Value = Scenario>> {
    let mut trees = draw(seed, index + 1, drawn);
    trees.pop().expect("draw gives index + 1 trees")
}

/// proptest's own shrink loop over one value tree, the runner as the test;
/// at the runner's first fault `faulted` is set and every later candidate
/// passes untried, so proptest settles back on the smallest failure.
fn shrink_tree(
    runner: &Session,
    faulted: &Cell<bool>,
    tree: Box<dyn ValueTree<Value = Scenario>>,
    problem: String,
) -> (Scenario, String) {
    // proptest tries the tree's current value first: the original, which the
    // caller has seen fail with `problem`, so the runner is not asked again.
    let first = Cell::new(true);
    let test = |scenario: Scenario| {
        if first.replace(false) {
            return Err(TestCaseError::fail(problem.clone()));
        }
        if faulted.get() {
            return Ok(());
        }
        let pair = case_pair(&scenario, 0, 0).ok();
        let wrong = pair.and_then(|pair| first_wrong(runner, faulted, &pair));
        wrong.map_or(Ok(()), |wrong| Err(TestCaseError::fail(wrong.text)))
    };
    let original = tree.current();
    let config = Config {
        max_shrink_iters: MAX_SHRINK_STEPS,
        ..Config::default()
    };
    match TestRunner::new(config).run_one(tree, test) {
        Err(TestError::Fail(why, smallest)) => (smallest, why.message().to_owned()),
        _ => (original, problem),
    }
}

/// The first scenario of `cases` (pairs, as [`cases`] makes them)
/// that `runner` gets wrong. A runner fault is not the failure being
/// shrunk: it sets `faulted` and gives `None`, so the runner is not started
/// again and again.
fn first_wrong(runner: &Session, faulted: &Cell<bool>, cases: &[Case]) -> Option<Problem> {
    let checked = check_all(runner, cases, &Request::cases(cases));
    let first = checked.problems.into_iter().next();
    if checked.runner_fault.is_some() || first.as_ref().is_some_and(|p| p.fault) {
        faulted.set(true);
        return None;
    }
    first
}

impl Finding {
    /// A report ending in the shrunk scenario as a ready case for
    /// `cases/regressions.json`; it blames the reference, not `language`,
    /// when the reference's own outcome is what is wrong.
    pub fn report(&self, language: &str) -> String {
        let who = match self.shrunk_problem.starts_with(BY_REFERENCE) {
            true => format!("the Rust reference, not {language},"),
            false => language.to_owned(),
        };
        let mut text = format!(
            "{who} got generated scenario {} of seed {} wrong: {}\n\nShrunk to {} message(s): {}\n",
            self.index,
            self.seed,
            self.problem,
            self.shrunk.scenario.messages.len(),
            self.shrunk_problem
        );
        match &self.reference_broken {
            None => text.push_str("\nAs a ready case (expect from the reference; `make fuzz SAVE=1` appends such cases to cases/regressions.json):\n"),
            Some(broken) => text.push_str(&format!(
                "\nThe reference is wrong here too ({broken}), so no expect can be trusted; the case without it:\n"
            )),
        }
        let trusted = self.reference_broken.is_none();
        text.push_str(&layout::case_text(&self.shrunk, trusted));
        text.push('\n');
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A finding whose shrunk problem is the reference's own outcome
    /// breaking a property blames the reference, not the port; and a
    /// port's reads as one sentence (it read "it the Rust reference").
    #[test]
    fn a_report_blames_the_side_that_is_wrong() {
        let finding = |shrunk_problem: &str| Finding {
            seed: 1,
            index: 4,
            problem: "breaks a property: x".into(),
            shrunk: Case {
                name: "regression_s1_4".into(),
                description: "shrunk".into(),
                ..Case::default()
            },
            shrunk_problem: shrunk_problem.into(),
            reference_broken: None,
        };
        let reference = finding(&format!("{BY_REFERENCE}: y")).report("go");
        let blamed = "the Rust reference, not go, got generated scenario 4 of seed 1 wrong";
        assert!(reference.starts_with(blamed), "{reference}");
        assert!(!reference.contains(" it the "), "{reference}");
        let port = finding("disagrees with the reference: z").report("go");
        let (by_port, shrunk) = (
            "go got generated scenario 4 of seed 1 wrong",
            "Shrunk to 0 message(s): disagrees with the reference: z",
        );
        assert!(port.starts_with(by_port), "{port}");
        assert!(port.contains(shrunk), "{port}");
    }
}
