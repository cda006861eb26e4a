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

/// The longest stdout line a child may print: 8 MiB, far above any answer
/// of a case a file can hold in a reasonable size.
pub const MAX_LINE: usize = 8 * 1024 * 1024;

pub(super) enum Event {
    /// Every whole line one read returned: a fast runner's answers arrive
    /// many to a read, and one wake-up per read (not per line) keeps the
    /// harness's share of the CPU small.
    Lines(Vec<Next>),
    End(Next),
}

pub(super) struct LineReceiver {
    pub(super) events: Receiver<Event>,
    pub(super) pending: std::collections::VecDeque<Next>,
}

impl LineReceiver {
    pub(super) fn next(&mut self, timeout: Duration) -> Result<Next, RecvTimeoutError> {
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

pub(super) fn read_lines(mut reader: os_pipe::PipeReader, events: &mpsc::SyncSender<Event>) {
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
