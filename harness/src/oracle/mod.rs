//! Expected outcomes straight from the reference crate, in this process:
//! what `make bless` writes, what generated scenarios are judged by, what
//! a case's picture draws, and the reference's own answer to a request
//! line (for the in-process runner and the fake runners).
//!
//! The judge shares no code with the Rust runner it judges: both run the
//! reference and speak the shared model (`outbox_cases`), but the pass loop
//! ([`passes`]) and the answering here are the harness's own, so a bug in
//! the runner cannot be copied into the expected values.

pub mod passes;

use outbox::{FlakyBroker, IdempotentConsumer};
use outbox_cases::protocol::{decode, Answer, Refusal, Request};
use outbox_cases::{Outcome, Scenario};

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
        let text = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default();
        Err(format!("the reference panicked: {text}"))
    })
}

/// Keeps what each pass sent.
struct Sent(Vec<Vec<u64>>);

impl<B: outbox::Broker> Hook<B> for Sent {
    fn after(&mut self, pass: Pass) -> bool {
        self.0.push(pass.sent);
        true
    }
}

/// Runs a scenario through the reference; `Err` is the reference's refusal.
pub fn run(scenario: &Scenario) -> Result<Outcome, String> {
    let mut broker = FlakyBroker::new(IdempotentConsumer::new(), passes::failures(scenario));
    let mut sent = Sent(Vec::new());
    passes::drive(scenario, &mut broker, &mut sent)?;
    let consumer = broker.consumer();
    Ok(Outcome {
        sent: sent.0,
        journal: consumer.journal().to_vec(),
        duplicates: consumer.duplicates(),
    })
}

/// The reference's answer to one request line, as one line (no newline):
/// what a correct runner prints for it.
pub fn answer(line: &str) -> String {
    let value = match decode(line) {
        Ok(Request { name, scenario }) => match run(&scenario) {
            Ok(outcome) => serde_json::to_value(Answer {
                name,
                sent: outcome.sent,
                journal: outcome.journal,
                duplicates: outcome.duplicates,
            })
            .expect("an answer serializes"),
            Err(error) => serde_json::json!({"name": name, "error": error}),
        },
        Err(Refusal { name, error }) => serde_json::json!({"name": name, "error": error}),
    };
    value.to_string()
}
