//! A child's stdout read line by line on a thread of its own, each line
//! within a bound, handed over through a bounded channel.

use std::io::{BufRead, BufReader, Read};
use std::process::ExitStatus;
use std::sync::mpsc::{self, Receiver};

/// What came next on a child's stdout.
#[derive(Debug)]
pub enum Next {
    /// One whole line, without its newline.
    Line(Vec<u8>),
    /// A line longer than the bound: its start.
    TooLong(Vec<u8>),
    /// End of output, and the exit status if the child has exited.
    Eof(Option<ExitStatus>),
    /// Reading failed.
    ReadError(std::io::Error),
}

/// The longest line read after the lines a caller gave limits for (what a
/// child prints after its last answer): enough to quote it.
const AFTER_LAST_LINE: usize = 64 * 1024;

/// Reads `stdout` on a thread of its own, the n-th line within
/// `limits[n]` bytes (later ones [`AFTER_LAST_LINE`]); a line over its
/// limit is the last one read. Each message is every whole line one read
/// returned (or the end): a fast runner's answers arrive many to a read,
/// and one wake-up per read (not per line) keeps the harness's share of
/// the CPU small. The channel is bounded: a child that floods stdout waits
/// for the harness instead of filling the harness's memory (four reads'
/// lines at most, each within its limit).
pub(super) fn read(stdout: os_pipe::PipeReader, limits: Vec<usize>) -> Receiver<Vec<Next>> {
    let (events, receiver) = mpsc::sync_channel(4);
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    std::thread::spawn(move || {
        let mut lines = Vec::new();
        for index in 0.. {
            let limit = limits.get(index).copied().unwrap_or(AFTER_LAST_LINE);
            let mut line = Vec::new();
            // One byte more than the limit: a line that fills it unended is too long.
            let bound = (limit as u64).saturating_add(1);
            let next = match (&mut reader).take(bound).read_until(b'\n', &mut line) {
                Err(e) => Next::ReadError(e),
                Ok(0) => Next::Eof(None),
                // A line past the bound ends the reading: the session blames it
                // and kills the child, whatever it prints next.
                Ok(length) if length > limit && !line.ends_with(b"\n") => {
                    line.truncate(1024);
                    Next::TooLong(line)
                }
                Ok(_) => {
                    line.pop_if(|byte| *byte == b'\n');
                    Next::Line(line)
                }
            };
            let done = !matches!(next, Next::Line(_));
            lines.push(next);
            if done || reader.buffer().is_empty() {
                let sent = events.send(std::mem::take(&mut lines));
                if done || sent.is_err() {
                    return;
                }
            }
        }
    });
    receiver
}
