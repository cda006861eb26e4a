//! The Rust runner (SPEC.md, "Runner protocol"): one request per stdin line
//! in, one answer per stdout line out, each case run through the reference
//! by its own pass loop ([`scenario::run`]), and the demo.
//!
//! The case model and the protocol's types are the shared `outbox_cases`
//! crate's; the harness that judges this runner depends on that crate and
//! on the reference, never on this one.

pub mod demo;
pub mod protocol;
pub mod scenario;

pub use protocol::answer;
