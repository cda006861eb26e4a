//! The demo check: each language's demo, run as a process on the shared
//! config, must print the Rust demo's transcript byte for byte.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::exec::{self, Stdin};
use crate::text::tail;
use crate::toolchain::Language;

/// The most a demo may print before it is cut off: 1 MiB, a hundred times
/// the transcript.
const KEEP: usize = 1024 * 1024;

/// Where the demos' config and the transcript they must print live.
#[derive(Debug, Clone)]
pub struct Demo {
    /// The repository root: demos start here.
    pub root: PathBuf,
    /// The config every demo reads, relative to the root.
    pub config: PathBuf,
    /// The transcript every demo must print: the Rust demo's.
    pub transcript: PathBuf,
    /// How long a demo may run.
    pub deadline: Duration,
}

impl Demo {
    /// Runs a prepared language's demo on `config` and returns its stdout,
    /// or why not.
    pub fn run(&self, language: &Language, config: &Path) -> Result<String, String> {
        let mut argv = language.demo.clone();
        argv.push(config.to_string_lossy().into_owned());
        let command = exec::Command {
            label: format!("the {} demo", language.name),
            argv,
            dir: self.root.clone(),
            deadline: self.deadline,
            keep: KEEP,
        };
        let output = exec::run(&command, Stdin::Null)
            .map_err(|e| format!("{} could not be started: {e}", command.label))?;
        if output.status.is_none() {
            return Err(format!(
                "{} did not finish within {} s (PARITY_TIMEOUT); its process group was killed",
                command.label,
                self.deadline.as_secs_f64()
            ));
        }
        if !output.success() {
            return Err(format!(
                "{} failed ({}):\n{}",
                command.label,
                output.describe(),
                tail(&output.stderr.text(), 30)
            ));
        }
        let stdout = output.stdout.whole().ok_or_else(|| {
            format!(
                "{} printed {} bytes, more than the {KEEP} a transcript may have",
                command.label,
                output.stdout.total()
            )
        })?;
        String::from_utf8(stdout)
            .map_err(|_| format!("{} printed something that is not UTF-8", command.label))
    }

    /// Why a prepared language's demo does not print the transcript, or
    /// `Ok` when it does.
    pub fn check(&self, language: &Language) -> Result<(), String> {
        let expected = std::fs::read_to_string(self.root.join(&self.transcript))
            .map_err(|e| format!("cannot read {}: {e}", self.transcript.display()))?;
        let actual = self.run(language, &self.config)?;
        match transcript_difference(&expected, &actual) {
            None => Ok(()),
            Some(difference) => Err(format!(
                "the {} demo's transcript differs from the Rust demo's ({}) {difference}",
                language.name,
                self.transcript.display()
            )),
        }
    }
}

/// Where two transcripts first differ, byte for byte, or `None`.
pub fn transcript_difference(expected: &str, actual: &str) -> Option<String> {
    if expected == actual {
        return None;
    }
    let mut expected_lines = expected.split_inclusive('\n');
    let mut actual_lines = actual.split_inclusive('\n');
    let mut number = 1;
    loop {
        match (expected_lines.next(), actual_lines.next()) {
            (Some(e), Some(a)) if e == a => number += 1,
            (e, a) => {
                return Some(format!(
                    "at line {number}:\n  expected: {}\n  actual:   {}",
                    e.map_or("(end of output)".into(), |l| format!("{l:?}")),
                    a.map_or("(end of output)".into(), |l| format!("{l:?}")),
                ))
            }
        }
    }
}
