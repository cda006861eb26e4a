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
//!
//! Nothing a child starts outlives the harness. Every group it started is
//! listed while it runs, and SIGINT or SIGTERM to the harness kills them all
//! before it exits (128 + the signal). A descendant that leaves its group
//! (`setsid`) is found too: on Linux the harness is a child subreaper, so
//! such an orphan becomes the harness's child when its parent dies, and it
//! is killed and reaped after every child the harness waits for (and on a
//! signal). An orphan is told from the harness's other children by its
//! group, its session, or the `PARITY_HARNESS` mark every child inherits.

use std::collections::BTreeSet;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Mutex, MutexGuard, Once};
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
    group.release();
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
        .env(MARK, std::process::id().to_string())
        .stdout_file(stdout)
        .stderr_file(stderr)
        .unchecked()
        .before_spawn(|child| {
            child.process_group(0);
            Ok(())
        });
    guard_the_harness();
    // Started and listed under the lock: a sweep never sees the child's new
    // group before it is listed.
    let mut registry = registry();
    // The expression (and with it the harness's copies of the pipes' write
    // ends) is dropped here, so the readers see the end of output as soon
    // as the child's group is gone.
    let handle = match stdin {
        Stdin::Null => expression.stdin_null().start(),
        Stdin::Bytes(bytes) => expression.stdin_bytes(bytes).start(),
    }?;
    if let Some(pid) = handle
        .pids()
        .first()
        .and_then(|&pid| libc::pid_t::try_from(pid).ok())
    {
        registry.live.insert(pid);
        registry.ever.insert(pid);
    }
    Ok(handle)
}

/// The environment variable every child (and what it starts) inherits: the
/// harness's pid, by which an orphan that left its group is recognised.
pub const MARK: &str = "PARITY_HARNESS";

/// The process groups the harness started (each child leads its own, so
/// the group ids are also the children's pids).
struct Registry {
    /// Those running now: killed on a signal, and never swept.
    live: BTreeSet<libc::pid_t>,
    /// All of them: an orphan in one of these groups is a stray.
    ever: BTreeSet<libc::pid_t>,
    /// Strays killed and not yet reaped (a zombie's mark cannot be read).
    strays: BTreeSet<libc::pid_t>,
}

/// The registry, locked while a child starts (so a sweep never sees a new
/// group before it is listed) and while orphans are swept.
fn registry() -> MutexGuard<'static, Registry> {
    static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
        live: BTreeSet::new(),
        ever: BTreeSet::new(),
        strays: BTreeSet::new(),
    });
    REGISTRY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The write end of the pipe the signal handler wakes the watcher with.
static SIGNAL_PIPE: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_signal(signal: libc::c_int) {
    let fd = SIGNAL_PIPE.load(Ordering::Relaxed);
    let byte = u8::try_from(signal).unwrap_or(0);
    // SAFETY: write(2) is async-signal-safe; the buffer is one local byte.
    unsafe {
        libc::write(fd, std::ptr::addr_of!(byte).cast(), 1);
    }
}

/// Once per process, before the first child starts: makes the harness a
/// child subreaper (Linux), and has SIGINT and SIGTERM kill every group it
/// started, and the orphans, before it exits.
fn guard_the_harness() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        #[cfg(target_os = "linux")]
        // SAFETY: prctl with PR_SET_CHILD_SUBREAPER only sets a flag of this
        // process; its arguments are plain integers.
        unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        }
        let mut fds = [0; 2];
        // SAFETY: pipe writes two descriptors into the array it is given.
        if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            return;
        }
        let [read_end, write_end] = fds;
        SIGNAL_PIPE.store(write_end, Ordering::Relaxed);
        std::thread::spawn(move || {
            let mut byte = 0u8;
            // SAFETY: reads one byte into a local from the pipe made above.
            let count = unsafe { libc::read(read_end, std::ptr::addr_of_mut!(byte).cast(), 1) };
            if count == 1 {
                let signal = libc::c_int::from(byte);
                let killed = kill_everything();
                eprintln!(
                    "\nparity: interrupted (signal {signal}); killed {killed} process group(s) it had started"
                );
                std::process::exit(128 + signal);
            }
        });
        for signal in [libc::SIGINT, libc::SIGTERM] {
            // SAFETY: installs a handler that only calls write(2); the
            // sigaction struct is zeroed and then filled.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
                action.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
    });
}

/// Kills every group the harness started that still runs, and the orphans;
/// returns how many groups were killed.
fn kill_everything() -> usize {
    let live: Vec<libc::pid_t> = registry().live.iter().copied().collect();
    for &group in &live {
        // SAFETY: killpg only sends a signal to a group this process made.
        unsafe {
            libc::killpg(group, libc::SIGKILL);
        }
    }
    registry().live.clear();
    sweep();
    live.len()
}

/// One process as /proc shows it.
struct Proc {
    pid: libc::pid_t,
    state: char,
    parent: libc::pid_t,
    group: libc::pid_t,
    session: libc::pid_t,
}

fn read_proc(pid: libc::pid_t) -> Option<Proc> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields start after
    // the last `)`.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let mut number = || fields.next()?.parse::<libc::pid_t>().ok();
    Some(Proc {
        pid,
        state,
        parent: number()?,
        group: number()?,
        session: number()?,
    })
}

/// Whether a process carries this harness's mark in its environment.
fn is_marked(pid: libc::pid_t, harness: libc::pid_t) -> bool {
    let needle = format!("{MARK}={harness}");
    std::fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|environ| environ.split(|&b| b == 0).any(|v| v == needle.as_bytes()))
}

/// Kills and reaps the orphans that became the harness's children: the
/// descendants of children it started that outlived their parent, in a
/// group it started, a session of their own, or carrying its mark. Its own
/// children (listed, or in its own group, like a test's helper process)
/// are left alone. Returns how many strays were killed.
pub fn sweep() -> usize {
    let mut registry = registry();
    let me = std::process::id() as libc::pid_t;
    let Some(this) = read_proc(me) else {
        return 0;
    };
    let mut killed = BTreeSet::new();
    for _ in 0..100 {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return killed.len();
        };
        let mut dying = false;
        for entry in entries.flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                continue;
            };
            let Some(proc) = read_proc(pid) else {
                continue;
            };
            if proc.parent != me || registry.live.contains(&proc.pid) || proc.group == this.group {
                continue;
            }
            let ours = registry.ever.contains(&proc.group)
                || registry.strays.contains(&proc.pid)
                || proc.session != this.session
                || is_marked(proc.pid, me);
            if !ours {
                continue;
            }
            if proc.state == 'Z' {
                // SAFETY: reaps one zombie child that no one else waits for
                // (not listed, so not a child a handle waits on).
                unsafe {
                    libc::waitpid(proc.pid, std::ptr::null_mut(), libc::WNOHANG);
                }
                registry.strays.remove(&proc.pid);
            } else if !registry.live.contains(&proc.group) {
                // SAFETY: signals a stray and its group, both descendants
                // of children this process started.
                unsafe {
                    libc::kill(proc.pid, libc::SIGKILL);
                    if proc.group != this.group {
                        libc::killpg(proc.group, libc::SIGKILL);
                    }
                }
                killed.insert(proc.pid);
                registry.strays.insert(proc.pid);
                dying = true;
            }
        }
        if !dying {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    killed.len()
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
    // instead of filling the harness's memory (four reads' lines at most,
    // each under MAX_LINE, so 32 MiB at the very worst).
    let (tx, events) = mpsc::sync_channel(4);
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
        self.group.release();
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

    /// Once its leader is reaped: the group is no longer listed, and what
    /// it left behind is swept.
    fn release(&self) {
        if let Some(pid) = self.0 {
            registry().live.remove(&pid);
            sweep();
        }
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
        self.group.release();
    }
}
