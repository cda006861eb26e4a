//! Generated scenarios: small outbox tables, failure scripts and batch sizes
//! drawn by proptest, which also shrinks a failing one to a minimal case.
//!
//! Every message gets its own event type, so a journal entry names exactly
//! one message and the properties can read the journal back to ids.

use std::collections::BTreeMap;
use std::path::PathBuf;

use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::case::{Case, Failure, Message, Outcome, MAX_ID};

/// A scenario before it becomes a case: what proptest draws and shrinks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    /// Ids strictly increasing, each with its aggregate's number.
    pub rows: Vec<(u64, u8)>,
    /// Attempt number to failure; some attempts are never reached.
    pub failures: BTreeMap<u64, Failure>,
    /// From 1 to past the table size.
    pub batch_size: u64,
    /// From 0 to enough for several retries.
    pub passes: u64,
}

/// The most messages a drawn scenario has.
pub const MAX_ROWS: usize = 10;

/// The strategy: up to `max_rows` messages over up to 4 aggregates, ids from
/// 1 or from just below 2^53-1, up to 5 scripted failures over the first 24
/// attempts, batch sizes 1 to 12, 0 to 7 passes.
pub fn scenarios(max_rows: usize) -> BoxedStrategy<Scenario> {
    let first_id = prop_oneof![3 => Just(0u64), 1 => Just(MAX_ID - 64)];
    let rows = vec((1u64..=4, 0u8..4), 0..=max_rows);
    let failure = prop_oneof![Just(Failure::Down), Just(Failure::LostAck)];
    // proptest shrinks a tuple's parts in order, and a list drops items
    // only in its first round: the failure script, batch size and passes
    // shrink first, so that fewer rows still fail when the list's turn comes.
    let failures = btree_map(1u64..=24, failure, 0..=5);
    (failures, 1u64..=12, 0u64..=7, rows, first_id)
        .prop_map(|(failures, batch_size, passes, gaps, first_id)| {
            let mut id = first_id;
            let rows = gaps
                .into_iter()
                .map(|(gap, aggregate)| {
                    id += gap;
                    (id, aggregate)
                })
                .collect();
            Scenario {
                rows,
                failures,
                batch_size,
                passes,
            }
        })
        .boxed()
}

/// The value trees of `count` scenarios of at most `max_rows` messages drawn
/// from `seed`: the same seed always gives the same scenarios, so a failure
/// can be drawn again to shrink.
pub fn draw(seed: u64, count: usize, max_rows: usize) -> Vec<Box<dyn ValueTree<Value = Scenario>>> {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    let strategy = scenarios(max_rows);
    (0..count)
        .map(|_| {
            strategy
                .new_tree(&mut runner)
                .expect("the scenario strategy never rejects")
        })
        .collect()
}

impl Scenario {
    /// The scenario as a case, `expect` computed by the Rust reference.
    pub fn to_case(&self, name: &str, description: &str, restart_each_pass: bool) -> Case {
        let messages = self
            .rows
            .iter()
            .enumerate()
            .map(|(i, &(id, aggregate))| Message {
                id,
                aggregate: format!("order-{}", aggregate + 1),
                event_type: format!("Event{}", i + 1),
            })
            .collect();
        let mut case = Case {
            file: PathBuf::from("(generated)"),
            name: name.to_owned(),
            description: description.to_owned(),
            batch_size: self.batch_size,
            messages,
            failures: self.failures.clone(),
            passes: self.passes,
            restart_each_pass,
            expect: Outcome {
                sent: Vec::new(),
                journal: Vec::new(),
                duplicates: 0,
            },
        };
        case.expect = reference_outcome(&case);
        case
    }
}

/// What the Rust reference does with a case, computed in this process.
pub fn reference_outcome(case: &Case) -> Outcome {
    use outbox_runner::{Request, WireFailure, WireMessage};
    let request = Request {
        name: case.name.clone(),
        batch_size: case.batch_size,
        messages: case
            .messages
            .iter()
            .map(|m| WireMessage {
                id: m.id,
                aggregate: m.aggregate.clone(),
                event_type: m.event_type.clone(),
            })
            .collect(),
        failures: case
            .failures
            .iter()
            .map(|(attempt, failure)| {
                let failure = match failure {
                    Failure::Down => WireFailure::Down,
                    Failure::LostAck => WireFailure::LostAck,
                };
                (attempt.to_string(), failure)
            })
            .collect(),
        passes: case.passes,
        restart_each_pass: case.restart_each_pass,
    };
    let outcome = outbox_runner::run_case(&request).expect("a valid case runs in the reference");
    Outcome {
        sent: outcome.sent,
        journal: outcome.journal,
        duplicates: outcome.duplicates,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_draws_the_same_scenarios() {
        let first: Vec<Scenario> = draw(7, 20, MAX_ROWS).iter().map(|t| t.current()).collect();
        let again: Vec<Scenario> = draw(7, 20, MAX_ROWS).iter().map(|t| t.current()).collect();
        assert_eq!(first, again);
        assert_ne!(
            first,
            draw(8, 20, MAX_ROWS)
                .iter()
                .map(|t| t.current())
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn scenarios_cover_the_edges() {
        let drawn: Vec<Scenario> = draw(1, 2000, MAX_ROWS)
            .iter()
            .map(|t| t.current())
            .collect();
        assert!(drawn.iter().any(|s| s.rows.is_empty()));
        assert!(drawn
            .iter()
            .any(|s| s.rows.last().is_some_and(|r| r.0 > MAX_ID - 64)));
        assert!(drawn.iter().all(|s| s.rows.iter().all(|r| r.0 <= MAX_ID)));
        assert!(drawn.iter().any(|s| s.batch_size as usize > s.rows.len()));
        assert!(drawn.iter().any(|s| s.passes == 0));
        assert!(drawn
            .iter()
            .any(|s| s.failures.values().any(|f| *f == Failure::LostAck)));
    }
}
