//! A runner session: one runner process for many cases, fed every request
//! line up front while its answers are read line by line with a deadline
//! per case. Because answers stream, a crash, a hang or a stray line is
//! blamed on the case the runner was on; the runner is then started again
//! for the cases after it.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::RecvTimeoutError;

use crate::exec::{self, Capture, Next};
use crate::protocol::{parse_answer, BadLine, Reply, Request};
use crate::text::{excerpt, tail};

/// Something that answers requests: a runner process, the reference in
/// this process, or a fake in the harness's tests.
pub trait Runner {
    /// One reply per request, in order.
    fn run(&self, requests: &[Request]) -> Vec<Reply>;
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
}

/// Numbers each runner start of this process, for its log's name.
static STARTS: AtomicU64 = AtomicU64::new(0);

impl Runner for Session {
    fn run(&self, requests: &[Request]) -> Vec<Reply> {
        let mut replies = Vec::with_capacity(requests.len());
        while replies.len() < requests.len() {
            let start = replies.len();
            if let Err(e) = self.run_stretch(&requests[start..], &mut replies) {
                let why = format!(
                    "{} could not be started ({}): {e}",
                    self.command.label,
                    self.command.argv.join(" ")
                );
                replies.resize(requests.len(), Reply::Fault(why));
            }
        }
        replies
    }
}

impl Session {
    fn label(&self) -> &str {
        &self.command.label
    }

    /// Starts one process for `requests` and reads its answers into
    /// `replies`, up to and including the first case it faults on.
    fn run_stretch(&self, requests: &[Request], replies: &mut Vec<Reply>) -> std::io::Result<()> {
        let mut input = Vec::with_capacity(requests.iter().map(|r| r.line.len() + 1).sum());
        for request in requests {
            input.extend_from_slice(request.line.as_bytes());
            input.push(b'\n');
        }
        let mut child = exec::spawn(&self.command, input)?;
        let timeout = self.command.deadline;
        for request in requests {
            let fault = match child.next(timeout) {
                Ok(Next::Line(line)) => match parse_answer(&line, &request.name) {
                    Ok(reply) => {
                        replies.push(reply);
                        continue;
                    }
                    Err(BadLine::Malformed(why)) => format!(
                        "{} printed a line that is not the protocol's answer ({why}):\n  {}",
                        self.label(),
                        excerpt(&String::from_utf8_lossy(&line), 300)
                    ),
                    Err(BadLine::OtherCase(other)) => format!(
                        "{} answered for case `{other}` while on this one (answers must come in input order, one per case):\n  {}",
                        self.label(),
                        excerpt(&String::from_utf8_lossy(&line), 300)
                    ),
                },
                Ok(Next::TooLong(start, length)) => format!(
                    "{} printed a line of more than {length} bytes (at most {} are read):\n  {}",
                    self.label(),
                    exec::MAX_LINE,
                    excerpt(&String::from_utf8_lossy(&start), 300)
                ),
                Ok(Next::Eof(status)) => {
                    let stderr = child.kill();
                    format!(
                        "{} exited ({}) before answering this case.{}",
                        self.label(),
                        exec::describe_status(status),
                        self.stderr_report(&stderr)
                    )
                }
                Ok(Next::ReadError(e)) => format!("reading {}'s output failed: {e}", self.label()),
                Err(RecvTimeoutError::Timeout) => {
                    let stderr = child.kill();
                    format!(
                        "{} gave no answer within {} s (PARITY_TIMEOUT); its process group was killed and the \
                         cases after this one went to a fresh runner. If the case is only slow, raise \
                         PARITY_TIMEOUT; to look at it alone, run its trial by name.{}",
                        self.label(),
                        timeout.as_secs_f64(),
                        self.stderr_report(&stderr)
                    )
                }
                Err(RecvTimeoutError::Disconnected) => {
                    format!("{} stopped answering.", self.label())
                }
            };
            child.kill();
            replies.push(Reply::Fault(fault));
            return Ok(());
        }

        // Every case answered: the runner must now exit 0 without saying more.
        let epilogue = match child.next(timeout) {
            Ok(Next::Eof(Some(status))) if status.success() => None,
            Ok(Next::Eof(status)) => {
                let stderr = child.kill();
                Some(format!(
                    "after answering every case, {} exited ({}).{}",
                    self.label(),
                    exec::describe_status(status),
                    self.stderr_report(&stderr)
                ))
            }
            Ok(Next::Line(line)) | Ok(Next::TooLong(line, _)) => Some(format!(
                "after answering every case, {} printed more:\n  {}",
                self.label(),
                excerpt(&String::from_utf8_lossy(&line), 300)
            )),
            Ok(Next::ReadError(e)) => {
                Some(format!("reading {}'s output failed: {e}", self.label()))
            }
            Err(_) => Some(format!(
                "{} did not exit within {} s after its input ended.",
                self.label(),
                timeout.as_secs_f64()
            )),
        };
        child.kill();
        if let (Some(why), Some(last)) = (epilogue, replies.last_mut()) {
            *last = Reply::Fault(why);
        }
        Ok(())
    }

    /// The tail of a start's stderr for a message, the whole capture kept
    /// in a log file of its own.
    fn stderr_report(&self, stderr: &Capture) -> String {
        if stderr.total() == 0 {
            return " It wrote nothing to stderr.".to_owned();
        }
        let text = stderr.text();
        let start = STARTS.fetch_add(1, Ordering::Relaxed);
        let log = self
            .log_dir
            .join(format!("runner-{}-{start}.stderr", std::process::id()));
        let kept = std::fs::create_dir_all(&self.log_dir)
            .and_then(|()| std::fs::write(&log, &text))
            .map_or_else(
                |e| format!("it could not be kept in {}: {e}", log.display()),
                |()| format!("what was kept of it is in {}", log.display()),
            );
        let cut = if stderr.is_cut() {
            format!(
                "; it wrote {} bytes, of which the start and the end were kept",
                stderr.total()
            )
        } else {
            String::new()
        };
        format!(
            "\nstderr (last lines; {kept}{cut}):\n  {}",
            tail(&text, 20).replace('\n', "\n  ")
        )
    }
}
