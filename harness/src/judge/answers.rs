//! Verdicts on what a runner answered: a case's reply, the generated
//! scenarios' and the protocol's refusals, a fault after the last answer.
//! Pure: the answers are the executor's, the shrunk case too.

use std::path::Path;

use super::{Carrier, CaseHeader, Reason, Refusals, RunnerFault, Verdict};
use crate::config::{GENERATED_COUNT, GENERATED_SEED};
use crate::fault::Fault;
use crate::protocol::{self, Reply};
use crate::table::Case;
use crate::toolchain::NotReady;

/// The verdict of each of a language's replies to `cases` (its known
/// failures not applied); `root`: what the cases' files are shown from.
pub fn answers(root: &Path, language: &str, cases: &[&Case], replies: Vec<Reply>) -> Vec<Verdict> {
    let verdict = |case: &Case, reply| {
        let case_header = CaseHeader::of(case, root);
        Verdict::Fail(match reply {
            Reply::Answer(actual) if actual == case.expect => return Verdict::Pass,
            Reply::Answer(actual) => Reason::Mismatch {
                case: case_header,
                expected: Box::new(case.expect.clone()),
                actual: Box::new(actual),
            },
            Reply::Error(error) => Reason::ErrorAnswer {
                case: case_header,
                language: language.to_owned(),
                error,
            },
            Reply::Fault(fault) => Reason::Fault {
                case: case_header,
                fault,
            },
        })
    };
    cases
        .iter()
        .zip(replies)
        .map(|(case, reply)| verdict(case, reply))
        .collect()
}

/// The verdict for every trial of a language that is not ready: a
/// missing toolchain is ignored with the reason, unless `strict`.
pub fn not_ready(strict: bool, why: &NotReady) -> Verdict {
    match why {
        NotReady::Missing { .. } if !strict => Verdict::Ignore(format!(
            "{why}, or set PARITY_STRICT=1 to make this a failure"
        )),
        _ => Verdict::Fail(Reason::NotReady(why.clone())),
    }
}

/// The verdict of the last case of a stream whose runner faulted after its
/// last answer: a failure that names the runner, not the case.
pub fn after_last_answer(fault: &Fault, verdict: &Verdict) -> Verdict {
    if matches!(verdict, Verdict::Ignore(_)) {
        return verdict.clone();
    }
    Verdict::Fail(Reason::Runner(RunnerFault {
        fault: Box::new(fault.clone()),
        carrier: Carrier::LastCase(Box::new(verdict.clone())),
    }))
}

/// A runner's replies to the refusals the protocol requires; a fault
/// after its last answer is the runner's and shows here.
pub fn refusals(runner: &str, replies: &[Reply], after: Option<Fault>) -> Verdict {
    let problems = protocol::judge_refusals(replies);
    if problems.is_empty() && after.is_none() {
        return Verdict::Pass;
    }
    Verdict::Fail(Reason::Protocol(Refusals {
        runner: runner.to_owned(),
        problems,
        after: after.map(Box::new),
    }))
}

/// The fixed-seed scenarios' verdict: how many `failed`, the index and
/// text of those the runner faulted on, the first wrong one `shrunk` to a
/// ready case; a runner fault (on a scenario, or `after` the last answer)
/// is shown as it is, never shrunk.
pub fn generated(
    failed: usize,
    faults: &[(usize, &str)],
    shrunk: Option<String>,
    after: Option<&Fault>,
) -> Verdict {
    let after = after.map(|fault| Box::new(fault.clone()));
    if failed == 0 {
        return match after {
            None => Verdict::Pass,
            Some(fault) => Verdict::Fail(Reason::Runner(RunnerFault {
                fault,
                carrier: Carrier::Generated,
            })),
        };
    }
    Verdict::Fail(Reason::Generated {
        failed,
        total: GENERATED_COUNT,
        seed: GENERATED_SEED,
        runner_faults: faults.len(),
        first_fault: faults.first().map(|&(at, text)| (at, text.to_owned())),
        shrunk,
        after,
    })
}
