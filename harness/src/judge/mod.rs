//! Judging: what a trial's result is and why, in one typed form from which
//! both the terminal text and the JUnit summary are made.

pub mod compare;
pub mod demo;
pub mod known_failures;

use std::fmt;
use std::path::PathBuf;

use crate::table::Case;
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
}

/// Which case a reason is about, as messages show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseHeader {
    /// The case's name.
    pub name: String,
    /// Its file, relative to the repository root.
    pub file: String,
    /// What it shows.
    pub description: String,
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
        write!(
            f,
            "case `{}` ({}): {}",
            self.name, self.file, self.description
        )
    }
}

/// Why a trial failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// The runner's answer differs from `expect`; the report shows where.
    Mismatch {
        /// The case.
        case: CaseHeader,
        /// Expected and actual side by side, per differing field.
        report: String,
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
        /// What happened, with the runner's stderr tail.
        fault: String,
    },
    /// The language could not be made ready (under `PARITY_STRICT=1` a
    /// missing toolchain lands here too).
    NotReady(NotReady),
    /// Some generated scenarios failed; the report ends in a shrunk case.
    Generated {
        /// How many scenarios failed.
        failed: usize,
        /// How many ran.
        total: usize,
        /// The seed they were drawn from.
        seed: u64,
        /// The first failure, shrunk.
        report: String,
    },
    /// The demo failed, or printed another transcript, or refused a bad
    /// config otherwise than the Rust demo.
    Demo(String),
    /// The port's own unit tests failed, or ran no test.
    Unit(String),
    /// The runner did not refuse a request the protocol says it must
    /// refuse, or not as it must (SPEC.md, "Refusals").
    Protocol(String),
    /// Under `make test REPEAT=N`, the trial's verdict or answer changed
    /// between runs; the message shows each run's.
    Flaky(String),
    /// A trial listed as a known failure passes now.
    StaleKnownFailure {
        /// The trial.
        trial: String,
        /// The language.
        language: String,
        /// The reason the list gives.
        reason: String,
        /// The list to edit.
        list: PathBuf,
    },
    /// The Rust reference failed on a scenario, so nothing can be judged
    /// against it there.
    Reference(String),
    /// The runner faulted after answering every case (a non-zero exit,
    /// more output): its fault, not a case's; the message says which trial
    /// carries it and why.
    Runner(String),
    /// A fault of the harness itself.
    Harness(String),
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Mismatch { case, report } => write!(f, "{case}\n{report}"),
            Reason::ErrorAnswer {
                case,
                language,
                error,
            } => write!(
                f,
                "{case}\nthe {language} runner answered with an error: {error}"
            ),
            Reason::Fault { case, fault } => write!(f, "{case}\n{fault}"),
            Reason::NotReady(why @ NotReady::Missing { .. }) => {
                write!(f, "{why} (PARITY_STRICT=1 makes this a failure)")
            }
            Reason::NotReady(why) => write!(f, "{why}"),
            Reason::Generated {
                failed,
                total,
                seed,
                report,
            } => write!(
                f,
                "{failed} of {total} generated scenarios (seed {seed}) failed.\n{report}"
            ),
            Reason::Demo(why)
            | Reason::Unit(why)
            | Reason::Protocol(why)
            | Reason::Flaky(why)
            | Reason::Reference(why)
            | Reason::Runner(why)
            | Reason::Harness(why) => f.write_str(why),
            Reason::StaleKnownFailure {
                trial,
                language,
                reason,
                list,
            } => write!(
                f,
                "`{trial}` is listed as a known failure of {language} ({reason}) but passes now: \
                 remove it from {}",
                list.display()
            ),
        }
    }
}

/// What kind of failure a [`Reason`] is, for the report's cells, the
/// results file and the CI summary: a wrong answer is the port's bug, a
/// runner fault the runner's (it crashed, hung or printed garbage), so a
/// reader knows where to look before reading the details.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReasonKind {
    /// The port answered, and the answer (or transcript, or unit test)
    /// says it is wrong.
    WrongAnswer,
    /// The runner crashed, timed out, printed something that is not an
    /// answer, or could not be built.
    RunnerFault,
    /// The toolchain is missing (a failure only under `PARITY_STRICT=1`).
    NotRun,
    /// A known failure passes now: the list must lose the entry.
    StaleKnownFailure,
    /// The reference or the harness itself failed.
    HarnessFault,
}

impl ReasonKind {
    /// The name the results file and the summary use.
    pub fn as_str(self) -> &'static str {
        match self {
            ReasonKind::WrongAnswer => "wrong_answer",
            ReasonKind::RunnerFault => "runner_fault",
            ReasonKind::NotRun => "not_run",
            ReasonKind::StaleKnownFailure => "stale_known_failure",
            ReasonKind::HarnessFault => "harness_fault",
        }
    }
}

impl Reason {
    /// Which kind of failure this is.
    pub fn kind(&self) -> ReasonKind {
        match self {
            Reason::Mismatch { .. }
            | Reason::ErrorAnswer { .. }
            | Reason::Generated { .. }
            | Reason::Demo(_)
            | Reason::Unit(_)
            | Reason::Protocol(_)
            | Reason::Flaky(_) => ReasonKind::WrongAnswer,
            Reason::Fault { .. }
            | Reason::Runner(_)
            | Reason::NotReady(NotReady::BuildFailed { .. }) => ReasonKind::RunnerFault,
            Reason::NotReady(NotReady::Missing { .. }) => ReasonKind::NotRun,
            Reason::StaleKnownFailure { .. } => ReasonKind::StaleKnownFailure,
            Reason::Reference(_) | Reason::Harness(_) => ReasonKind::HarnessFault,
        }
    }

    /// One line saying what kind of failure this is, for a report's summary
    /// column (JUnit's `message`).
    pub fn summary(&self) -> String {
        match self {
            Reason::Mismatch { case, .. } => {
                format!("`{}`: the result differs from expect", case.name)
            }
            Reason::ErrorAnswer { case, .. } => {
                format!("`{}`: the runner answered with an error", case.name)
            }
            Reason::Fault { case, fault } => format!(
                "`{}`: runner fault: {}",
                case.name,
                crate::text::excerpt(fault.lines().next().unwrap_or_default(), 200)
            ),
            Reason::NotReady(NotReady::Missing { language, .. }) => {
                format!("the {language} toolchain is missing")
            }
            Reason::NotReady(NotReady::BuildFailed { language, .. }) => {
                format!("building {language} failed")
            }
            Reason::Generated {
                failed,
                total,
                seed,
                ..
            } => format!("{failed} of {total} generated scenarios (seed {seed}) failed"),
            Reason::Demo(why)
            | Reason::Unit(why)
            | Reason::Protocol(why)
            | Reason::Flaky(why)
            | Reason::Reference(why)
            | Reason::Runner(why)
            | Reason::Harness(why) => {
                crate::text::excerpt(why.lines().next().unwrap_or_default(), 200)
            }
            Reason::StaleKnownFailure { trial, .. } => {
                format!("known failure `{trial}` passes now")
            }
        }
    }
}
