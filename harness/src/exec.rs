//! The one way the harness starts a child: probes, builds, runner sessions,
//! demos, unit suites and benches all go through here.
//!
//! Every child starts in a process group of its own, has a deadline, and
//! has its output captured within a bound (the head and the tail are kept,
//! the rest is counted); the whole group is killed on every exit path,
//! including a panic, because [`Group`] kills on drop. Killing the group
//! matters: a grandchild (from `npx`, `go run` or a shell wrapper) that
//! inherited stdout would otherwise keep the pipe open long after the child
//! died, and waiting for the output would last as long as it.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// A command line the harness runs, with its limits.
#[derive(Debug, Clone)]
pub struct Command {
    /// Who speaks in messages, e.g. `the go runner`.
    pub label: String,
    /// The program and its arguments; never case data. A program path with
    /// a `/` is taken from `dir`.
    pub argv: Vec<String>,
    /// Where it starts (the repository root).
    pub dir: PathBuf,
    /// How long [`run`] lets it run in all; a session's per-answer deadline.
    pub deadline: Duration,
    /// Bytes kept of each of stdout and stderr (half head, half tail).
    pub keep: usize,
}

/// What a child gets on stdin.
#[derive(Debug, Clone)]
pub enum Stdin {
    /// Nothing: stdin is `/dev/null`.
    Null,
    /// These bytes, written from a thread of duct's (a child that stops
    /// reading cannot block the harness), then end of input.
    Bytes(Vec<u8>),
}

/// The default bound on what is kept of one stream: 256 KiB.
pub const KEEP: usize = 256 * 1024;

/// Output kept within a bound: the first and the last bytes, and how many
/// there were in all.
#[derive(Debug, Clone, Default)]
pub struct Capture {
    head: Vec<u8>,
    tail: Vec<u8>,
    total: u64,
    keep: usize,
}

impl Capture {
    /// An empty capture keeping at most `keep` bytes.
    pub fn new(keep: usize) -> Self {
        Capture {
            keep,
            ..Capture::default()
        }
    }

    /// Takes more output; memory stays within `keep` bytes (plus one
    /// chunk, briefly).
    pub fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let half = self.keep / 2;
        let room = half.saturating_sub(self.head.len());
        let (to_head, rest) = bytes.split_at(room.min(bytes.len()));
        self.head.extend_from_slice(to_head);
        self.tail.extend_from_slice(rest);
        if self.tail.len() > 2 * half.max(1) {
            let cut = self.tail.len() - half;
            self.tail.drain(..cut);
        }
    }

    /// How many bytes the stream carried.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Whether bytes were left out.
    pub fn is_cut(&self) -> bool {
        self.total > (self.head.len() + self.tail.len()) as u64
    }

    /// Everything, when nothing was left out.
    pub fn whole(&self) -> Option<Vec<u8>> {
        (!self.is_cut()).then(|| [self.head.as_slice(), self.tail.as_slice()].concat())
    }

    /// The kept text (invalid UTF-8 replaced), with a line saying how much
    /// was left out between head and tail.
    pub fn text(&self) -> String {
        let half = self.keep / 2;
        let tail_start = self.tail.len().saturating_sub(half);
        let tail = &self.tail[tail_start..];
        let left_out = self.total - (self.head.len() + tail.len()) as u64;
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        if left_out > 0 {
            text.push_str(&format!("\n[… {left_out} bytes left out …]\n"));
        }
        text.push_str(&String::from_utf8_lossy(tail));
        text
    }
}

/// How a finished [`run`] ended.
#[derive(Debug)]
pub struct Output {
    /// The exit status; `None` when the deadline passed and it was killed.
    pub status: Option<ExitStatus>,
    /// What it printed on stdout, within the bound.
    pub stdout: Capture,
    /// What it printed on stderr, within the bound.
    pub stderr: Capture,
}

impl Output {
    /// Exited 0 in time.
    pub fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }

    /// "exit status: 2", "signal: 9 (SIGKILL)", or "killed at the deadline".
    pub fn describe(&self) -> String {
        match self.status {
            Some(status) => status.to_string(),
            None => "killed at the deadline".to_owned(),
        }
    }
}

/// "exit status: 2", "signal: 9 (SIGKILL)", or unknown.
pub fn describe_status(status: Option<ExitStatus>) -> String {
    status.map_or_else(|| "exit status unknown".to_owned(), |s| s.to_string())
}

/// Runs `command` to its end or its deadline, whichever comes first.
pub fn run(command: &Command, stdin: Stdin) -> std::io::Result<Output> {
    let (stdout, stdout_writer) = os_pipe::pipe()?;
    let (stderr, stderr_writer) = os_pipe::pipe()?;
    let handle = start(command, stdin, stdout_writer, stderr_writer)?;
    let group = Group::of(&handle);
    let stdout = capture(stdout, command.keep);
    let stderr = capture(stderr, command.keep);
    let status = handle
        .wait_timeout(command.deadline)?
        .map(|output| output.status);
    group.kill();
    let _ = handle.wait();
    Ok(Output {
        status,
        stdout: stdout.finish(),
        stderr: stderr.finish(),
    })
}

fn start(
    command: &Command,
    stdin: Stdin,
    stdout: os_pipe::PipeWriter,
    stderr: os_pipe::PipeWriter,
) -> std::io::Result<duct::Handle> {
    let (program, args) = command.argv.split_first().ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "empty command line")
    })?;
    // duct reads a `Path` as a file path and a string as a PATH lookup.
    let program = if program.contains('/') {
        command.dir.join(program).into_os_string()
    } else {
        program.into()
    };
    let expression = duct::cmd(program, args)
        .dir(&command.dir)
        .stdout_file(stdout)
        .stderr_file(stderr)
        .unchecked()
        .before_spawn(|child| {
            child.process_group(0);
            Ok(())
        });
    // The expression (and with it the harness's copies of the pipes' write
    // ends) is dropped here, so the readers see the end of output as soon
    // as the child's group is gone.
    match stdin {
        Stdin::Null => expression.stdin_null().start(),
        Stdin::Bytes(bytes) => expression.stdin_bytes(bytes).start(),
    }
}

/// A reader thread filling a [`Capture`].
struct Capturing {
    done: Receiver<Capture>,
    keep: usize,
}

fn capture(mut reader: os_pipe::PipeReader, keep: usize) -> Capturing {
    let (tx, done) = mpsc::channel();
    std::thread::spawn(move || {
        let mut capture = Capture::new(keep);
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            match reader.read(&mut buffer) {
                Ok(0) => break,
                Ok(count) => capture.push(&buffer[..count]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        let _ = tx.send(capture);
    });
    Capturing { done, keep }
}

impl Capturing {
    /// The capture once the stream ends; a stream held open by a process
    /// that left the group is given up on after a second.
    fn finish(self) -> Capture {
        self.done
            .recv_timeout(Duration::from_secs(1))
            .unwrap_or_else(|_| Capture::new(self.keep))
    }
}

/// A child whose stdout is read line by line as it comes: a runner session.
pub struct Child {
    handle: duct::Handle,
    group: Group,
    lines: LineReceiver,
    stderr: Option<Capturing>,
}

/// What came next on a child's stdout.
#[derive(Debug)]
pub enum Next {
    /// One whole line, without its newline.
    Line(Vec<u8>),
    /// A line longer than the bound: its start, and its length so far.
    TooLong(Vec<u8>, usize),
    /// End of output, and the exit status if the child has exited.
    Eof(Option<ExitStatus>),
    /// Reading failed.
    ReadError(std::io::Error),
}

/// The longest stdout line a child may print: 8 MiB, far above any answer
/// of a case a file can hold in a reasonable size.
pub const MAX_LINE: usize = 8 * 1024 * 1024;

/// Starts `command` with `input` on stdin, reading its stdout line by line.
pub fn spawn(command: &Command, input: Vec<u8>) -> std::io::Result<Child> {
    let (stdout, stdout_writer) = os_pipe::pipe()?;
    let (stderr, stderr_writer) = os_pipe::pipe()?;
    let handle = start(command, Stdin::Bytes(input), stdout_writer, stderr_writer)?;
    let group = Group::of(&handle);
    // A bounded channel: a child that floods stdout waits for the harness
    // instead of filling the harness's memory.
    let (tx, events) = mpsc::sync_channel(16);
    std::thread::spawn(move || read_lines(stdout, &tx));
    Ok(Child {
        handle,
        group,
        lines: LineReceiver {
            events,
            pending: std::collections::VecDeque::new(),
        },
        stderr: Some(capture(stderr, command.keep)),
    })
}

impl Child {
    /// The next stdout line, or `Err` when none came within `timeout`.
    pub fn next(&mut self, timeout: Duration) -> Result<Next, RecvTimeoutError> {
        let next = self.lines.next(timeout)?;
        Ok(match next {
            Next::Eof(_) => Next::Eof(self.wait_briefly()),
            other => other,
        })
    }

    /// The exit status once stdout has ended; a child that closed stdout
    /// but lives on is not waited for long.
    fn wait_briefly(&self) -> Option<ExitStatus> {
        self.handle
            .wait_timeout(Duration::from_millis(500))
            .ok()
            .flatten()
            .map(|output| output.status)
    }

    /// Kills the whole group and returns what it wrote to stderr.
    pub fn kill(&mut self) -> Capture {
        self.group.kill();
        let _ = self.handle.wait();
        self.stderr
            .take()
            .map_or_else(Capture::default, Capturing::finish)
    }
}

enum Event {
    /// Every whole line one read returned: a fast runner's answers arrive
    /// many to a read, and one wake-up per read (not per line) keeps the
    /// harness's share of the CPU small.
    Lines(Vec<Next>),
    End(Next),
}

struct LineReceiver {
    events: Receiver<Event>,
    pending: std::collections::VecDeque<Next>,
}

impl LineReceiver {
    fn next(&mut self, timeout: Duration) -> Result<Next, RecvTimeoutError> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(next) = self.pending.pop_front() {
                return Ok(next);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.events.recv_timeout(left)? {
                Event::Lines(lines) => self.pending.extend(lines),
                Event::End(end) => return Ok(end),
            }
        }
    }
}

fn read_lines(mut reader: os_pipe::PipeReader, events: &mpsc::SyncSender<Event>) {
    let mut buffer = vec![0u8; 64 * 1024];
    let mut partial: Vec<u8> = Vec::new();
    loop {
        let count = match reader.read(&mut buffer) {
            Ok(count) => count,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = events.send(Event::End(Next::ReadError(e)));
                return;
            }
        };
        if count == 0 {
            if !partial.is_empty() {
                let _ = events.send(Event::Lines(vec![Next::Line(partial)]));
            }
            let _ = events.send(Event::End(Next::Eof(None)));
            return;
        }
        let mut lines = Vec::new();
        for piece in buffer[..count].split_inclusive(|&b| b == b'\n') {
            partial.extend_from_slice(piece);
            if partial.len() > MAX_LINE + 1 {
                // A line past the bound ends the reading: the session
                // blames it and kills the child, whatever it prints next.
                let length = partial.len();
                partial.truncate(1024);
                lines.push(Next::TooLong(partial, length));
                let _ = events.send(Event::Lines(lines));
                return;
            }
            if partial.ends_with(b"\n") {
                partial.pop();
                lines.push(Next::Line(std::mem::take(&mut partial)));
            }
        }
        if !lines.is_empty() && events.send(Event::Lines(lines)).is_err() {
            return;
        }
    }
}

/// A child's process group; killed when the child is done with or given up
/// on, and on drop, so no exit path leaves it running.
pub struct Group(Option<i32>);

impl Group {
    fn of(handle: &duct::Handle) -> Self {
        Group(
            handle
                .pids()
                .first()
                .and_then(|&pid| libc::pid_t::try_from(pid).ok()),
        )
    }

    /// Kills every process of the group; a group already gone is fine.
    pub fn kill(&self) {
        if let Some(pid) = self.0 {
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

impl Drop for Child {
    fn drop(&mut self) {
        self.group.kill();
        let _ = self.handle.wait();
    }
}
