//! Driving a runner process over the streaming protocol.
//!
//! The runner is started once for all cases and fed every case line up
//! front (duct writes stdin from its own thread) while its answers are read
//! line by line with a deadline per case. Because answers stream, a crash,
//! a hang or a stray line is blamed on the case the runner was on; the
//! runner is then started again for the cases after it.
//!
//! Runners start in a process group of their own and the whole group is
//! killed: a grandchild (from `npx`, `go run` or a shell wrapper) that
//! inherited stdout would otherwise keep the pipe open long after the
//! runner died.

use std::collections::VecDeque;
use std::fs::File;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

use crate::case::Case;
use crate::protocol::{excerpt, parse_answer, BadLine, Reply};

/// Something that answers cases: a runner process, or a fake in tests.
pub trait Implementation {
    /// One reply per case, in order.
    fn run(&self, cases: &[&Case]) -> Vec<Reply>;
}

/// A runner program speaking the protocol on stdin and stdout.
#[derive(Debug, Clone)]
pub struct ProcessRunner {
    /// Who speaks in messages, e.g. `the go runner`.
    pub label: String,
    /// The command line; the first word is the program. Never holds case data.
    pub argv: Vec<String>,
    /// Where it starts (the repository root).
    pub dir: PathBuf,
    /// How long one case may take, start-up included for the first.
    pub timeout: Duration,
    /// Where its stderr goes, so a fault can show the tail.
    pub stderr_log: PathBuf,
}

/// What the reader thread saw on the runner's stdout.
enum Event {
    /// Every whole line one read returned: a fast runner's answers arrive
    /// many to a read, and one wake-up per read (not per line) keeps the
    /// harness's share of the CPU small.
    Lines(Vec<Vec<u8>>),
    Eof(Option<ExitStatus>),
    ReadError(std::io::Error),
}

/// One line at a time out of the reader thread's batches.
enum Next {
    Line(Vec<u8>),
    Eof(Option<ExitStatus>),
    ReadError(std::io::Error),
}

struct LineReceiver {
    events: mpsc::Receiver<Event>,
    pending: VecDeque<Vec<u8>>,
}

impl LineReceiver {
    fn next(&mut self, timeout: Duration) -> Result<Next, RecvTimeoutError> {
        loop {
            if let Some(line) = self.pending.pop_front() {
                return Ok(Next::Line(line));
            }
            match self.events.recv_timeout(timeout)? {
                Event::Lines(lines) => self.pending.extend(lines),
                Event::Eof(status) => return Ok(Next::Eof(status)),
                Event::ReadError(e) => return Ok(Next::ReadError(e)),
            }
        }
    }
}

/// Reads the runner's stdout until EOF, sending whole lines in batches.
fn read_lines(reader: &duct::ReaderHandle, events: &mpsc::Sender<Event>) {
    let mut buffer = vec![0u8; 64 * 1024];
    let mut partial: Vec<u8> = Vec::new();
    loop {
        let count = match (&mut &*reader).read(&mut buffer) {
            Ok(count) => count,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = events.send(Event::ReadError(e));
                return;
            }
        };
        if count == 0 {
            if !partial.is_empty() {
                let _ = events.send(Event::Lines(vec![std::mem::take(&mut partial)]));
            }
            let status = reader.try_wait().ok().flatten().map(|out| out.status);
            let _ = events.send(Event::Eof(status));
            return;
        }
        let mut lines = Vec::new();
        for piece in buffer[..count].split_inclusive(|&b| b == b'\n') {
            partial.extend_from_slice(piece);
            if partial.ends_with(b"\n") {
                partial.pop();
                lines.push(std::mem::take(&mut partial));
            }
        }
        if !lines.is_empty() && events.send(Event::Lines(lines)).is_err() {
            return;
        }
    }
}

impl Implementation for ProcessRunner {
    fn run(&self, cases: &[&Case]) -> Vec<Reply> {
        let lines: Vec<String> = cases.iter().map(|case| case.request_line()).collect();
        self.run_lines(cases, &lines)
    }
}

impl ProcessRunner {
    /// Like [`Implementation::run`], with each case's request line made
    /// already, so that several runners share the work of making them.
    pub fn run_lines(&self, cases: &[&Case], lines: &[String]) -> Vec<Reply> {
        let mut replies = Vec::with_capacity(cases.len());
        while replies.len() < cases.len() {
            let start = replies.len();
            if let Err(e) = self.run_stretch(&cases[start..], &lines[start..], &mut replies) {
                let why = format!(
                    "{} could not be started ({}): {e}",
                    self.label,
                    self.argv.join(" ")
                );
                replies.resize(cases.len(), Reply::Fault(why));
            }
        }
        replies
    }

    /// Starts one process for `cases` and reads its answers into `replies`,
    /// up to and including the first case it faults on.
    fn run_stretch(
        &self,
        cases: &[&Case],
        lines: &[String],
        replies: &mut Vec<Reply>,
    ) -> std::io::Result<()> {
        let (program, args) = self.argv.split_first().ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "empty command line")
        })?;
        let mut input = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
        for line in lines {
            input.extend_from_slice(line.as_bytes());
            input.push(b'\n');
        }
        if let Some(parent) = self.stderr_log.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let stderr = File::create(&self.stderr_log)?;
        let handle = Arc::new(
            duct::cmd(program, args)
                .dir(&self.dir)
                .stdin_bytes(input)
                .stderr_file(stderr)
                .unchecked()
                .before_spawn(|command| {
                    command.process_group(0);
                    Ok(())
                })
                .reader()?,
        );
        let group = Group(handle.pids().first().copied());
        let (tx, events) = mpsc::channel();
        let reader = Arc::clone(&handle);
        std::thread::spawn(move || read_lines(&reader, &tx));
        let mut rx = LineReceiver {
            events,
            pending: VecDeque::new(),
        };

        for case in cases {
            let fault = match rx.next(self.timeout) {
                Ok(Next::Line(line)) => match parse_answer(&line, &case.name) {
                    Ok(reply) => {
                        replies.push(reply);
                        continue;
                    }
                    Err(BadLine::Malformed(why)) => format!(
                        "{} printed a line that is not the protocol's answer ({why}):\n  {}",
                        self.label,
                        excerpt(&String::from_utf8_lossy(&line), 300)
                    ),
                    Err(BadLine::OtherCase(other)) => format!(
                        "{} answered for case `{other}` while on this one (answers must come in input order, one per case):\n  {}",
                        self.label,
                        excerpt(&String::from_utf8_lossy(&line), 300)
                    ),
                },
                Ok(Next::Eof(status)) => format!(
                    "{} exited ({}) before answering this case.{}",
                    self.label,
                    describe_status(status),
                    self.stderr_tail()
                ),
                Ok(Next::ReadError(e)) => format!("reading {}'s output failed: {e}", self.label),
                Err(RecvTimeoutError::Timeout) => format!(
                    "{} gave no answer within {} s (PARITY_TIMEOUT); its process group was killed and the \
                     cases after this one went to a fresh runner. If the case is only slow, raise \
                     PARITY_TIMEOUT; to look at it alone, run its trial by name.{}",
                    self.label,
                    self.timeout.as_secs_f64(),
                    self.stderr_tail()
                ),
                Err(RecvTimeoutError::Disconnected) => format!("{} stopped answering.", self.label),
            };
            group.kill();
            replies.push(Reply::Fault(fault));
            return Ok(());
        }

        // Every case answered: the runner must now exit 0 without saying more.
        let epilogue = match rx.next(self.timeout) {
            Ok(Next::Eof(Some(status))) if status.success() => None,
            Ok(Next::Eof(status)) => Some(format!(
                "after answering every case, {} exited ({}).{}",
                self.label,
                describe_status(status),
                self.stderr_tail()
            )),
            Ok(Next::Line(line)) => Some(format!(
                "after answering every case, {} printed more:\n  {}",
                self.label,
                excerpt(&String::from_utf8_lossy(&line), 300)
            )),
            Ok(Next::ReadError(e)) => Some(format!("reading {}'s output failed: {e}", self.label)),
            Err(_) => Some(format!(
                "{} did not exit within {} s after its input ended.",
                self.label,
                self.timeout.as_secs_f64()
            )),
        };
        group.kill();
        if let (Some(why), Some(last)) = (epilogue, replies.last_mut()) {
            *last = Reply::Fault(why);
        }
        Ok(())
    }

    fn stderr_tail(&self) -> String {
        stderr_tail(&self.stderr_log)
    }
}

/// The last lines of a runner's stderr log, ready to append to a message.
pub fn stderr_tail(log: &Path) -> String {
    const LINES: usize = 20;
    let text = std::fs::read(log).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return " It wrote nothing to stderr.".to_owned();
    }
    let tail = &lines[lines.len().saturating_sub(LINES)..];
    format!(
        "\nstderr (last {} lines; all of it in {}):\n  {}",
        tail.len(),
        log.display(),
        tail.join("\n  ")
    )
}

/// "exit status: 2", "signal: 9 (SIGKILL)", or unknown.
pub fn describe_status(status: Option<ExitStatus>) -> String {
    status.map_or_else(|| "exit status unknown".to_owned(), |s| s.to_string())
}

/// A runner's process group; killed when the runner is done with or given up on.
pub struct Group(pub Option<u32>);

impl Group {
    /// Kills every process of the group; a group already gone is fine.
    pub fn kill(&self) {
        if let Some(pid) = self.0.and_then(|pid| libc::pid_t::try_from(pid).ok()) {
            // SAFETY: killpg only sends a signal; the group id is the pid of a
            // child we started with process_group(0), so it names our group.
            unsafe {
                libc::killpg(pid, libc::SIGKILL);
            }
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}
