//! The languages the suite checks: one entry each says which tool it needs,
//! how to build it and how to start its runner and its demo; and getting a
//! language ready (probe, build), each step a child with a deadline.
//! Each language's entry is its folder's manifest
//! (`runners/<language>/language.toml`, see [`manifest`]): adding a
//! language is adding a folder.

use std::path::Path;
use std::time::Duration;

use crate::exec::{self, Stdin};
use crate::text::tail;

mod freshness;
pub mod manifest;
pub mod unit;

pub use freshness::Freshness;

/// One implementation of the practice and how to drive it.
#[derive(Debug, Clone)]
pub struct Language {
    /// Name in trial paths and messages, e.g. `go`.
    pub name: String,
    /// A command that succeeds when the toolchain is installed; its first
    /// line is the version the report shows. When its last line is the
    /// absolute path of a file (an interpreter's `sys.executable`), that
    /// program replaces the probe's own program
    /// (`python3`) wherever the runner, demo and unit command lines start
    /// with it: a wrapper on PATH is resolved once per run, not paid on
    /// every start.
    pub probe: Vec<String>,
    /// What to install when the probe cannot run.
    pub install_hint: String,
    /// Run in order from the repository root before the runner starts.
    pub build: Vec<Step>,
    /// The runner's command line; a relative program path is taken from the
    /// repository root.
    pub runner: Vec<String>,
    /// The demo's command line; the shared config path is appended.
    pub demo: Vec<String>,
    /// The port's own tests, run with the language's standard tool; they
    /// check the idioms the table cannot see (the language notes of
    /// SPEC.md). Exit 0 is a pass.
    pub unit: Vec<String>,
    /// The first line the probe printed, once [`Language::prepare`]
    /// ran it: the version the report shows, so the page does not probe a
    /// language the run has already probed.
    pub version: Option<String>,
}

/// One build command.
#[derive(Debug, Clone)]
pub struct Step {
    /// The command line; never holds case data.
    pub argv: Vec<String>,
    /// Skip the step while it is fresh: see [`Freshness`].
    pub unless_fresh: Option<Freshness>,
}

impl Step {
    /// A step that always runs (the tool itself knows what is up to date).
    pub fn always(argv: Vec<String>) -> Self {
        Step {
            argv,
            unless_fresh: None,
        }
    }
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

impl Language {
    /// Probes the toolchain, then runs the build steps that are not fresh,
    /// each from `root` within `deadline`; the language ready, with the
    /// program its probe printed (if any) in place of the probe's program.
    pub fn prepare(&self, root: &Path, deadline: Duration) -> Result<Language, NotReady> {
        let command = |argv: &[String]| {
            let label = format!("`{}`", argv.join(" "));
            exec::Command::new(label, argv.to_vec(), root, deadline)
        };
        let printed = match exec::run(&command(&self.probe), Stdin::Null) {
            Ok(output) if output.success() => output.stdout.text(),
            failed => {
                let why = match failed {
                    Ok(output) => format!("{}: {}", output.describe(), output.stderr.text().trim()),
                    Err(e) => e.to_string(),
                };
                return Err(NotReady::Missing {
                    language: self.name.clone(),
                    probe: format!("`{}`: {why}", self.probe.join(" ")),
                    hint: self.install_hint.clone(),
                });
            }
        };
        let mut resolved = self.clone();
        if let Some(program) = printed_program(&printed) {
            resolved.resolve(&program);
        }
        resolved.version = Some(printed.lines().next().unwrap_or("(printed nothing)").into());
        for step in &self.build {
            // The command line is hashed with the inputs: another one reruns.
            let line = step.argv.join(" ");
            let fresh = step.unless_fresh.as_ref();
            if fresh.is_some_and(|f| f.is_fresh(root, &line)) {
                continue;
            }
            let failure = match exec::run(&command(&step.argv), Stdin::Null) {
                Ok(output) if output.success() => {
                    if let Some(Err(e)) = fresh.map(|f| f.mark_done(root, &line)) {
                        eprintln!("parity: cannot record that `{line}` succeeded: {e}");
                    }
                    continue;
                }
                Ok(output) if output.status.is_none() => format!(
                    "(did not finish within {} s, PARITY_BUILD_TIMEOUT; its process group was killed):\n{}",
                    deadline.as_secs_f64(),
                    tail(&both(&output), 60)
                ),
                Ok(output) => format!("({}):\n{}", output.describe(), tail(&both(&output), 60)),
                Err(e) => format!("(could not start: {e})"),
            };
            return Err(NotReady::BuildFailed {
                language: self.name.clone(),
                step: line,
                output: failure,
            });
        }
        Ok(resolved)
    }

    /// Replaces the probe's program with `program` where a command line
    /// starts with it.
    fn resolve(&mut self, program: &str) {
        let Some(probed) = self.probe.first().cloned() else {
            return;
        };
        for argv in [&mut self.runner, &mut self.demo, &mut self.unit] {
            if argv.first() == Some(&probed) {
                argv[0] = program.to_owned();
            }
        }
    }
}

/// The program a probe printed: its last line, when that is an absolute
/// path to a file (the first line stays the version, for the report).
fn printed_program(stdout: &str) -> Option<String> {
    let line = stdout.lines().last()?.trim_end();
    let path = Path::new(line);
    (path.is_absolute() && path.is_file()).then(|| line.to_owned())
}

/// A build's stdout, then its stderr.
fn both(output: &exec::Output) -> String {
    let mut text = output.stdout.text();
    text.push_str(&output.stderr.text());
    text
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

    /// The probe's first line is the report's version; the program on its
    /// last replaces the probe's own where a command line starts with it.
    #[test]
    fn a_probe_that_prints_an_interpreter_resolves_it() {
        let manifests = manifest::read_all(&crate::repo_root()).unwrap();
        let mut language = manifests[0].language(Path::new("/target"));
        let echo = "echo 'tool 1.2'; echo /bin/sh";
        language.probe = ["sh", "-c", echo].map(String::from).into();
        language.build.clear();
        language.runner = vec!["sh".into(), "runner.sh".into()];
        language.demo = vec!["sh".into()];
        language.unit = vec!["sh".into(), "-c".into(), "true".into()];
        let ready = language
            .prepare(Path::new("."), Duration::from_secs(30))
            .unwrap();
        assert_eq!(ready.version.as_deref(), Some("tool 1.2"));
        assert_eq!(ready.runner, ["/bin/sh", "runner.sh"]);
        assert_eq!(ready.demo, ["/bin/sh"]);
        assert_eq!(ready.unit, ["/bin/sh", "-c", "true"]);
    }
}
