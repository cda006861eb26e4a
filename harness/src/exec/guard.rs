//! Nothing a child starts outlives the harness: the groups it started are
//! listed, SIGINT and SIGTERM kill them all, and orphans that left their
//! group are swept (the harness is a child subreaper on Linux).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard, Once, OnceLock, PoisonError};
use std::time::Duration;

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use signal_hook::low_level::exit;

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
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Where the process is: [`RUNNING`], the number of the signal that came
/// (the watcher is killing and will exit with 128 + it), or [`EXITING`].
/// Set by the handler itself, so it is set before any child is killed and
/// before any thread can see the effect of the signal.
static STATE: AtomicI32 = AtomicI32::new(RUNNING);
const RUNNING: i32 = 0;
/// The process is ending with its own status; a signal now only changes
/// the status (every child dies with the harness, see `die_with_parent`).
const EXITING: i32 = -1;

/// Runs when the process exits (`main` returns, `process::exit`): after a
/// signal, the watcher's status (128 + the signal) is the one exit status,
/// never the run's own result, however the threads raced.
/// A run ending on its own sweeps its orphans one last time, those in
/// its own group too.
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
    sweep(true);
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
        let Ok(mut signals) = Signals::new(None::<i32>) else {
            return;
        };
        for signal in [SIGINT, SIGTERM] {
            let record = move || {
                let state = STATE.compare_exchange(RUNNING, signal, Ordering::SeqCst, Ordering::SeqCst);
                // The run is over and its children die with the process:
                // only the status is left to say. (A second signal while
                // the first is handled changes nothing.)
                if state == Err(EXITING) {
                    exit(128 + signal);
                }
            };
            // SAFETY: the action only makes an atomic exchange and _exit(2),
            // both async-signal-safe. Registered before the watcher's own
            // action (actions run in that order), so the signal is recorded
            // before the watcher can act on it.
            let _ = unsafe { signal_hook::low_level::register(signal, record) };
            let _ = signals.add_signal(signal);
        }
        std::thread::spawn(move || {
            if signals.forever().next().is_some() {
                let signal = STATE.load(Ordering::SeqCst);
                let killed = kill_everything();
                eprintln!(
                    "\nparity: interrupted (signal {signal}); killed {killed} process group(s) it had started"
                );
                // Not exit(3): the main thread may be in exit(3) already
                // (see at_exit), and exit(3) from two threads at once is
                // undefined.
                exit(128 + signal);
            }
        });
        // SAFETY: registers a plain function with no captured state.
        unsafe {
            libc::atexit(at_exit);
        }
    });
}

/// Set in every child between fork and exec: the kernel kills it when the
/// harness dies, even by SIGKILL, which no handler sees.
///
/// The kernel sends it when the *thread* that forked exits, not the
/// process: safe here because [`super::run`] ends its child before it
/// returns, and a [`super::Child`] is not `Send`, so the thread that
/// started it ends it.
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
    let checkout = crate::repo_root().display().to_string();
    // This process and its ancestors up to init (a bound for a race that
    // makes the chain come back on itself).
    let parent = |&pid: &libc::pid_t| Some(read_proc(pid)?.parent).filter(|&p| p > 1);
    let spared = BTreeSet::from_iter(std::iter::successors(Some(me), parent).take(4096));
    let left_running = |pid: libc::pid_t| {
        let value = mark_value(pid)?;
        // `pid:start:root`: the first two hold no `:`, a root may.
        let (harness, rest) = value.split_once(':')?;
        let (started, root) = rest.split_once(':')?;
        if root != checkout {
            return None;
        }
        let alive = read_proc(harness.parse().ok()?)
            .is_some_and(|p| p.started.to_string() == started && p.state != 'Z');
        read_proc(pid).filter(|p| !alive && p.state != 'Z')
    };
    let pids = every_pid().unwrap_or_default().into_iter();
    let strays = pids.filter(|pid| !spared.contains(pid));
    let strays = Vec::from_iter(strays.filter_map(|pid| Some((pid, left_running(pid)?))));
    for (pid, proc) in &strays {
        kill(Some(*pid), (proc.group == *pid).then_some(*pid));
    }
    strays.len()
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

/// SIGKILL to the process `pid` and to the process group `group`; one
/// already gone is fine.
fn kill(pid: Option<libc::pid_t>, group: Option<libc::pid_t>) {
    // SAFETY: kill and killpg only send a signal; every caller names a
    // process or group the harness started, or a descendant of one.
    unsafe {
        if let Some(pid) = pid {
            libc::kill(pid, libc::SIGKILL);
        }
        if let Some(group) = group {
            libc::killpg(group, libc::SIGKILL);
        }
    }
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
            kill(None, Some(group));
        }
        std::mem::take(&mut registry.live).len()
    };
    sweep(true);
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
/// are left alone while it runs; at its end (`all`) every child is swept,
/// an orphan that joined the harness's own group and dropped the mark
/// with its environment among them.
fn sweep(all: bool) {
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
            if proc.parent != me || registry.live.contains(&pid) {
                continue;
            }
            let ours = all
                || registry.ever.contains(&proc.group)
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
                // Never the harness's own group: that is the harness.
                kill(Some(pid), (proc.group != this.group).then_some(proc.group));
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
    // The main thread's list tells that the kernel keeps them.
    std::fs::metadata(format!("/proc/{me}/task/{me}/children")).ok()?;
    // A thread that ended meanwhile has no list: its children moved to
    // another thread, read here or by the next sweep.
    let tasks = std::fs::read_dir(format!("/proc/{me}/task"))
        .ok()?
        .flatten();
    let lists = tasks.filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok());
    let pids = lists.flat_map(|list| {
        let pids = list.split_whitespace().map(str::parse::<libc::pid_t>);
        pids.flatten().collect::<Vec<_>>()
    });
    Some(pids.collect())
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

/// A started child and the process group it leads, ended when dropped (on
/// every exit path, a panic included): the group killed, the leader reaped
/// and unlisted, and what it left behind swept.
pub(super) struct Group {
    pub(super) handle: duct::Handle,
    pub(super) pid: libc::pid_t,
}

impl Drop for Group {
    fn drop(&mut self) {
        kill(None, Some(self.pid));
        let _ = self.handle.wait();
        registry().live.remove(&self.pid);
        sweep(false);
    }
}
