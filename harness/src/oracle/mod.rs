//! Expected outcomes straight from the reference crate, in this process:
//! what `make bless` writes, what generated scenarios are judged by, what
//! a case's picture draws, and the reference's own answer to a request
//! line (for the in-process runner and the fake runners).
//!
//! The oracle is independent of the Rust runner it judges by construction:
//! it drives the reference's parts (table, broker, relay, consumer) and
//! speaks the shared model (`outbox_cases`), and nothing else is shared.
//! Its pass loop ([`passes`]) and its answers are written from SPEC.md in
//! their own shape (rows planned by pass, the outcome assembled by the
//! loop's hook, one answer line of either kind), so a bug in the runner
//! cannot become an expected value.

pub mod passes;

use outbox_cases::protocol::{decode, Refusal, Request};
use outbox_cases::{Outcome, Scenario};
use serde::Serialize;
use serde_json::Value;

use passes::{Hook, Pass};

/// What the Rust reference does with a scenario the harness validated.
///
/// # Panics
/// When the reference refuses it, which only a scenario the case rules
/// forbid (ids that do not increase) can make it do.
pub fn expect(scenario: &Scenario) -> Outcome {
    try_expect(scenario).unwrap_or_else(|e| panic!("the reference refused a valid scenario: {e}"))
}

/// What the Rust reference does with a scenario, or why it refused it; a
/// panic of the reference is caught and returned, so it is blamed on the
/// one scenario that caused it.
pub fn try_expect(scenario: &Scenario) -> Result<Outcome, String> {
    std::panic::catch_unwind(|| run(scenario)).unwrap_or_else(|panic| {
        let text = (panic.downcast_ref::<String>().map(String::as_str))
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        Err(format!("the reference panicked: {text}"))
    })
}

/// The outcome is what the hook assembles: each pass's ids go straight
/// into `sent`; the consumer's journal and count are read after the last.
impl<B: outbox::Broker> Hook<B> for Outcome {
    fn after(&mut self, pass: Pass) -> bool {
        self.sent.push(pass.sent);
        true
    }
}

/// Runs a scenario through the reference; `Err` is the reference's refusal.
pub fn run(scenario: &Scenario) -> Result<Outcome, String> {
    let mut broker = passes::broker(scenario);
    let mut outcome = Outcome::default();
    passes::drive(scenario, &mut broker, &mut outcome)?;
    let consumer = broker.consumer();
    Ok(Outcome {
        journal: consumer.journal().to_vec(),
        duplicates: consumer.duplicates(),
        ..outcome
    })
}

/// An answer line of either kind (SPEC.md, "Requests" and "Refusals"),
/// its fields in the order the protocol shows them.
#[derive(Serialize)]
#[serde(untagged)]
enum Line {
    Played {
        name: String,
        #[serde(flatten)]
        outcome: Outcome,
    },
    Refused {
        name: Value,
        error: String,
    },
}

/// The reference's answer to one request line, as one line (no newline):
/// what a correct runner prints for it.
pub fn answer(line: &str) -> String {
    let line = decode(line).map_or_else(
        |Refusal { name, error }| Line::Refused { name, error },
        |Request { name, scenario }| match run(&scenario) {
            Ok(outcome) => Line::Played { name, outcome },
            Err(error) => Line::Refused {
                name: name.into(),
                error,
            },
        },
    );
    serde_json::to_string(&line).expect("an answer line serializes")
}

#[cfg(test)]
mod tests;
