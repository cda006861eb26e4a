//! The Rust runner: reads cases from stdin, one JSON object per line, and
//! answers each with one line on stdout, flushed before reading on.

use std::io::{self, BufRead, Write};

fn main() -> io::Result<()> {
    let stdin = io::stdin().lock();
    let mut stdout = io::stdout().lock();
    for line in stdin.lines() {
        let answer = outbox_runner::answer(&line?);
        writeln!(stdout, "{answer}")?;
        stdout.flush()?;
    }
    Ok(())
}
