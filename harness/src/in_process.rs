//! The reference behind the [`Runner`] interface, in this process: a
//! differential run or a shrink can be tried, and the harness's own tests
//! can check the judging code, without starting a process.

use crate::protocol::{parse_answer, Reply, Request};
use crate::session::{Answers, Runner};

/// The reference as a [`Runner`]: it answers each request line in this
/// process exactly as the Rust runner binary does, so a differential run
/// or a shrink can be tried without starting a process.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reference;

impl Runner for Reference {
    fn answer(&self, requests: &[Request], _: &dyn Fn(&str) -> bool) -> Answers {
        let replies = requests
            .iter()
            .map(|request| {
                let answer = crate::oracle::answer(&request.line);
                parse_answer(answer.as_bytes(), &request.name).unwrap_or_else(|bad| {
                    Reply::Fault(Box::new(crate::fault::Fault {
                        runner: "the reference".to_owned(),
                        kind: crate::fault::FaultKind::BadReference {
                            why: format!("{bad:?}"),
                        },
                        stderr: crate::fault::Stderr::NotShown,
                    }))
                })
            })
            .collect();
        Answers {
            replies,
            after: None,
        }
    }
}
