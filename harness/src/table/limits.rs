//! The limits a runner's answer is held to. They scale with the case, so
//! a limit no case rule states can never fail a valid table (SPEC.md,
//! "Runner protocol": answer lines).

use super::{Failure, Scenario};

/// Room for an `error` answer's message, beyond what a case's own answer
/// can take (see [`answer_limit`]).
pub const ERROR_ROOM: usize = 64 * 1024;

/// The longest answer line read for a case: the most its own answer can
/// take (every run a list of `sent`, and of `dead_letters` with an attempt
/// cap; every id sent or dead-lettered once; every row once in the
/// journal, and under a retention one entry again per scripted lost ack,
/// the only way to a redelivery), with JSON's widest escapes (`\u00XX` for
/// a byte, six for one) and a space after every separator, plus
/// [`ERROR_ROOM`]. It scales with the case, so no valid case is over it,
/// however large, and a case's verdict never depends on the cases before
/// it. What a session keeps is bounded by the sum of its cases' limits,
/// which is of the order of the case table's own size.
///
/// Counted in u64, which cannot overflow: the case rules bound the runs
/// (a million) and the rows and failures by the case file's size.
pub fn answer_limit(name: &str, scenario: &Scenario) -> usize {
    // Each row: its id and separator in `sent` or `dead_letters`, its
    // journal entry `"<aggregate> <type>"` escaped at worst, and its
    // separator.
    let entry = |text: usize| 6 * text as u64;
    let entries = scenario.messages.iter();
    let entries = entries.map(|r| entry(r.aggregate.len() + r.event_type.len() + 1));
    let (rows, widest) = entries.fold((0, 0), |(sum, most), e| (sum + 28 + e, most.max(e)));
    let lists = 4 + 4 * u64::from(scenario.max_attempts.is_some());
    let lost_ack = |failure: &&Failure| **failure == Failure::LostAck;
    let lost_acks = scenario.failures.values().filter(lost_ack).count() as u64;
    let again = scenario.retention.map_or(0, |_| lost_acks * (4 + widest));
    let limit =
        ERROR_ROOM as u64 + 6 * name.len() as u64 + lists * scenario.runs() + rows + again + 256;
    usize::try_from(limit).unwrap_or(usize::MAX)
}
