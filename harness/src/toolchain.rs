//! The languages the suite checks, each its folder's manifest
//! (`runners/<language>/language.toml`, see [`manifest`]): adding a
//! language is adding a folder; and getting a language ready (probe,
//! build), each step a child with a deadline.

use std::path::Path;
use std::time::Duration;

use crate::exec::{self, Stdin};
use crate::text::tail;

mod freshness;
pub mod manifest;
pub mod unit;

pub use manifest::Manifest;

/// What preparing a language found, kept beside its manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ready {
    /// The probe's first line: the version the report shows, so the page
    /// does not probe a language the run has already probed.
    pub version: String,
    /// The program the probe printed on its last line, if any (see
    /// [`Manifest::probe`]).
    pub program: Option<String>,
}

/// Why a language cannot run: never a pass, so a caller cannot mistake it
/// for one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotReady {
    /// Its toolchain is not installed: the probe could not run.
    #[error("{language} toolchain not available ({probe}); {hint}")]
    Missing {
        /// The language.
        language: String,
        /// The probe's command line and what went wrong.
        probe: String,
        /// What to install.
        hint: String,
    },
    /// A build step failed or ran out of time.
    #[error("building {language} failed: `{step}` {output}")]
    BuildFailed {
        /// The language.
        language: String,
        /// The step's command line.
        step: String,
        /// How it ended and the tail of what it printed.
        output: String,
    },
}

/// `argv` as a step of preparing a language: from `root`, within `deadline`.
fn command(argv: &[String], root: &Path, deadline: Duration) -> exec::Command {
    let label = format!("`{}`", argv.join(" "));
    exec::Command::new(label, argv.to_vec(), root, deadline)
}

impl Manifest {
    /// Runs the probe from `root` within `deadline`: what it printed, or
    /// that the toolchain is missing.
    pub fn run_probe(&self, root: &Path, deadline: Duration) -> Result<Ready, NotReady> {
        let why = match exec::run(&command(&self.probe, root, deadline), Stdin::Null) {
            Ok(output) if output.success() => {
                let printed = output.stdout.text();
                return Ok(Ready {
                    version: printed.lines().next().unwrap_or("(printed nothing)").into(),
                    program: printed_program(&printed),
                });
            }
            Ok(output) => format!("{}: {}", output.describe(), output.stderr.text().trim()),
            Err(e) => e.to_string(),
        };
        Err(NotReady::Missing {
            language: self.name.clone(),
            probe: format!("`{}`: {why}", self.probe.join(" ")),
            hint: self.install_hint.clone(),
        })
    }

    /// Probes the toolchain, then runs the build steps that are not fresh
    /// (for a mutant's judge, see [`crate::config::judging_a_mutant`]),
    /// each from `root` within `deadline`.
    pub fn prepare(&self, root: &Path, deadline: Duration) -> Result<Ready, NotReady> {
        let ready = self.run_probe(root, deadline)?;
        let mutant = crate::config::judging_a_mutant();
        let stale = |step: &&manifest::BuildStep| !step.is_fresh(root, mutant);
        // What a failed step printed: the tail of its stdout, then stderr.
        let printed =
            |output: &exec::Output| tail(&(output.stdout.text() + &output.stderr.text()), 60);
        for step in self.build.iter().filter(stale) {
            let line = step.run.join(" ");
            let ran = (step.unstale(root).map_err(std::io::Error::other))
                .and_then(|()| exec::run(&command(&step.run, root, deadline), Stdin::Null));
            let failure = match ran {
                Ok(output) if output.success() => match step.mark_done(root) {
                    Ok(()) => continue,
                    Err(why) => format!("({why})"),
                },
                Ok(output) if output.status.is_none() => format!(
                    "(did not finish within {} s, PARITY_BUILD_TIMEOUT; its process group was killed):\n{}",
                    deadline.as_secs_f64(),
                    printed(&output)
                ),
                Ok(output) => format!("({}):\n{}", output.describe(), printed(&output)),
                Err(e) => format!("(could not start: {e})"),
            };
            return Err(NotReady::BuildFailed {
                language: self.name.clone(),
                step: line,
                output: failure,
            });
        }
        Ok(ready)
    }
}

/// The program a probe printed: its last line, when that is an absolute
/// path to a file (the first line stays the version, for the report).
fn printed_program(stdout: &str) -> Option<String> {
    let line = stdout.lines().last()?.trim_end();
    let path = Path::new(line);
    (path.is_absolute() && path.is_file()).then(|| line.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_last_line_that_is_an_absolute_path_to_a_file_is_a_program() {
        assert_eq!(printed_program("/bin/sh\n"), Some("/bin/sh".to_owned()));
        for not_a_program in [
            "Python 3.11.7\n",
            "relative/python\n",
            "/no/such/file\n",
            "",
        ] {
            assert_eq!(printed_program(not_a_program), None, "{not_a_program:?}");
        }
    }
}
