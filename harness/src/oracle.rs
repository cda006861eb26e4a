//! Expected outcomes straight from the reference crate, in this process:
//! what `make bless` writes and what generated scenarios are judged by.

use outbox_runner::scenario::{self, Outcome, Scenario};

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
    std::panic::catch_unwind(|| scenario::run(scenario)).unwrap_or_else(|panic| {
        let text = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default();
        Err(format!("the reference panicked: {text}"))
    })
}
