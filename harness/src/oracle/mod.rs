//! Expected outcomes straight from the reference crate, in this process:
//! what `make bless` writes, what generated scenarios are judged by, what
//! a case's picture draws, and the reference's own answer to a request
//! line (for the fake runners).
//!
//! The oracle is independent of the Rust runner it judges by construction:
//! it drives the reference's parts (table, broker, relay, consumer) and
//! speaks the shared model (`outbox_cases`), and nothing else is shared.
//! Its pass loop ([`passes`]) is written from SPEC.md in its own shape
//! (rows planned by pass, each run through a hook), and the outcome is
//! assembled here, once, so a bug in the runner cannot become an expected
//! value.

pub mod passes;

use outbox_cases::protocol::{decode, Answer, Refusal, Request};
use outbox_cases::{Outcome, Scenario};
use serde_json::Value;

use crate::contract::Fields;

/// What the Rust reference does with a scenario the harness validated, as
/// data: what a case's `expect` holds.
///
/// # Panics
/// When the reference refuses it, which only a scenario the case rules
/// forbid (ids that do not increase) can make it do.
pub fn expect(scenario: &Scenario) -> Fields {
    let outcome = try_expect(scenario);
    fields(&outcome.unwrap_or_else(|e| panic!("the reference refused a valid scenario: {e}")))
}

/// What the Rust reference does with a scenario, or why it refused it; a
/// panic of the reference is caught and returned, so it is blamed on the
/// one scenario that caused it.
pub fn try_expect(scenario: &Scenario) -> Result<Outcome, String> {
    std::panic::catch_unwind(|| play(scenario)).unwrap_or_else(|panic| {
        let text = (panic.downcast_ref::<String>().map(String::as_str))
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        Err(format!("the reference panicked: {text}"))
    })
}

/// An outcome as data, as a case's `expect` holds it.
pub fn fields(outcome: &Outcome) -> Fields {
    match serde_json::to_value(outcome) {
        Ok(Value::Object(fields)) => fields,
        other => panic!("an outcome serializes to an object, not {other:?}"),
    }
}

/// Plays a scenario through the reference's parts ([`passes::drive`])
/// and assembles the outcome: each run's ids sent, the consumer's journal
/// and count, and with an attempt cap each run's dead letters. `Err` is
/// the reference's refusal of a row.
fn play(scenario: &Scenario) -> Result<Outcome, String> {
    let mut broker = passes::broker(scenario);
    let played = passes::drive(scenario, &mut broker, &mut passes::Plain)?;
    let consumer = broker.consumer();
    Ok(Outcome {
        sent: played.sent,
        journal: consumer.journal().to_vec(),
        duplicates: consumer.duplicates(),
        dead_letters: scenario.max_attempts.map(|_| played.dead_letters),
    })
}

/// The reference's answer to one request line, as one line (no newline):
/// what a correct runner prints for it (SPEC.md, "Requests" and
/// "Refusals").
pub fn answer(line: &str) -> String {
    let refused = |name: Value, error: String| serde_json::json!({"name": name, "error": error});
    let answer = match decode(line) {
        Err(Refusal { name, error }) => refused(name, error),
        Ok(Request { name, scenario }) => match try_expect(&scenario) {
            Ok(outcome) => {
                serde_json::to_value(Answer { name, outcome }).expect("an answer serializes")
            }
            Err(error) => refused(name.into(), error),
        },
    };
    answer.to_string()
}

#[cfg(test)]
mod tests;
