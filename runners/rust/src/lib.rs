//! The Rust side of the runner protocol (SPEC.md, "Runner protocol"): one
//! request per stdin line in, one answer per stdout line out, and the one
//! model of a case ([`scenario`]) that the parity harness shares.
//!
//! The same code serves the runner binary, the harness's oracle (expected
//! values come from [`scenario::run`]) and the harness's fake runners, so a
//! fake answers exactly as the reference does until it is told to misbehave.

pub mod bench;
pub mod demo;
pub mod protocol;
pub mod scenario;

pub use protocol::answer;
