//! Nothing a child starts outlives the harness: the groups it started are
//! listed, SIGINT and SIGTERM kill them all, and orphans that left their
//! group are swept (the harness is a child subreaper on Linux).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard, Once};
use std::time::Duration;

/// The environment variable every child (and what it starts) inherits: the
/// harness's pid, by which an orphan that left its group is recognised.
pub const MARK: &str = "PARITY_HARNESS";

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
pub(super) fn guard_the_harness() {
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

/// A child's process group; killed when the child is done with or given up
/// on, and on drop, so no exit path leaves it running.
pub struct Group(Option<i32>);

impl Group {
    pub(super) fn of(handle: &duct::Handle) -> Self {
        Group(
            handle
                .pids()
                .first()
                .and_then(|&pid| libc::pid_t::try_from(pid).ok()),
        )
    }

    /// Once its leader is reaped: the group is no longer listed, and what
    /// it left behind is swept.
    pub(super) fn release(&self) {
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
