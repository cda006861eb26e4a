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

use crate::oracle;
use crate::table::{Case, Failure, Row, Scenario, MAX_ID};

/// A scenario as proptest draws and shrinks it, before it becomes a case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drawn {
    /// Ids strictly increasing, each with its aggregate's number and the
    /// pass after which it is written (never decreasing, at most `passes`).
    pub rows: Vec<DrawnRow>,
    /// Attempt number to failure; some attempts are never reached.
    pub failures: BTreeMap<u64, Failure>,
    /// From 1 to past the table size.
    pub batch_size: u64,
    /// From 0 to enough for several retries.
    pub passes: u64,
}

/// One drawn row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrawnRow {
    /// Outbox id.
    pub id: u64,
    /// Which of the four orders.
    pub aggregate: u8,
    /// Written after this pass (0: before the first).
    pub written_after_pass: u64,
}

/// The most messages a drawn scenario has.
pub const MAX_ROWS: usize = 10;

/// The strategy: up to `max_rows` messages over up to 4 aggregates, ids from
/// 1 or from just below 2^53-1, up to 5 scripted failures over the first 24
/// attempts, batch sizes 1 to 12, 0 to 7 passes; one row in five arrives a
/// pass or more after the one before it (after the table drained, or while
/// an order is blocked), and some after the last pass.
pub fn scenarios(max_rows: usize) -> BoxedStrategy<Drawn> {
    let first_id = prop_oneof![3 => Just(0u64), 1 => Just(MAX_ID - 64)];
    let later = prop_oneof![4 => Just(0u64), 1 => 1u64..=3];
    let rows = vec((1u64..=4, 0u8..4, later), 0..=max_rows);
    let failure = prop_oneof![Just(Failure::Down), Just(Failure::LostAck)];
    // proptest shrinks a tuple's parts in order, and a list drops items
    // only in its first round: the failure script, batch size and passes
    // shrink first, so that fewer rows still fail when the list's turn comes.
    let failures = btree_map(1u64..=24, failure, 0..=5);
    (failures, 1u64..=12, 0u64..=7, rows, first_id)
        .prop_map(|(failures, batch_size, passes, steps, first_id)| {
            let (mut id, mut written) = (first_id, 0u64);
            let rows = steps
                .into_iter()
                .map(|(gap, aggregate, later)| {
                    id += gap;
                    written = (written + later).min(passes);
                    DrawnRow {
                        id,
                        aggregate,
                        written_after_pass: written,
                    }
                })
                .collect();
            Drawn {
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
pub fn draw(seed: u64, count: usize, max_rows: usize) -> Vec<Box<dyn ValueTree<Value = Drawn>>> {
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

impl Drawn {
    /// The scenario of the case model. Every message gets its own event
    /// type, so a journal entry names exactly one message.
    pub fn scenario(&self, restart_each_pass: bool) -> Scenario {
        let scenario = Scenario {
            batch_size: self.batch_size,
            messages: self
                .rows
                .iter()
                .enumerate()
                .map(|(i, row)| Row {
                    written_after_pass: row.written_after_pass,
                    ..Row::new(
                        row.id,
                        format!("order-{}", row.aggregate + 1),
                        format!("Event{}", i + 1),
                    )
                })
                .collect(),
            failures: self.failures.clone(),
            passes: self.passes,
            ..Scenario::default()
        };
        Scenario {
            restart_each_pass,
            ..scenario
        }
    }

    /// The scenario as a case, `expect` computed by the Rust reference, or
    /// why the reference refused it.
    pub fn to_case(
        &self,
        name: &str,
        description: &str,
        restart_each_pass: bool,
    ) -> Result<Case, String> {
        let scenario = self.scenario(restart_each_pass);
        Ok(Case {
            file: PathBuf::from("(generated)"),
            name: name.to_owned(),
            description: description.to_owned(),
            expect: oracle::try_expect(&scenario)?,
            scenario,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drawn(seed: u64, count: usize) -> Vec<Drawn> {
        draw(seed, count, MAX_ROWS)
            .iter()
            .map(|t| t.current())
            .collect()
    }

    #[test]
    fn the_same_seed_draws_the_same_scenarios() {
        assert_eq!(drawn(7, 20), drawn(7, 20));
        assert_ne!(drawn(7, 20), drawn(8, 20));
    }

    #[test]
    fn scenarios_cover_the_edges() {
        let drawn = drawn(1, 2000);
        assert!(drawn.iter().any(|s| s.rows.is_empty()));
        assert!(drawn
            .iter()
            .any(|s| s.rows.last().is_some_and(|r| r.id > MAX_ID - 64)));
        assert!(drawn.iter().all(|s| s.rows.iter().all(|r| r.id <= MAX_ID)));
        assert!(drawn.iter().any(|s| s
            .rows
            .iter()
            .any(|r| r.written_after_pass > 0 && r.written_after_pass < s.passes)));
        assert!(drawn
            .iter()
            .any(|s| s.passes > 0 && s.rows.iter().any(|r| r.written_after_pass == s.passes)));
        assert!(drawn.iter().any(|s| s.batch_size as usize > s.rows.len()));
        assert!(drawn.iter().any(|s| s.passes == 0));
        assert!(drawn
            .iter()
            .any(|s| s.failures.values().any(|f| *f == Failure::LostAck)));
    }
}
