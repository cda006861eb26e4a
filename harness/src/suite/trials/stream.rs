//! What one language's runner stream is made of: the table's cases, the
//! generated scenarios, the protocol's refusals, in the order sent.

use super::Selection;
use crate::config::Kind;
use crate::judge::{Reason, Verdict};
use crate::protocol::{self, Request};
use crate::report::trial::RowId;
use crate::suite::Suite;
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

impl<'a> Stream<'a> {
    /// The stream for the trials `selection` names.
    pub(super) fn selected(suite: &'a Suite, selection: &Selection) -> Self {
        let selected = |case: &&Case| selection.0.contains(&RowId::Case(case.name.clone()));
        let table: Vec<&Case> = suite.cases.iter().filter(selected).collect();
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

    /// Every request of the stream, in the order it is sent.
    pub(super) fn requests(&self) -> Vec<Request> {
        let mut requests = Request::cases(self.table.iter().copied().chain(self.generated));
        requests.extend(self.refusals.iter().cloned());
        requests
    }
}
