//! What one language's runner stream is made of (the table's cases, the
//! generated scenarios, the protocol's refusals) and its answers split back
//! into those parts, so the trials judge each part on its own.

use super::Selection;
use crate::config::Kind;
use crate::judge::{Reason, Verdict};
use crate::protocol::{self, Reply, Request};
use crate::session::{Answers, Session};
use crate::suite::{repeat, Suite};
use crate::table::Case;

/// What a language's runner stream is made of, in the order it is sent.
pub(super) struct Stream<'a> {
    pub(super) table: Vec<&'a Case>,
    pub(super) generated: &'a [Case],
    /// Why the generated scenarios could not be made, when they were
    /// selected and could not.
    pub(super) generated_failure: Option<Verdict>,
    pub(super) refusals: Vec<Request>,
}

/// The replies to one part of the stream, and which of them changed
/// between the runs of `make test REPEAT=N`.
pub(super) struct Part {
    pub(super) replies: Vec<Reply>,
    pub(super) changed: Vec<Option<String>>,
}

/// A runner's answers split by the part of the stream they answer, and
/// its fault after the last answer.
pub(super) struct Split {
    pub(super) table: Part,
    pub(super) generated: Part,
    pub(super) refusals: Part,
    pub(super) after: Option<crate::fault::Fault>,
}

impl<'a> Stream<'a> {
    /// The stream for the trials `selection` names.
    pub(super) fn selected(suite: &'a Suite, selection: &Selection) -> Self {
        let table: Vec<&Case> = selection.cases.iter().map(|&i| &suite.cases[i]).collect();
        let (generated, generated_failure): (&[Case], Option<Verdict>) =
            match (selection.has(Kind::Generated), suite.generated_cases()) {
                (false, _) => (&[], None),
                (true, Ok(cases)) => (cases, None),
                (true, Err(why)) => (&[], Some(Verdict::Fail(Reason::Reference(why.to_owned())))),
            };
        let refusals = if selection.has(Kind::Protocol) {
            protocol::refusal_requests()
        } else {
            Vec::new()
        };
        Stream {
            table,
            generated,
            generated_failure,
            refusals,
        }
    }

    /// Whether there is nothing to send, so no runner need start.
    pub(super) fn is_empty(&self) -> bool {
        self.table.is_empty() && self.generated.is_empty() && self.refusals.is_empty()
    }

    /// The runner's answers to the whole stream (`repeat` times), split by
    /// the part of the stream they answer; the cases `expected` names may
    /// fault without using the runner's fault budget.
    pub(super) fn answer(
        &self,
        runner: &Session,
        expected: &dyn Fn(&str) -> bool,
        repeat: usize,
    ) -> Split {
        let mut requests = Request::cases(self.table.iter().copied().chain(self.generated));
        requests.extend(self.refusals.iter().cloned());
        let (Answers { mut replies, after }, mut changed) =
            repeat::answers(runner, &requests, expected, repeat);
        let table = self.table.len();
        let cases = table + self.generated.len();
        let refusals = Part {
            replies: replies.split_off(cases),
            changed: changed.split_off(cases),
        };
        let generated = Part {
            replies: replies.split_off(table),
            changed: changed.split_off(table),
        };
        Split {
            table: Part { replies, changed },
            generated,
            refusals,
            after,
        }
    }
}
