//! Verdicts on what a runner answered: a case's reply, the generated
//! scenarios' and the protocol's refusals, a fault after the last answer.
//! Pure: the answers are the executor's, the shrunk case too.

use std::path::Path;

use super::{CaseHeader, Reason, Verdict};
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

/// The verdict of the trial that carries its runner's fault after the last
/// answer: a failure that names the runner, showing the trial's `own`.
pub fn after_last_answer(fault: Fault, own: Verdict) -> Verdict {
    if matches!(own, Verdict::Ignore(_)) {
        return own;
    }
    Verdict::Fail(Reason::Runner {
        fault: Box::new(fault),
        own: Box::new(own),
    })
}

/// A runner's replies to the refusals the protocol requires.
pub fn refusals(runner: &str, replies: &[Reply]) -> Verdict {
    let problems = protocol::judge_refusals(replies);
    if problems.is_empty() {
        return Verdict::Pass;
    }
    Verdict::Fail(Reason::Protocol {
        runner: runner.to_owned(),
        problems,
    })
}

/// The fixed-seed scenarios' verdict: how many `failed`, the index and
/// text of those the runner faulted on, the first wrong one `shrunk` to a
/// ready case; a runner fault is shown as it is, never shrunk.
pub fn generated(failed: usize, faults: &[(usize, &str)], shrunk: Option<String>) -> Verdict {
    if failed == 0 {
        return Verdict::Pass;
    }
    Verdict::Fail(Reason::Generated {
        failed,
        total: GENERATED_COUNT,
        seed: GENERATED_SEED,
        runner_faults: faults.len(),
        first_fault: faults.first().map(|&(at, text)| (at, text.to_owned())),
        shrunk,
    })
}
