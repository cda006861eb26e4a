//! Judging: what a trial's result is and why, as data (a difference of
//! the outcome kept as its values, a [`Reason::Wrong`] already worded where
//! it is judged); [`emit`] turns it into the terminal text, the JUnit
//! file's, the results file's and the page's.

pub mod answers;
pub mod compare;
pub mod demo;
pub mod emit;
pub mod known_failures;

use std::fmt;

use crate::exec::Output;
use crate::fault::Fault;
use crate::table::Case;
use crate::toolchain::manifest::Unit;
use crate::toolchain::unit::Tally;
use crate::toolchain::NotReady;

/// The result of one trial.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// It matched.
    Pass,
    /// It did not, and this says why.
    Fail(Reason),
    /// Not judged, and this says why (a missing toolchain).
    Ignore(String),
    /// Failed as the language's known-failures list says it does; the
    /// list's reason.
    KnownFailure(String),
    /// Not run: the case uses a feature its port does not declare (under
    /// `PARITY_STRICT=1`, a failure for the same reason).
    Unsupported(Unsupported),
}

/// A case that uses an optional feature its port's manifest does not list
/// (`features`), so it is not sent to the runner: never a pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    /// The port's language.
    pub language: String,
    /// The case.
    pub case: String,
    /// The first feature it uses that the port does not support.
    pub feature: String,
}

/// Which case a reason is about, as messages show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseHeader {
    name: String,
    /// Relative to the repository root.
    file: String,
    description: String,
}

impl CaseHeader {
    /// The header of a case, its file shown relative to `root`.
    pub fn of(case: &Case, root: &std::path::Path) -> Self {
        CaseHeader {
            name: case.name.clone(),
            file: crate::text::relative(&case.file, root),
            description: case.description.clone(),
        }
    }
}

impl fmt::Display for CaseHeader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, file, description) = (&self.name, &self.file, &self.description);
        write!(f, "case `{name}` ({file}): {description}")
    }
}

/// Why a trial failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// The runner's answer differs from `expect`.
    Mismatch {
        /// The case.
        case: CaseHeader,
        /// Each field that differs, with both values
        /// ([`compare::differences`]).
        differences: Vec<compare::Difference>,
    },
    /// The runner's port raised an error on the case.
    ErrorAnswer {
        /// The case.
        case: CaseHeader,
        /// The language.
        language: String,
        /// The error's text.
        error: String,
    },
    /// The runner misbehaved on the case: crashed, hung, printed garbage.
    Fault {
        /// The case.
        case: CaseHeader,
        /// What happened, with the runner's stderr tail; paths relative
        /// to the repository root (boxed: a verdict stays small).
        fault: Box<Fault>,
    },
    /// The language could not be made ready (under `PARITY_STRICT=1` a
    /// missing toolchain lands here too).
    NotReady(NotReady),
    /// The port failed a trial besides a case's answer, worded where it
    /// is judged: the generated scenarios (the first wrong one shrunk),
    /// the demo's transcript or refusals, its unit tests, the protocol's
    /// refusals, or under `make test REPEAT=N` a verdict or answer that
    /// changed between runs. Plain text: its only reader is the message.
    Wrong(String),
    /// A trial listed as a known failure passes now.
    StaleKnownFailure {
        /// The trial.
        trial: String,
        /// The language, whose list ([`known_failures::path`]) to edit.
        language: String,
        /// The reason the list gives.
        reason: String,
    },
    /// The runner faulted after answering every request (a non-zero exit,
    /// more output): its fault, carried by one trial of its stream (the
    /// generated one, else the last case's, else the protocol's), whose own
    /// verdict the message shows too.
    Runner {
        /// The fault; paths relative to the repository root.
        fault: Box<Fault>,
        /// The carrying trial's verdict without the fault.
        own: Box<Verdict>,
    },
    /// A fault of the harness itself, or of the Rust reference it judges
    /// by (it failed on a scenario, so nothing can be judged there).
    Harness(String),
    /// The case uses a feature the port does not support, and the run is
    /// strict.
    Unsupported(Unsupported),
}

/// A port's unit tests' verdict from how they ran (`ran`: their output and
/// what `unit`'s counter read in all of it, or why they could not start):
/// they must exit 0, and their tool's final report must prove them (see
/// [`Tally::proves`]); without a counter (a test's fake) the exit alone
/// counts. `tests`: the tests and their command line, as messages name them.
pub fn unit(tests: String, ran: std::io::Result<(Output, Option<Tally>)>, unit: &Unit) -> Verdict {
    let wrong = |why| Verdict::Fail(Reason::Wrong(why));
    let (output, tally) = match ran {
        Err(e) => return wrong(format!("{tests} could not be started: {e}")),
        Ok(ran) => ran,
    };
    let printed = output.stdout.text() + &output.stderr.text();
    let at_least = unit.at_least.max(1);
    let why = match unit.counter.map(|_| tally.unwrap_or_default()) {
        _ if !output.success() => format!(
            "{tests} failed ({}):\n{}",
            output.describe(),
            crate::text::tail(&printed, 60)
        ),
        Some(tally) if !tally.proves(at_least) => format!(
            "{tests} exited 0 without proving a test: {}. What it printed:\n{}",
            unproven(&tally, at_least),
            crate::text::tail(&printed, 30)
        ),
        Some(_) | None => return Verdict::Pass,
    };
    wrong(why)
}

/// Why a tally that exited 0 does not prove the tests.
fn unproven(tally: &Tally, at_least: u64) -> String {
    let (passed, failed, skipped) = (tally.passed, tally.failed, tally.skipped);
    let counts = format!("{passed} passed, {failed} failed, {skipped} skipped or ignored");
    let report = format!("its tool's final report says {counts}");
    if tally.unreported > 0 {
        format!(
            "a test binary announced {} tests and ended without its \
             `test result:` line (a test that exits the process stops it early); \
             the others: {counts}",
            tally.unreported
        )
    } else if !tally.finished {
        format!(
            "its tool's final report is missing (a test that exits the process stops \
             it early); before that: {counts}"
        )
    } else if failed > 0 {
        format!("{report}, yet it exited 0")
    } else if skipped > 0 {
        format!("{report}: a skipped or ignored test checks nothing")
    } else {
        format!(
            "{report}, and its manifest says at least {at_least} (`unit.at_least`): a test \
             file renamed out of its tool's sight passes this way"
        )
    }
}
