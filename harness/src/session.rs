//! A runner session: one runner process for many cases, fed every request
//! line up front while its answers are read line by line with a deadline
//! per case. Because answers stream, a crash, a hang or a stray line is
//! blamed on the case the runner was on; the runner is then started again
//! for the cases after it, unless it has faulted on [`FAULT_BUDGET`] cases
//! in a row (its known failures not counted): then the cases left fail at
//! once, so a runner that cannot start (or hangs on everything) costs
//! seconds, not a restart per case. An answer line is read up to its
//! case's own limit ([`crate::table::limits`]), never a fixed size.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Arc;

use crate::contract::Contract;
use crate::exec::{self, Capture, Next};
use crate::fault::{After, Fault, FaultKind, Stderr};
use crate::protocol::{line_excerpt, parse_answer, Reply, Request};
use crate::text::tail;

/// A session's replies, and the runner's fault after its last answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Answers {
    /// One reply per request, in order.
    pub replies: Vec<Reply>,
    /// What the runner did wrong once every case was answered; no case's
    /// reply is changed by it.
    pub after: Option<Fault>,
}

/// A runner program speaking the protocol on stdin and stdout.
#[derive(Debug, Clone)]
pub struct Session {
    /// How to start it; its deadline is per answer, start-up included for
    /// the first.
    pub command: exec::Command,
    /// Where the stderr of a runner start that faulted is kept, one file
    /// per start, so a restart never overwrites the log a message names.
    pub log_dir: PathBuf,
    /// What an answer may be, and how it is compared.
    pub contract: Arc<Contract>,
}

/// How many cases in a row a runner may fault on before the cases left are
/// failed without starting it again.
pub const FAULT_BUDGET: usize = 3;

/// Numbers each runner start of this process, for its log's name.
static STARTS: AtomicU64 = AtomicU64::new(0);

impl Session {
    /// One reply per request, in order, and the runner's fault after its
    /// last answer. The runner is started again after each fault, and only
    /// the faults on cases `expected` does not name (a language's known
    /// failures) count towards [`FAULT_BUDGET`] in a row: the budget guards
    /// against a broken runner, not against the failures a list admits.
    pub fn answer(&self, requests: &[Request], expected: &dyn Fn(&str) -> bool) -> Answers {
        let mut replies: Vec<Reply> = Vec::with_capacity(requests.len());
        let mut after = None;
        while replies.len() < requests.len() {
            // Expected faults neither count nor break the row.
            let mut row = replies
                .iter()
                .zip(requests)
                .rev()
                .filter(|(_, request)| !expected(&request.name))
                .map_while(|(reply, request)| match reply {
                    Reply::Fault(fault) => Some((&**fault, request)),
                    _ => None,
                });
            let stop = match (row.next(), row.count() + 1 >= FAULT_BUDGET) {
                (Some((last, on)), true) => FaultKind::BudgetSpent {
                    in_a_row: FAULT_BUDGET,
                    left: requests.len() - replies.len(),
                    last_case: on.name.clone(),
                    last: Box::new(last.clone()),
                },
                _ => match self.run_stretch(&requests[replies.len()..], &mut replies) {
                    Ok(fault) => {
                        after = fault;
                        continue;
                    }
                    Err(e) => FaultKind::CouldNotStart {
                        argv: self.command.argv.iter().map(|w| self.shown(w)).collect(),
                        error: e.to_string(),
                    },
                },
            };
            let why = self.fault(stop, None);
            replies.resize(requests.len(), Reply::Fault(Box::new(why)));
        }
        Answers { replies, after }
    }

    /// The replies of [`Session::answer`] alone, with no fault expected.
    pub fn run(&self, requests: &[Request]) -> Vec<Reply> {
        self.answer(requests, &|_| false).replies
    }

    /// A fault of this runner, with what it wrote to stderr if `child` is
    /// given: its group is killed first, so that is complete, and bounded.
    fn fault(&self, kind: FaultKind, child: Option<exec::Child>) -> Fault {
        let stderr = child.map_or(Stderr::NotShown, |c| self.stderr_report(&c.kill()));
        Fault {
            runner: self.command.label.clone(),
            kind,
            stderr,
        }
    }

    /// `text` (the runner's stderr tail, its command line) with the paths
    /// under the folder it starts in shown relative to it, as every
    /// message shows them, made so here where the fault is made. A stdout
    /// line is quoted as printed: it is the protocol's evidence.
    fn shown(&self, text: &str) -> String {
        text.replace(&format!("{}/", self.command.dir.display()), "")
    }

    /// Starts one process for `requests` and reads its answers into
    /// `replies`, up to and including the first case it faults on; the
    /// fault after its last answer, when it answered every case.
    fn run_stretch(
        &self,
        requests: &[Request],
        replies: &mut Vec<Reply>,
    ) -> std::io::Result<Option<Fault>> {
        let limits = requests.iter().map(|r| r.answer_limit).collect();
        let mut child = exec::spawn(&self.command, Request::input(requests), limits)?;
        for (index, request) in requests.iter().enumerate() {
            let previous = index.checked_sub(1).map(|i| requests[i].name.as_str());
            let line = self.next_line(&mut child, request.answer_limit);
            let judged = |line: Vec<u8>| judge_line(&line, request, previous, &self.contract);
            match line.and_then(judged) {
                Ok(reply) => replies.push(reply),
                // The previous case's answer printed again: that case's
                // fault, so this one gets a fresh runner.
                Err(twice @ FaultKind::AnsweredTwice { .. }) => {
                    self.blame_previous(child, replies, twice);
                    return Ok(None);
                }
                Err(why) => {
                    replies.push(Reply::Fault(Box::new(self.fault(why, Some(child)))));
                    return Ok(None);
                }
            }
        }
        Ok(self.finish(child, requests.last(), replies))
    }

    /// The child's next whole line, or the fault of what came instead.
    fn next_line(&self, child: &mut exec::Child, limit: usize) -> Result<Vec<u8>, FaultKind> {
        Err(match child.next(self.command.deadline) {
            Ok(Next::Line(line)) => return Ok(line),
            Ok(Next::TooLong(start)) => FaultKind::TooLong {
                limit,
                start: line_excerpt(&start),
            },
            Ok(Next::Eof(status)) => FaultKind::Exited { status },
            Ok(Next::ReadError(e)) => FaultKind::ReadError {
                error: e.to_string(),
            },
            Err(RecvTimeoutError::Timeout) => FaultKind::TimedOut {
                deadline: self.command.deadline,
            },
            Err(RecvTimeoutError::Disconnected) => FaultKind::Stopped,
        })
    }

    /// Once every case is answered the runner must exit 0 without saying
    /// more; anything else is the fault after the last answer (or, for
    /// the last answer printed again, the last case's).
    fn finish(
        &self,
        mut child: exec::Child,
        last: Option<&Request>,
        replies: &mut [Reply],
    ) -> Option<Fault> {
        let deadline = self.command.deadline;
        let last = last.map(|r| r.name.as_str());
        let after = match child.next(deadline) {
            // The group is killed as `child` drops.
            Ok(Next::Eof(Some(s))) if s.success() => return None,
            Ok(Next::Line(line)) if last.is_some_and(|name| is_answer_for(&line, name)) => {
                let twice = FaultKind::AnsweredTwice {
                    next: None,
                    line: line_excerpt(&line),
                };
                self.blame_previous(child, replies, twice);
                return None;
            }
            Ok(Next::Line(line) | Next::TooLong(line)) => After::PrintedMore {
                line: line_excerpt(&line),
            },
            Ok(Next::Eof(status)) => After::Exited { status },
            Ok(Next::ReadError(e)) => After::ReadError {
                error: e.to_string(),
            },
            Err(_) => After::DidNotExit { deadline },
        };
        Some(self.fault(FaultKind::AfterLastAnswer(after), Some(child)))
    }

    /// Turns the last reply into the fault `twice` (an answer printed
    /// twice) once the runner is killed.
    fn blame_previous(&self, child: exec::Child, replies: &mut [Reply], twice: FaultKind) {
        let fault = self.fault(twice, Some(child));
        if let Some(last) = replies.last_mut() {
            *last = Reply::Fault(Box::new(fault));
        }
    }

    /// The tail of a start's stderr for a message, the whole capture kept
    /// in a log file of its own (named in the message).
    fn stderr_report(&self, stderr: &Capture) -> Stderr {
        if stderr.total() == 0 {
            return Stderr::Empty;
        }
        let text = stderr.text();
        let start = STARTS.fetch_add(1, Ordering::Relaxed);
        let log = self
            .log_dir
            .join(format!("runner-{}-{start}.stderr", std::process::id()));
        let written =
            std::fs::create_dir_all(&self.log_dir).and_then(|()| std::fs::write(&log, &text));
        Stderr::Written {
            tail: tail(&self.shown(&text), 20),
            log: log.strip_prefix(&self.command.dir).unwrap_or(&log).into(),
            unkept: written.err().map(|e| e.to_string()),
            total: stderr.total(),
            cut: stderr.is_cut(),
        }
    }
}

/// What a whole line printed where `request`'s answer was due is: its
/// answer, the previous case's printed again, or a fault.
fn judge_line(
    line: &[u8],
    request: &Request,
    previous: Option<&str>,
    contract: &Contract,
) -> Result<Reply, FaultKind> {
    match parse_answer(line, &request.name, contract) {
        Err(FaultKind::OtherCase { other, line }) if Some(other.as_str()) == previous => {
            let next = Some(request.name.clone());
            Err(FaultKind::AnsweredTwice { next, line })
        }
        reply => reply,
    }
}

/// Whether `line` is a JSON object whose `name` is `name` (well-formed or
/// not otherwise): the mark of an answer printed again.
fn is_answer_for(line: &[u8], name: &str) -> bool {
    serde_json::from_slice::<serde_json::Value>(line).is_ok_and(|v| v["name"] == name)
}
