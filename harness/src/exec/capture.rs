//! Output kept within a bound: whatever a child prints, the harness keeps
//! its head and its tail and counts the rest, so its memory stays bounded.

use std::collections::VecDeque;
use std::io::{BufRead, Read};
use std::sync::mpsc;
use std::time::Duration;

/// Output kept within a bound: the first and the last bytes, and how many
/// there were in all.
#[derive(Debug, Clone, Default)]
pub struct Capture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
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
        (!self.is_cut()).then(|| self.head.iter().chain(&self.tail).copied().collect())
    }

    /// The kept text (invalid UTF-8 replaced), with a line saying how much
    /// was left out between head and tail.
    pub fn text(&self) -> String {
        let left_out = self.total - (self.head.len() + self.tail.len()) as u64;
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        if left_out > 0 {
            text.push_str(&format!("\n[… {left_out} bytes left out …]\n"));
        }
        text.push_str(&String::from_utf8_lossy(
            &self.tail.iter().copied().collect::<Vec<_>>(),
        ));
        text
    }

    /// Takes more output; memory stays within `keep` bytes.
    fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let half = self.keep / 2;
        let room = half.saturating_sub(self.head.len());
        let (to_head, rest) = bytes.split_at(room.min(bytes.len()));
        self.head.extend_from_slice(to_head);
        self.tail.extend(rest);
        self.tail.drain(..self.tail.len().saturating_sub(half));
    }
}

/// The longest piece of a line handed to a reader: a longer line comes in
/// pieces, so what a reader holds stays bounded.
const LINE: u64 = 64 * 1024;

/// Fills a [`Capture`] from `reader` on a thread of its own, and hands
/// every line of the whole stream to `lines`, if any, as it comes, without
/// its line end (a reader gone is no error); the function returned gives
/// the capture once the stream ends. A stream held open by a process that
/// left the group is given up on after a second.
pub(super) fn capture(
    reader: os_pipe::PipeReader,
    keep: usize,
    lines: Option<mpsc::SyncSender<String>>,
) -> impl FnOnce() -> Capture {
    let (tx, done) = mpsc::channel();
    std::thread::spawn(move || {
        let mut capture = Capture::new(keep);
        let mut reader = std::io::BufReader::new(reader);
        let mut line = Vec::new();
        // A read error ends the capture like the end of output.
        while (&mut reader)
            .take(LINE)
            .read_until(b'\n', &mut line)
            .is_ok_and(|n| n > 0)
        {
            capture.push(&line);
            if let Some(to) = &lines {
                let _ = to.send(String::from_utf8_lossy(&line).trim_end().to_owned());
            }
            line.clear();
        }
        let _ = tx.send(capture);
    });
    move || {
        done.recv_timeout(Duration::from_secs(1))
            .unwrap_or_else(|_| Capture::new(keep))
    }
}
