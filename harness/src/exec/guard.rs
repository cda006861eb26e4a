//! Nothing a child starts outlives the harness: the groups it started are
//! listed, SIGINT and SIGTERM kill them all, and orphans that left their
//! group are swept (the harness is a child subreaper on Linux).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard, Once, OnceLock};
use std::time::Duration;

/// The environment variable every child (and what it starts) inherits: the
/// harness's pid, by which an orphan that left its group is recognised.
pub(super) const MARK: &str = "PARITY_HARNESS";

/// The process groups the harness started (each child leads its own, so
/// the group ids are also the children's pids).
pub(super) struct Registry {
    /// Those running now: killed on a signal, and never swept.
    pub(super) live: BTreeSet<libc::pid_t>,
    /// All of them: an orphan in one of these groups is a stray.
    pub(super) ever: BTreeSet<libc::pid_t>,
    /// Strays killed and not yet reaped (a zombie's mark cannot be read).
    strays: BTreeSet<libc::pid_t>,
    /// A signal came: no child may start any more (another thread could
    /// otherwise start one between the kill and the exit).
    pub(super) closing: bool,
}

/// The registry, locked while a child starts (so a sweep never sees a new
/// group before it is listed) and while orphans are swept.
pub(super) fn registry() -> MutexGuard<'static, Registry> {
    static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
        live: BTreeSet::new(),
        ever: BTreeSet::new(),
        strays: BTreeSet::new(),
        closing: false,
    });
    REGISTRY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The write end of the pipe the signal handler wakes the watcher with.
static SIGNAL_PIPE: AtomicI32 = AtomicI32::new(-1);

/// Where the process is: [`RUNNING`], the number of the signal that came
/// (the watcher is killing and will exit with 128 + it), or [`EXITING`].
/// Set by the handler itself, so it is set before any child is killed and
/// before any thread can see the effect of the signal.
static STATE: AtomicI32 = AtomicI32::new(RUNNING);
const RUNNING: i32 = 0;
/// The process is ending with its own status; a signal now only changes
/// the status (every child dies with the harness, see `die_with_parent`).
const EXITING: i32 = -1;

extern "C" fn on_signal(signal: libc::c_int) {
    match STATE.compare_exchange(RUNNING, signal, Ordering::SeqCst, Ordering::SeqCst) {
        Ok(_) => {
            let fd = SIGNAL_PIPE.load(Ordering::SeqCst);
            let byte = u8::try_from(signal).unwrap_or(0);
            // SAFETY: write(2) is async-signal-safe; the buffer is one local byte.
            unsafe {
                libc::write(fd, std::ptr::addr_of!(byte).cast(), 1);
            }
        }
        // SAFETY: _exit(2) is async-signal-safe. The run is over and its
        // children die with the process, so only the status is left to say.
        Err(EXITING) => unsafe { libc::_exit(128 + signal) },
        // A second signal while the first is handled: the first one's exit comes.
        Err(_) => {}
    }
}

/// Runs when the process exits (`main` returns, `process::exit`): after a
/// signal, the watcher's status (128 + the signal) is the one exit status,
/// never the run's own result, however the threads raced.
extern "C" fn at_exit() {
    if STATE
        .compare_exchange(RUNNING, EXITING, Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
    {
        // A signal came first: the watcher kills what is left, then calls
        // _exit. This thread only waits for that.
        loop {
            std::thread::park();
        }
    }
}

/// Once per process, before the first child starts (and at the start of a
/// run): makes the harness a child subreaper (Linux), sweeps what an
/// earlier harness that was killed left running, and has SIGINT and
/// SIGTERM kill every group it started, and the orphans, before it exits
/// with 128 + the signal, on every path.
pub fn guard_the_harness() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        #[cfg(target_os = "linux")]
        // SAFETY: prctl with PR_SET_CHILD_SUBREAPER only sets a flag of this
        // process; its arguments are plain integers.
        unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        }
        let left = sweep_earlier_runs();
        if left > 0 {
            eprintln!(
                "parity: killed {left} process(es) that a harness killed earlier (SIGKILL) had left running"
            );
        }
        let mut fds = [0; 2];
        // SAFETY: pipe writes two descriptors into the array it is given.
        if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            return;
        }
        let [read_end, write_end] = fds;
        SIGNAL_PIPE.store(write_end, Ordering::SeqCst);
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
                // SAFETY: _exit ends the process at once. Not exit(3): the
                // main thread may be in exit(3) already (see at_exit), and
                // exit(3) from two threads at once is undefined.
                unsafe { libc::_exit(128 + signal) };
            }
        });
        // SAFETY: registers a plain function with no captured state.
        unsafe {
            libc::atexit(at_exit);
        }
        for signal in [libc::SIGINT, libc::SIGTERM] {
            // SAFETY: installs a handler that only calls write(2) or _exit(2);
            // the sigaction struct is zeroed and then filled.
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

/// Set in every child between fork and exec: the kernel kills it when the
/// harness dies, even by SIGKILL, which no handler sees.
///
/// The kernel sends it when the *thread* that forked exits, not the
/// process. That is safe here because a child never outlives the call that
/// started it: [`super::run`] waits for its child or kills it before it
/// returns, and a [`super::Child`] is not `Send`, so it is killed (on drop
/// at the latest) by the thread that started it, before that thread can
/// end.
///
/// Only async-signal-safe calls: it runs in the forked child.
pub(super) fn die_with_parent(parent: libc::pid_t) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl and getppid are system calls that touch no memory of
    // the (forked) process.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        // The harness died before the prctl: the signal will never come.
        if libc::getppid() != parent {
            return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
        }
    }
    let _ = parent;
    Ok(())
}

/// The value of [`MARK`] this harness gives its children: its pid, its
/// start time (so a reused pid is not taken for it) and its repository
/// root (so a run only sweeps what a run of the same checkout left).
pub(super) fn mark() -> &'static str {
    static VALUE: OnceLock<String> = OnceLock::new();
    VALUE.get_or_init(|| {
        let me = std::process::id() as libc::pid_t;
        let started = read_proc(me).map_or(0, |p| p.started);
        format!("{me}:{started}:{}", crate::repo_root().display())
    })
}

/// Kills what a harness of this checkout that died without cleaning up (a
/// SIGKILL, an out-of-memory kill) left running: the processes carrying
/// its mark, whose harness is gone. Processes of a harness still running,
/// or of another checkout, are left alone, and so are this process and its
/// ancestors (a test binary started by a killed run). Returns how many.
fn sweep_earlier_runs() -> usize {
    let me = std::process::id() as libc::pid_t;
    let root = crate::repo_root().display().to_string();
    let mut spared = BTreeSet::from([me]);
    let mut ancestor = read_proc(me).map(|p| p.parent);
    while let Some(pid) = ancestor.filter(|&p| p > 1 && spared.insert(p)) {
        ancestor = read_proc(pid).map(|p| p.parent);
    }
    let mut killed = 0;
    for pid in every_pid().unwrap_or_default() {
        if spared.contains(&pid) {
            continue;
        }
        let Some((harness, started, checkout)) = mark_of(pid) else {
            continue;
        };
        let alive = read_proc(harness).is_some_and(|p| p.started == started && p.state != 'Z');
        if alive || checkout != root {
            continue;
        }
        let Some(proc) = read_proc(pid).filter(|p| p.state != 'Z') else {
            continue;
        };
        // SAFETY: signals a process (and the group it leads) that carries
        // the mark of a harness of this checkout that is gone.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
            if proc.group == pid {
                libc::killpg(pid, libc::SIGKILL);
            }
        }
        killed += 1;
    }
    killed
}

/// The value of [`MARK`] in a process's environment, if it has one.
fn mark_value(pid: libc::pid_t) -> Option<String> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let prefix = format!("{MARK}=");
    let value = environ
        .split(|&b| b == 0)
        .find_map(|v| v.strip_prefix(prefix.as_bytes()))?;
    String::from_utf8(value.to_vec()).ok()
}

/// The harness pid, start time and root in a process's mark, if it has one.
fn mark_of(pid: libc::pid_t) -> Option<(libc::pid_t, u64, String)> {
    let value = mark_value(pid)?;
    let mut parts = value.splitn(3, ':');
    let (harness, started) = (parts.next()?.parse().ok()?, parts.next()?.parse().ok()?);
    Some((harness, started, parts.next()?.to_owned()))
}

/// Kills every group the harness started that still runs, and the orphans;
/// returns how many groups were killed.
fn kill_everything() -> usize {
    let killed = {
        // One hold of the lock: once `closing` is set no child starts, so
        // every group that will ever run is in `live` and killed here.
        let mut registry = registry();
        registry.closing = true;
        for &group in &registry.live {
            // SAFETY: killpg only sends a signal to a group this process made.
            unsafe {
                libc::killpg(group, libc::SIGKILL);
            }
        }
        let killed = registry.live.len();
        registry.live.clear();
        killed
    };
    sweep();
    killed
}

/// One process as /proc shows it.
struct Proc {
    state: char,
    parent: libc::pid_t,
    group: libc::pid_t,
    session: libc::pid_t,
    /// Clock ticks after boot: with the pid, names one process for good.
    started: u64,
}

fn read_proc(pid: libc::pid_t) -> Option<Proc> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields start after
    // the last `)`.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let mut number = || fields.next()?.parse::<libc::pid_t>().ok();
    let (parent, group, session) = (number()?, number()?, number()?);
    // Fields 7 to 21 come before the start time (field 22).
    let started = fields.nth(15)?.parse().ok()?;
    Some(Proc {
        state,
        parent,
        group,
        session,
        started,
    })
}

/// Kills and reaps the orphans that became the harness's children: the
/// descendants of children it started that outlived their parent, in a
/// group it started, a session of their own, or carrying its mark. Its own
/// children (listed, or in its own group, like a test's helper process)
/// are left alone.
fn sweep() {
    let mut registry = registry();
    let me = std::process::id() as libc::pid_t;
    let Some(this) = read_proc(me) else {
        return;
    };
    for _ in 0..100 {
        let Some(candidates) = children_of(me).or_else(every_pid) else {
            return;
        };
        let mut dying = false;
        // A child reaped here had its own children handed to this process
        // when it died, maybe after `candidates` was read (the threads'
        // lists, unlike /proc's, name only who was a child then): one
        // more look finds them.
        let mut reaped = false;
        for pid in candidates {
            let Some(proc) = read_proc(pid) else {
                continue;
            };
            if proc.parent != me || registry.live.contains(&pid) || proc.group == this.group {
                continue;
            }
            let ours = registry.ever.contains(&proc.group)
                || registry.strays.contains(&pid)
                || proc.session != this.session
                || mark_value(pid).as_deref() == Some(mark());
            if !ours {
                continue;
            }
            if proc.state == 'Z' {
                // SAFETY: reaps one zombie child that no one else waits for
                // (not listed, so not a child a handle waits on).
                unsafe {
                    libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG);
                }
                registry.strays.remove(&pid);
                reaped = true;
            } else if !registry.live.contains(&proc.group) {
                // SAFETY: signals a stray and its group, both descendants
                // of children this process started.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                    if proc.group != this.group {
                        libc::killpg(proc.group, libc::SIGKILL);
                    }
                }
                registry.strays.insert(pid);
                dying = true;
            }
        }
        if dying {
            std::thread::sleep(Duration::from_millis(10));
        } else if !reaped {
            break;
        }
    }
}

/// The children of process `me` (this one) from its threads' `children`
/// lists, where an orphan the subreaper adopts is too: a few lines, where
/// reading every process ([`every_pid`]) cost 3-5 ms a sweep, 0.3-0.4 s of
/// a warm make test. `None` without such lists (no CONFIG_PROC_CHILDREN).
fn children_of(me: libc::pid_t) -> Option<Vec<libc::pid_t>> {
    let pids = |tid: &str| -> Option<Vec<libc::pid_t>> {
        let list = std::fs::read_to_string(format!("/proc/{me}/task/{tid}/children")).ok()?;
        Some(
            list.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect(),
        )
    };
    // The main thread's list tells that the kernel keeps them.
    pids(&me.to_string())?;
    let mut children = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{me}/task"))
        .ok()?
        .flatten()
    {
        // A thread that ended meanwhile has no list: its children moved to
        // another thread, read here or by the next sweep.
        children.extend(pids(&task.file_name().to_string_lossy()).unwrap_or_default());
    }
    Some(children)
}

/// Every process on the machine.
fn every_pid() -> Option<Vec<libc::pid_t>> {
    let entries = std::fs::read_dir("/proc").ok()?;
    Some(
        entries
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse().ok())
            .collect(),
    )
}

/// A child's process group (its leader's pid); killed when the child is
/// done with or given up on, and on drop, so no exit path leaves it
/// running.
pub(super) struct Group(pub(super) Option<libc::pid_t>);

impl Group {
    /// Kills the group, reaps its leader, unlists it and sweeps what it
    /// left behind: how every child ends.
    /// Once only: after it, the leader's pid is reaped and may be reused,
    /// so a second kill (a drop after `end`) could signal a stranger.
    pub(super) fn end(&mut self, handle: &duct::Handle) {
        self.kill();
        let _ = handle.wait();
        if let Some(pid) = self.0.take() {
            registry().live.remove(&pid);
            sweep();
        }
    }

    /// Kills every process of the group; a group already gone is fine.
    fn kill(&self) {
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
