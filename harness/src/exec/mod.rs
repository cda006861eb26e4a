//! The one way the harness starts a child: probes, builds, runner sessions,
//! demos, unit suites and benches all go through here.
//!
//! Every child starts in a process group of its own, has a deadline, and
//! has its output captured within a bound (the head and the tail are kept,
//! the rest is counted); the whole group is killed on every exit path,
//! including a panic, because a [`Group`] is ended on drop. Killing the group
//! matters: a grandchild (from `npx`, `go run` or a shell wrapper) that
//! inherited stdout would otherwise keep the pipe open long after the child
//! died, and waiting for the output would last as long as it.
//!
//! Nothing a child starts outlives the harness. Every group it started is
//! listed while it runs, and SIGINT or SIGTERM to the harness kills them all
//! before it exits (128 + the signal, whatever the run's own result). Every
//! child is also killed by the kernel when the harness dies (Linux's
//! parent-death signal), even by SIGKILL; what such a harness's children
//! started in sessions of their own is swept by the next run of the same
//! checkout, by the mark they carry. A descendant that leaves its group
//! (`setsid`) is found too: on Linux the harness is a child subreaper, so
//! such an orphan becomes the harness's child when its parent dies, and it
//! is killed and reaped after every child the harness waits for (and on a
//! signal). An orphan is told from the harness's other children by its
//! group, its session, or the `PARITY_HARNESS` mark every child inherits.

mod capture;
mod guard;
mod lines;

use std::collections::VecDeque;
use std::io::Write as _;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

pub use capture::Capture;
pub use guard::guard_the_harness;
pub use lines::Next;

use capture::capture;
use guard::{die_with_parent, mark, registry, Group, MARK};

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

impl Command {
    /// A command keeping [`KEEP`] bytes of each stream, the usual bound
    /// (set `keep` after for another).
    pub fn new(
        label: impl Into<String>,
        argv: Vec<String>,
        dir: impl Into<PathBuf>,
        deadline: Duration,
    ) -> Self {
        Command {
            label: label.into(),
            argv,
            dir: dir.into(),
            deadline,
            keep: KEEP,
        }
    }
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
        let killed = || "killed at the deadline".to_owned();
        self.status.map_or_else(killed, |status| status.to_string())
    }
}

/// "exit status: 2", "signal: 9 (SIGKILL)", or unknown.
pub fn describe_status(status: Option<ExitStatus>) -> String {
    status.map_or_else(|| "exit status unknown".to_owned(), |s| s.to_string())
}

/// Runs `command` to its end or its deadline, whichever comes first.
pub fn run(command: &Command, stdin: Stdin) -> std::io::Result<Output> {
    run_with(command, stdin, None)
}

/// `work` on each of `items`, all at once, each on a thread of its own
/// (each mostly waits on a child): the results in order, a thread that
/// panicked an error.
pub fn side_by_side<I: Sync, R: Send>(
    items: &[I],
    work: impl Fn(&I) -> Result<R, String> + Sync,
) -> Vec<Result<R, String>> {
    std::thread::scope(|scope| {
        let running = Vec::from_iter(items.iter().map(|item| scope.spawn(|| work(item))));
        let panicked = || Err("a thread panicked".to_owned());
        (running.into_iter())
            .map(|thread| thread.join().unwrap_or_else(|_| panicked()))
            .collect()
    })
}

/// Runs `command` with nothing on stdin as [`run`] does, while `read`, on a
/// thread of its own, reads every line of its stdout and stderr as they
/// come (each stream's in order), the whole of them where the output keeps
/// the head and the tail; what `read` gave, unless it was still reading a
/// second after the streams' end.
pub fn read_lines<T: Send + 'static>(
    command: &Command,
    read: impl FnOnce(mpsc::IntoIter<String>) -> T + Send + 'static,
) -> std::io::Result<(Output, Option<T>)> {
    let (lines, receiver) = mpsc::sync_channel(64);
    let (done, result) = mpsc::channel();
    std::thread::spawn(move || done.send(read(receiver.into_iter())));
    let output = run_with(command, Stdin::Null, Some(lines))?;
    Ok((output, result.recv_timeout(Duration::from_secs(1)).ok()))
}

fn run_with(
    command: &Command,
    stdin: Stdin,
    lines: Option<mpsc::SyncSender<String>>,
) -> std::io::Result<Output> {
    let (group, stdout, stderr) = start(command, stdin)?;
    let stdout = capture(stdout, command.keep, lines.clone());
    let stderr = capture(stderr, command.keep, lines);
    let status = group.handle.wait_timeout(command.deadline)?;
    let status = status.map(|output| output.status);
    drop(group);
    Ok(Output {
        status,
        stdout: stdout(),
        stderr: stderr(),
    })
}

/// Starts `command` in a group of its own, listed; the read ends of its
/// stdout and stderr.
fn start(
    command: &Command,
    stdin: Stdin,
) -> std::io::Result<(Group, os_pipe::PipeReader, os_pipe::PipeReader)> {
    let (stdout, stdout_writer) = os_pipe::pipe()?;
    let (stderr, stderr_writer) = os_pipe::pipe()?;
    let empty = || std::io::Error::new(std::io::ErrorKind::InvalidInput, "empty command line");
    let (program, args) = command.argv.split_first().ok_or_else(empty)?;
    // duct reads a `Path` as a file path and a string as a PATH lookup.
    let program = if program.contains('/') {
        command.dir.join(program).into_os_string()
    } else {
        program.into()
    };
    let expression = duct::cmd(program, args)
        .dir(&command.dir)
        .env(MARK, mark())
        .stdout_file(stdout_writer)
        .stderr_file(stderr_writer)
        .unchecked()
        .before_spawn(|child| {
            child.process_group(0);
            let parent = std::process::id() as libc::pid_t;
            // SAFETY: the hook only makes system calls (see die_with_parent).
            unsafe {
                child.pre_exec(move || die_with_parent(parent));
            }
            Ok(())
        });
    guard_the_harness();
    // Started and listed under the lock: a sweep never sees the child's new
    // group before it is listed.
    let mut registry = registry();
    if registry.closing {
        return Err(std::io::Error::other(
            "the harness was interrupted: no child starts any more",
        ));
    }
    // The expression (and with it the harness's copies of the pipes' write
    // ends) is dropped here, so the readers see the end of output as soon
    // as the child's group is gone.
    let handle = match stdin {
        Stdin::Null => expression.stdin_null().start()?,
        Stdin::Bytes(bytes) => {
            // Written by a thread of the harness's own, never joined: a
            // grandchild that left the group can hold stdin open without
            // reading it, and duct's writer thread, which `Handle::wait`
            // joins, would then hold the harness until that grandchild
            // ended (the sweep ends it when the harness exits).
            let (reader, mut writer) = os_pipe::pipe()?;
            let handle = expression.stdin_file(reader).start()?;
            std::thread::spawn(move || {
                let _ = writer.write_all(&bytes);
            });
            handle
        }
    };
    // One command, one process: the leader of its group.
    let pid = handle.pids()[0] as libc::pid_t;
    registry.live.insert(pid);
    registry.ever.insert(pid);
    Ok((Group { handle, pid }, stdout, stderr))
}

/// A child whose stdout is read line by line as it comes: a runner session.
pub struct Child {
    group: Group,
    lines: Receiver<Vec<Next>>,
    /// Lines of the last batch not yet asked for.
    pending: VecDeque<Next>,
    /// What it writes to stderr, once the group is ended.
    stderr: Box<dyn FnOnce() -> Capture>,
    /// Not `Send`: the thread that started the child ends it, so the
    /// kernel's parent-death signal (sent when that thread exits) never
    /// hits a child still in use.
    _same_thread: std::marker::PhantomData<*const ()>,
}

/// Starts `command` with `input` on stdin, reading its stdout line by line,
/// the n-th line within `limits[n]` bytes.
pub fn spawn(command: &Command, input: Vec<u8>, limits: Vec<usize>) -> std::io::Result<Child> {
    let (group, stdout, stderr) = start(command, Stdin::Bytes(input))?;
    Ok(Child {
        group,
        lines: lines::read(stdout, limits),
        pending: VecDeque::new(),
        stderr: Box::new(capture(stderr, command.keep, None)),
        _same_thread: std::marker::PhantomData,
    })
}

impl Child {
    /// The next stdout line, or `Err` when none came within `timeout`; at
    /// the end of output, the exit status (a child that closed stdout but
    /// lives on is not waited for long).
    pub fn next(&mut self, timeout: Duration) -> Result<Next, RecvTimeoutError> {
        // A batch is never empty: the reader sends one after a line or the
        // end, so this waits once, within `timeout`.
        if self.pending.is_empty() {
            self.pending.extend(self.lines.recv_timeout(timeout)?);
        }
        let next = self.pending.pop_front().expect("a line, just received");
        if let Next::Eof(_) = next {
            let exited = self.group.handle.wait_timeout(Duration::from_millis(500));
            return Ok(Next::Eof(exited.ok().flatten().map(|o| o.status)));
        }
        Ok(next)
    }

    /// Kills the whole group and returns what it wrote to stderr.
    pub fn kill(self) -> Capture {
        drop(self.group);
        (self.stderr)()
    }
}
