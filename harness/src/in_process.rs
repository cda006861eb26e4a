//! The reference behind the [`Runner`] interface, in this process: a
//! differential run or a shrink can be tried, and the harness's own tests
//! can check the judging code, without starting a process.

use outbox_cases::protocol::decode;

use crate::protocol::{Reply, Request};
use crate::session::{Answers, Runner};

/// The reference as a [`Runner`]: each request line decoded as a runner
/// decodes it and played by the oracle, in this process, so a
/// differential run or a shrink can be tried without starting a process.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reference;

impl Runner for Reference {
    fn answer(&self, requests: &[Request], _: &dyn Fn(&str) -> bool) -> Answers {
        let reply = |request: &Request| match decode(&request.line) {
            Ok(case) => {
                crate::oracle::try_expect(&case.scenario).map_or_else(Reply::Error, Reply::Answer)
            }
            Err(refusal) => Reply::Error(refusal.error),
        };
        Answers {
            replies: requests.iter().map(reply).collect(),
            after: None,
        }
    }
}
