//! Generated scenarios: small outbox tables, failure scripts and batch sizes
//! drawn by proptest, which also shrinks a failing one to a minimal case.
//!
//! Every message gets its own event type, so a journal entry names exactly
//! one message and the properties can read the journal back to ids.

use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::table::{Failure, Row, Scenario, MAX_ID};

/// The most messages a drawn scenario has.
pub const MAX_ROWS: usize = 10;

/// The strategy: up to `max_rows` messages over up to 4 aggregates, ids from
/// 1 or from just below 2^53-1, up to 5 scripted failures over the first 24
/// attempts, batch sizes 1 to 12, 0 to 7 passes; one row in five arrives a
/// pass or more after the one before it (after the table drained, or while
/// an order is blocked), and some after the last pass.
pub fn scenarios(max_rows: usize) -> BoxedStrategy<Scenario> {
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
            let messages = (steps.into_iter().enumerate())
                .map(|(i, (gap, aggregate, later))| {
                    id += gap;
                    written = (written + later).min(passes);
                    Row {
                        written_after_pass: written,
                        ..Row::new(
                            id,
                            format!("order-{}", aggregate + 1),
                            format!("Event{}", i + 1),
                        )
                    }
                })
                .collect();
            Scenario {
                batch_size,
                messages,
                failures,
                passes,
                ..Scenario::default()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn drawn(seed: u64, count: usize) -> Vec<Scenario> {
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
        assert!(drawn.iter().any(|s| s.messages.is_empty()));
        assert!(drawn
            .iter()
            .any(|s| s.messages.last().is_some_and(|r| r.id > MAX_ID - 64)));
        assert!(drawn
            .iter()
            .all(|s| s.messages.iter().all(|r| r.id <= MAX_ID)));
        assert!(drawn.iter().any(|s| s
            .messages
            .iter()
            .any(|r| r.written_after_pass > 0 && r.written_after_pass < s.passes)));
        assert!(drawn
            .iter()
            .any(|s| s.passes > 0 && s.messages.iter().any(|r| r.written_after_pass == s.passes)));
        assert!(drawn
            .iter()
            .any(|s| s.batch_size as usize > s.messages.len()));
        assert!(drawn.iter().any(|s| s.passes == 0));
        assert!(drawn
            .iter()
            .any(|s| s.failures.values().any(|f| *f == Failure::LostAck)));
    }
}
