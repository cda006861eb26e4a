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
pub fn answer_limit(name: &str, scenario: &Scenario) -> usize {
    let passes = usize::try_from(scenario.passes).unwrap_or(usize::MAX);
    let rows: usize = scenario
        .messages
        .iter()
        .map(|row| {
            // The id and its separator in `sent`, the journal entry
            // `"<aggregate> <type>"` escaped at worst, and its separator.
            24usize
                .saturating_add(
                    row.aggregate
                        .len()
                        .saturating_add(row.event_type.len() + 1)
                        .saturating_mul(6),
                )
                .saturating_add(4)
        })
        .fold(0usize, usize::saturating_add);
    ERROR_ROOM
        .saturating_add(name.len().saturating_mul(6))
        .saturating_add(passes.saturating_mul(4))
        .saturating_add(rows)
        .saturating_add(256)
}
