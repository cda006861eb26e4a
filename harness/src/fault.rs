//! A runner's fault as data: what the session saw (a time-out, an exit, a
//! line that is not an answer, ...) with the facts it knew, and what the
//! runner wrote to stderr. Tests and the results file read the kind and the
//! log path; the text users read is made here alone, in [`fmt::Display`].

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::Duration;

use crate::exec::describe_status;
use crate::text::excerpt;

/// One fault of one runner, on a case or after its last answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// The runner as messages name it (`the go runner`).
    pub runner: String,
    /// What happened, with its facts.
    pub kind: FaultKind,
    /// What the faulting start wrote to stderr, and where it is kept.
    pub stderr: Stderr,
}

/// What a runner did wrong; each kind keeps the facts its message shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultKind {
    /// No answer within the deadline (`PARITY_TIMEOUT`); the group was killed.
    TimedOut {
        /// The deadline per answer.
        deadline: Duration,
    },
    /// The runner exited before answering the case.
    Exited {
        /// Its exit status, if known.
        status: Option<ExitStatus>,
    },
    /// A whole line that is not the protocol's answer.
    Malformed {
        /// Why it is not, as the answer parser says it.
        why: String,
        /// The start of the line.
        line: String,
    },
    /// A line longer than the case's answer can be.
    TooLong {
        /// The case's answer limit: the line was longer.
        limit: usize,
        /// The start of the line.
        start: String,
    },
    /// A well-formed answer naming another case than the one due.
    OtherCase {
        /// The case it named.
        other: String,
        /// The start of the line.
        line: String,
    },
    /// The case's answer printed again; blamed on the case answered twice.
    AnsweredTwice {
        /// The case whose answer was due where the second came, or `None`
        /// when it came after the last case.
        next: Option<String>,
        /// The start of the line.
        line: String,
    },
    /// Reading the runner's output failed.
    ReadError {
        /// The error's text.
        error: String,
    },
    /// The reader stopped without a line or an exit.
    Stopped,
    /// The runner faulted on its fault budget of cases in a
    /// row, so it was not started again for this case.
    BudgetSpent {
        /// How many faults in a row spent it.
        in_a_row: usize,
        /// How many cases were left unrun.
        left: usize,
        /// The case of the last fault counted.
        last_case: String,
        /// The last fault counted (its log is this fault's).
        last: Box<Fault>,
    },
    /// The runner could not be started at all.
    CouldNotStart {
        /// Its command line.
        argv: Vec<String>,
        /// Why.
        error: String,
    },
    /// After every case was answered, the runner did something else than
    /// exit 0 without saying more.
    AfterLastAnswer(After),
}

/// A fault once every case was answered: the runner's, no case's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum After {
    /// It exited with another status than 0.
    Exited {
        /// Its exit status, if known.
        status: Option<ExitStatus>,
    },
    /// It printed another line.
    PrintedMore {
        /// The start of the line.
        line: String,
    },
    /// Reading its output failed.
    ReadError {
        /// The error's text.
        error: String,
    },
    /// It did not exit within the deadline once its input ended.
    DidNotExit {
        /// The deadline.
        deadline: Duration,
    },
}

/// What a faulting start wrote to stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stderr {
    /// Not part of this fault (a start that never ran, a fault that points
    /// to another's log).
    NotShown,
    /// It wrote nothing.
    Empty,
    /// It wrote something: the last lines, and the log file kept.
    Written {
        /// The last lines, each cut to a readable length.
        tail: String,
        /// The file holding what was kept of it, relative to the folder
        /// the runner starts in (the repository root) when under it.
        log: PathBuf,
        /// Why the file could not be written, if it could not.
        unkept: Option<String>,
        /// How many bytes it wrote.
        total: u64,
        /// Whether only its start and end were kept.
        cut: bool,
    },
}

/// The most of a line a message shows.
pub const LINE_EXCERPT: usize = 300;

impl Fault {
    /// The stderr log this fault names, if any (for a spent budget, the
    /// last start's).
    pub fn log(&self) -> Option<&Path> {
        match (&self.stderr, &self.kind) {
            (Stderr::Written { log, unkept, .. }, _) if unkept.is_none() => Some(log),
            (_, FaultKind::BudgetSpent { last, .. }) => last.log(),
            _ => None,
        }
    }
}

impl FaultKind {
    /// Every kind's id, for the results file and tests, in the kinds'
    /// order: one table, so the results schema is checked against all of
    /// them (an exhaustive match below gives a new kind its place here).
    pub const IDS: [&'static str; 11] = [
        "timed_out",
        "exited",
        "malformed_line",
        "line_too_long",
        "answer_for_another_case",
        "answered_twice",
        "read_error",
        "stopped",
        "budget_spent",
        "could_not_start",
        "after_last_answer",
    ];

    /// The kind's id, one of [`FaultKind::IDS`].
    pub fn id(&self) -> &'static str {
        Self::IDS[match self {
            FaultKind::TimedOut { .. } => 0,
            FaultKind::Exited { .. } => 1,
            FaultKind::Malformed { .. } => 2,
            FaultKind::TooLong { .. } => 3,
            FaultKind::OtherCase { .. } => 4,
            FaultKind::AnsweredTwice { .. } => 5,
            FaultKind::ReadError { .. } => 6,
            FaultKind::Stopped => 7,
            FaultKind::BudgetSpent { .. } => 8,
            FaultKind::CouldNotStart { .. } => 9,
            FaultKind::AfterLastAnswer(_) => 10,
        }]
    }
}

impl fmt::Display for Fault {
    /// What happened, then what the runner wrote to stderr.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let runner = &self.runner;
        match &self.kind {
            FaultKind::TimedOut { deadline } => write!(
                f,
                "{runner} gave no answer within {} s (PARITY_TIMEOUT); its process group was killed and the \
                 cases after this one went to a fresh runner. If the case is only slow, raise \
                 PARITY_TIMEOUT; to look at it alone, run its trial by name.",
                deadline.as_secs_f64(),
            ),
            FaultKind::Exited { status } => write!(
                f,
                "{runner} exited ({}) before answering this case.",
                describe_status(*status)
            ),
            FaultKind::Malformed { why, line } => write!(
                f,
                "{runner} printed a line that is not the protocol's answer ({why}):\n  {line}"
            ),
            FaultKind::TooLong { limit, start } => write!(
                f,
                "{runner} printed a line of more than {limit} bytes where this case's answer was due; \
                 at most {limit} are read for it (its answer, whatever it holds, is shorter):\n  {start}"
            ),
            FaultKind::OtherCase { other, line } => write!(
                f,
                "{runner} answered for case `{other}` while on this one (answers must come in input order, one per case):\n  {line}"
            ),
            FaultKind::AnsweredTwice { next, line } => {
                let came = next.as_ref().map_or("after the last case".to_owned(), |next| {
                    format!("where the next case's, `{next}`, was due")
                });
                write!(f, "{runner} answered this case twice (the second answer came {came}):\n  {line}")
            }
            FaultKind::ReadError { error } => write!(f, "reading {runner}'s output failed: {error}"),
            FaultKind::Stopped => write!(f, "{runner} stopped answering."),
            FaultKind::BudgetSpent { in_a_row, left, last_case, last } => {
                let log = last.log().map_or_else(
                    || "it wrote nothing to stderr".to_owned(),
                    |log| format!("its stderr is in {}", log.display()),
                );
                write!(
                    f,
                    "not run: {runner} faulted on {in_a_row} cases in a row (not counting its known failures), so it \
                     was not started again for the {left} case(s) left. The last fault, on case `{last_case}`: {}\n({log}; the cases before name the \
                     other faults.)",
                    excerpt(last.to_string().lines().next().unwrap_or_default(), LINE_EXCERPT),
                )
            }
            FaultKind::CouldNotStart { argv, error } => {
                write!(f, "{runner} could not be started ({}): {error}", argv.join(" "))
            }
            FaultKind::AfterLastAnswer(After::Exited { status }) => write!(
                f,
                "after answering every case, {runner} exited ({}).",
                describe_status(*status)
            ),
            FaultKind::AfterLastAnswer(After::PrintedMore { line }) => write!(
                f,
                "after answering every case, {runner} printed more:\n  {line}"
            ),
            FaultKind::AfterLastAnswer(After::ReadError { error }) => write!(
                f,
                "after answering every case, reading {runner}'s output failed: {error}"
            ),
            FaultKind::AfterLastAnswer(After::DidNotExit { deadline }) => write!(
                f,
                "{runner} did not exit within {} s after its input ended.",
                deadline.as_secs_f64()
            ),
        }?;
        write!(f, "{}", self.stderr)
    }
}

impl fmt::Display for Stderr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stderr::NotShown => Ok(()),
            Stderr::Empty => f.write_str("\n(it wrote nothing to stderr)"),
            Stderr::Written {
                tail,
                log,
                unkept,
                total,
                cut,
            } => {
                let kept = match unkept {
                    None => format!("what was kept of it is in {}", log.display()),
                    Some(e) => format!("it could not be kept in {}: {e}", log.display()),
                };
                let cut = if *cut {
                    format!("; it wrote {total} bytes, of which the start and the end were kept")
                } else {
                    String::new()
                };
                write!(
                    f,
                    "\nstderr (last lines; {kept}{cut}):\n  {}",
                    tail.replace('\n', "\n  ")
                )
            }
        }
    }
}

#[cfg(test)]
mod tests;
