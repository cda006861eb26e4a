//! Generated scenarios: outbox tables, failure scripts and batch sizes
//! drawn by proptest, which also shrinks a failing one to a minimal case.
//!
//! Sizes are skewed: about four in five scenarios are as small as a case
//! of the table, one in five has up to 30 rows, one in thirty-odd up to
//! 300 rows over up to 150 orders, since some bugs only show past a size (a
//! consumer that forgets old ids, a table that caps its batch). Failures come in
//! runs: the message a run starts on fails that many times in a row (a
//! relay that gives up on a message after a few failures, a redelivery
//! after many other messages), late in a long stream as well; [`Planned`]
//! turns the runs into the attempt numbers a case's `failures` names.
//!
//! Every message gets its own event type, so a journal entry names exactly
//! one message and the properties can read the journal back to ids.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use outbox::{Broker, Message, MessageId, PublishFailed};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::oracle::passes;
use crate::table::{Failure, Row, Scenario, MAX_ID};

/// The most messages a drawn scenario has.
pub const MAX_ROWS: usize = 300;

/// What a run draws: scenarios of at most `rows` messages, with the
/// features' fields or without (`make fuzz --no-features`, for the rate
/// they cost).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Draw {
    /// The most messages a scenario has ([`MAX_ROWS`] but when shrinking).
    pub rows: usize,
    /// Whether the features' fields are drawn.
    pub features: bool,
}

impl Draw {
    /// Every size and every feature: the `generated` trial's and `make
    /// fuzz`'s draw.
    pub const ALL: Draw = Draw {
        rows: MAX_ROWS,
        features: true,
    };
}

/// The features' fields, drawn raw (a schedule of 20 passes, unparks
/// after passes 1 to 20, of orders that may not exist): [`scenarios`] fits
/// them to the scenario's passes, so shrinking keeps them valid. Half the
/// scenarios draw none, so today's stay common; the others each feature
/// with odds of two in five, combined; `features` false draws none.
fn drawn_features(features: bool) -> BoxedStrategy<Scenario> {
    use outbox_cases::{Fetch, OnExhausted, Unpark};
    use proptest::option::weighted;
    if !features {
        return Just(Scenario::default()).boxed();
    }
    let odds = 0.4;
    let unpark = (1u64..=4, 1u64..=20).prop_map(|(order, after_pass)| Unpark {
        aggregate: format!("order-{order}"),
        after_pass,
    });
    let park = prop_oneof![Just(OnExhausted::Release), Just(OnExhausted::Park)];
    let cap = (1u64..=4, weighted(0.7, park), vec(unpark, 0..=2));
    let relays = (1u64..=5, weighted(0.5, vec(vec(0u64..8, 0..=3), 20)));
    let fetch = prop_oneof![Just(Fetch::Rows), Just(Fetch::Heads)];
    let drawn = (
        weighted(odds, cap),
        weighted(odds, 1u64..=4),
        weighted(odds, relays),
    );
    let drawn = (drawn, weighted(odds, fetch)).prop_map(|((cap, retention, relays), fetch)| {
        let on_exhausted = cap.as_ref().and_then(|(_, on_exhausted, _)| *on_exhausted);
        let park = on_exhausted == Some(OnExhausted::Park);
        Scenario {
            max_attempts: cap.as_ref().map(|(max_attempts, ..)| *max_attempts),
            on_exhausted,
            unpark: cap.and_then(|(.., unpark)| park.then_some(unpark)),
            retention,
            relays: relays.as_ref().map(|(relays, _)| *relays),
            schedule: relays.and_then(|(_, schedule)| schedule),
            fetch,
            ..Scenario::default()
        }
    });
    prop_oneof![Just(Scenario::default()), drawn].boxed()
}

/// The strategy: up to 5 runs of failures (half of one attempt, the others
/// of 2 to 12, each of one failure), starting on one of attempts 1 to 24,
/// or in a stream of more than 10 rows on one of 24 starts a tenth of its
/// rows apart; a size class (below); ids from 1 or from just below 2^53-1.
/// Some rows arrive a pass or more after the one before them (after the
/// table drained, or while an order is blocked), some after the last pass.
pub fn scenarios(drawing: Draw) -> BoxedStrategy<Scenario> {
    let max_rows = drawing.rows;
    let failure = prop_oneof![Just(Failure::Down), Just(Failure::LostAck)];
    let length = prop_oneof![Just(1u64), 2u64..=12];
    // A batch size of up to `batch`, up to `passes` passes, up to `rows`
    // rows over up to `orders` orders, one in `later` written 1 to 3
    // passes after the one before it (one range, not a union of two: a
    // union's tree costs a copy of the runner, and there is one per row).
    let class = |batch: u64, passes: u64, rows: usize, orders: u64, later: u64| {
        let late = (0..3 * later).prop_map(move |n| (n + 4).saturating_sub(3 * later));
        let rows = vec((1u64..=4, 0..orders, late), 0..=rows.min(max_rows));
        (1..=batch, 0..=passes, rows)
    };
    // proptest shrinks a tuple's parts in order, and a list drops items
    // only in its first round: the failure script, batch size and passes
    // shrink first, so that fewer rows still fail when the list's turn comes.
    let size = prop_oneof![
        80 => class(12, 7, 10, 4, 5),
        20 => class(40, 12, 30, 10, 8),
        3 => class(400, 20, MAX_ROWS, 150, 40),
    ];
    let runs = vec((1u64..=24, length, failure), 0..=5);
    let first_id = prop_oneof![3 => Just(0u64), 1 => Just(MAX_ID - 64)];
    (runs, size, first_id, drawn_features(drawing.features))
        .prop_map(|(runs, (batch_size, passes, steps), first_id, drawn)| {
            let apart = (steps.len() as u64).div_ceil(10).max(1);
            let runs = (runs.into_iter()).map(|(at, n, f)| (1 + (at - 1) * apart, (n, f)));
            let (mut id, mut written) = (first_id.min(MAX_ID - 4 * steps.len() as u64), 0);
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
            let relays = drawn.relays.unwrap_or(1);
            let fit = |list: Vec<u64>| list.into_iter().map(|relay| relay % relays).collect();
            let lists = usize::try_from(passes).unwrap_or(usize::MAX);
            let mut scenario = Scenario {
                batch_size,
                messages,
                passes,
                unpark: (drawn.unpark.clone())
                    .map(|all| all.into_iter().filter(|u| u.after_pass <= passes).collect()),
                schedule: (drawn.schedule.clone())
                    .map(|all| all.into_iter().take(lists).map(fit).collect()),
                ..drawn
            };
            scenario.failures = Planned::play(&scenario, runs.collect()).script;
            scenario
        })
        .boxed()
}

/// A broker that fails as a plan of runs says, numbering its attempts as
/// the reference's `FlakyBroker` does: the message a run starts on fails
/// that many times in a row (on its later attempts, however far apart).
/// Played through the reference's relay, it writes down the `failures`
/// script that makes a `FlakyBroker` fail alike.
#[derive(Default)]
struct Planned {
    /// The attempt a run starts on, to its length and failure.
    plan: BTreeMap<u64, (u64, Failure)>,
    attempts: u64,
    /// Each message's run: the failures to come, which, and how many so far.
    runs: HashMap<MessageId, (u64, Failure, u64)>,
    script: BTreeMap<u64, Failure>,
}

impl Planned {
    /// Plays `scenario` (its `failures` aside) under `plan`; a run planned
    /// past the last attempt stays in the script, an attempt never reached.
    fn play(scenario: &Scenario, plan: BTreeMap<u64, (u64, Failure)>) -> Planned {
        let mut planned = Planned {
            plan,
            ..Planned::default()
        };
        passes::drive(scenario, &mut planned, &mut passes::Plain).expect("ids increase");
        let unreached = planned.plan.range(planned.attempts + 1..);
        (planned.script).extend(unreached.map(|(&at, &(_, failure))| (at, failure)));
        planned
    }
}

impl passes::Clocked for Planned {
    /// No consumer is behind it: the relay's attempts do not depend on one.
    fn tick(&mut self) {}
}

impl Broker for Planned {
    fn publish(&mut self, message: &Message) -> Result<(), PublishFailed> {
        self.attempts += 1;
        let run = (self.runs.entry(message.id)).or_insert((0, Failure::Down, 0));
        if let (0, Some(&(length, failure))) = (run.0, self.plan.get(&self.attempts)) {
            (run.0, run.1) = (length, failure);
        }
        if run.0 == 0 {
            return Ok(());
        }
        (run.0, run.2) = (run.0 - 1, run.2 + 1);
        self.script.insert(self.attempts, run.1);
        // The relay cannot tell a lost ack from a broker down (SPEC.md).
        Err(PublishFailed {
            failure: outbox::Failure::Down,
        })
    }
}

/// How large `scenario` is on each axis the strategy stretches: rows,
/// orders, the most failures of one message in a row (its failures played
/// through the reference's relay), batch size, passes; `make fuzz` reports the
/// largest drawn, so a run shows what it reached.
pub fn sizes(scenario: &Scenario) -> [u64; 5] {
    let script = scenario.failures.iter().map(|(&at, &f)| (at, (1, f)));
    let runs = Planned::play(scenario, script.collect()).runs;
    let run = runs.values().map(|&(_, _, failed)| failed).max();
    let orders: BTreeSet<&str> = scenario.messages.iter().map(|r| &*r.aggregate).collect();
    let (rows, orders) = (scenario.messages.len() as u64, orders.len() as u64);
    [
        rows,
        orders,
        run.unwrap_or(0),
        scenario.batch_size,
        scenario.passes,
    ]
}

/// The value trees of `count` scenarios drawn from `seed` as `drawn` says: the same seed always gives the same scenarios, so a failure
/// can be drawn again to shrink.
pub fn draw(seed: u64, count: usize, drawn: Draw) -> Vec<Box<dyn ValueTree<Value = Scenario>>> {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    let strategy = scenarios(drawn);
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
        draw(seed, count, Draw::ALL)
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
        let any =
            |holds: &dyn Fn(&Scenario, [u64; 5]) -> bool| drawn.iter().any(|s| holds(s, sizes(s)));
        let last_id = |s: &Scenario| s.messages.last().map_or(0, |r| r.id);
        let lost_ack = |s: &Scenario| s.failures.values().any(|f| *f == Failure::LostAck);
        assert!(any(&|s, _| s.messages.is_empty()));
        assert!(any(&|s, _| last_id(s) > MAX_ID - 64));
        assert!(!any(&|s, _| s.messages.iter().any(|r| r.id > MAX_ID)));
        let written = |s: &Scenario, k: &dyn Fn(u64) -> bool| {
            s.messages.iter().any(|r| k(r.written_after_pass))
        };
        assert!(any(&|s, _| written(s, &|k| k > 0 && k < s.passes)));
        assert!(any(&|s, _| s.passes > 0 && written(s, &|k| k == s.passes)));
        assert!(any(&|s, _| s.passes == 0));
        assert!(any(&|s, _| lost_ack(s)));
        // Far past the small: hundreds of rows and orders, batches above
        // the row count and between, long runs of failures, a redelivery
        // after attempt 24 in a longer stream (no lost ack before it).
        assert!(any(&|_, [rows, orders, ..]| rows >= 200 && orders >= 50));
        assert!(any(&|_, [rows, _, _, batch, _]| batch > rows));
        assert!(any(&|_, [rows, _, _, batch, _]| batch > 12 && batch < rows));
        assert!(any(&|_, [_, _, run, ..]| run >= 8));
        let late = |s: &Scenario| s.failures.range(..25).all(|(_, f)| *f == Failure::Down);
        let redelivered_late =
            |s: &Scenario| late(s) && crate::oracle::try_expect(s).unwrap().duplicates > 0;
        assert!(any(&|s, [rows, ..]| rows >= 20 && redelivered_late(s)));
    }

    /// The features are drawn combined, a schedule and an unpark among
    /// them, and over half the scenarios draw none.
    #[test]
    fn features_are_drawn_together_and_most_scenarios_have_none() {
        let drawn = drawn(1, 2000);
        let unparks = |s: &Scenario| s.unpark.as_ref().is_some_and(|u| !u.is_empty());
        let all = |s: &Scenario| s.schedule.is_some() && s.retention.is_some() && s.fetch.is_some();
        assert!(drawn.iter().any(|s| unparks(s) && all(s)));
        let plain =
            |s: &&Scenario| (s.max_attempts, s.retention, s.relays, s.fetch) == Default::default();
        assert!(drawn.iter().filter(plain).count() > drawn.len() / 2);
    }
}
