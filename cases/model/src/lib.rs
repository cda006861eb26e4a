//! The one model of a case and of the runner protocol (SPEC.md, "Case file
//! format" and "Runner protocol"), beside the case table it describes.
//!
//! It belongs to no port: the harness reads case files into it and writes
//! request lines from it, the Rust runner decodes requests into it, and
//! neither depends on the other. A new optional case field is added here
//! (and in `cases/schema.json`, the runners and the docs), nowhere else.

pub mod file;
pub mod protocol;
pub mod scenario;

pub use file::{CaseFile, CaseSpec};
pub use protocol::{decode, Answer, CaseRequest, Refusal, Request, VERSION};
pub use scenario::{Failure, Fetch, MessageId, OnExhausted, Outcome, Row, Scenario, Unpark};
