//! A child's stdout read line by line on a thread of its own, each line
//! within a bound, handed over through a bounded channel.

use std::io::Read;
use std::process::ExitStatus;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

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

/// The longest line read after the lines a caller gave limits for (what a
/// child prints after its last answer): enough to quote it.
const AFTER_LAST_LINE: usize = 64 * 1024;

pub(super) struct LineReceiver {
    /// Every whole line one read returned (or the end): a fast runner's
    /// answers arrive many to a read, and one wake-up per read (not per
    /// line) keeps the harness's share of the CPU small.
    events: Receiver<Vec<Next>>,
    pending: std::collections::VecDeque<Next>,
}

impl LineReceiver {
    /// Reads `stdout` on a thread of its own, the n-th line within
    /// `limits[n]` bytes. The channel is bounded: a child that floods
    /// stdout waits for the harness instead of filling the harness's
    /// memory (four reads' lines at most, each within its limit).
    pub(super) fn read(stdout: os_pipe::PipeReader, limits: Vec<usize>) -> Self {
        let (tx, events) = mpsc::sync_channel(4);
        std::thread::spawn(move || read_lines(stdout, &tx, &limits));
        LineReceiver {
            events,
            pending: std::collections::VecDeque::new(),
        }
    }

    pub(super) fn next(&mut self, timeout: Duration) -> Result<Next, RecvTimeoutError> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(next) = self.pending.pop_front() {
                return Ok(next);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            self.pending.extend(self.events.recv_timeout(left)?);
        }
    }
}

/// Reads `reader` line by line; the n-th line may be `limits[n]` bytes
/// long (later ones [`AFTER_LAST_LINE`]): a line over its limit is the
/// last one read.
fn read_lines(
    mut reader: os_pipe::PipeReader,
    events: &mpsc::SyncSender<Vec<Next>>,
    limits: &[usize],
) {
    let mut buffer = vec![0u8; 64 * 1024];
    let mut partial: Vec<u8> = Vec::new();
    let mut line = 0;
    loop {
        let count = match reader.read(&mut buffer) {
            Ok(count) => count,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = events.send(vec![Next::ReadError(e)]);
                return;
            }
        };
        if count == 0 {
            let last = (!partial.is_empty()).then_some(Next::Line(partial));
            let _ = events.send(last.into_iter().chain([Next::Eof(None)]).collect());
            return;
        }
        let mut lines = Vec::new();
        for piece in buffer[..count].split_inclusive(|&b| b == b'\n') {
            partial.extend_from_slice(piece);
            let limit = limits.get(line).copied().unwrap_or(AFTER_LAST_LINE);
            if partial.len() > limit.saturating_add(1) {
                // A line past the bound ends the reading: the session
                // blames it and kills the child, whatever it prints next.
                let length = partial.len();
                partial.truncate(1024);
                lines.push(Next::TooLong(partial, length));
                let _ = events.send(lines);
                return;
            }
            if partial.ends_with(b"\n") {
                partial.pop();
                line += 1;
                lines.push(Next::Line(std::mem::take(&mut partial)));
            }
        }
        if !lines.is_empty() && events.send(lines).is_err() {
            return;
        }
    }
}
