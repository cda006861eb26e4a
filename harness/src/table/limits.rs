//! The limits a runner's answer is held to. They scale with the case, so
//! a limit no case rule states can never fail a valid table (SPEC.md,
//! "Runner protocol": answer lines).

use super::Scenario;

/// Room for an `error` answer's message, beyond what a case's own answer
/// can take (see [`answer_limit`]).
pub const ERROR_ROOM: usize = 64 * 1024;

/// The longest answer line read for a case: the most its own answer can
/// take (every pass a list, every id sent once, every row once in the
/// journal), with JSON's widest escapes (`\u00XX` for a byte, six for
/// one) and a space after every separator, plus [`ERROR_ROOM`]. It scales
/// with the case, so no valid case is over it, however large, and a
/// case's verdict never depends on the cases before it. What a session
/// keeps is bounded by the sum of its cases' limits, which is of the order
/// of the case table's own size.
///
/// Counted in u64, which cannot overflow: the case rules bound `passes`
/// (a million) and the rows by the case file's size.
pub fn answer_limit(name: &str, scenario: &Scenario) -> usize {
    // Each row: its id and separator in `sent`, its journal entry
    // `"<aggregate> <type>"` escaped at worst, and its separator.
    let row = |text: usize| 28 + 6 * text as u64;
    let rows = scenario.messages.iter();
    let rows: u64 = rows
        .map(|r| row(r.aggregate.len() + r.event_type.len() + 1))
        .sum();
    let limit = ERROR_ROOM as u64 + 6 * name.len() as u64 + 4 * scenario.passes + rows + 256;
    usize::try_from(limit).unwrap_or(usize::MAX)
}
