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
    /// Runs a language's demo on `config`: its output within `keep` bytes.
    fn start(
        &self,
        language: &Language,
        config: &Path,
        keep: usize,
    ) -> Result<(exec::Command, exec::Output), String> {
        let mut argv = language.demo.clone();
        argv.push(config.to_string_lossy().into_owned());
        let command = exec::Command {
            label: format!("the {} demo", language.name),
            argv,
            dir: self.root.clone(),
            deadline: self.deadline,
            keep,
        };
        let output = exec::run(&command, Stdin::Null)
            .map_err(|e| format!("{} could not be started: {e}", command.label))?;
        Ok((command, output))
    }

    /// Runs a prepared language's demo on `config` and returns its stdout,
    /// or why not.
    pub fn run(&self, language: &Language, config: &Path) -> Result<String, String> {
        let (command, output) = self.start(language, config, KEEP)?;
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

/// Bad configs every demo must refuse as the Rust demo does: exit code 2
/// and the same first line on stderr (which names the file and the key).
/// Constant data written by the harness, never from a case file.
pub const BAD_CONFIGS: [(&str, &str); 10] = [
    ("missing_max_passes", r#"{"batch_size": 3}"#),
    ("missing_batch_size", r#"{"max_passes": 10}"#),
    ("string", r#"{"batch_size": "3", "max_passes": 10}"#),
    ("fraction", r#"{"batch_size": 3.5, "max_passes": 10}"#),
    ("boolean", r#"{"batch_size": 3, "max_passes": true}"#),
    ("batch_zero", r#"{"batch_size": 0, "max_passes": 10}"#),
    ("passes_negative", r#"{"batch_size": 3, "max_passes": -1}"#),
    (
        "unknown_keys",
        r#"{"z": 1, "batch_size": 3, "a": 2, "max_passes": 10}"#,
    ),
    ("not_json", "batch_size = 3"),
    ("top_array", "[3, 10]"),
];

/// The exit code every demo gives a config it refuses.
pub const BAD_CONFIG_EXIT: i32 = 2;

/// How a demo refused one bad config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The exit code (`None`: killed by a signal or at the deadline).
    pub code: Option<i32>,
    /// The first line it wrote to stderr.
    pub first_line: String,
}

impl Demo {
    /// Writes [`BAD_CONFIGS`] (and names one config that does not exist)
    /// under `dir`; returns each name with its path, relative to the root.
    pub fn write_bad_configs(&self, dir: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
        std::fs::create_dir_all(self.root.join(dir))?;
        let mut configs = Vec::new();
        for (name, text) in BAD_CONFIGS {
            let path = dir.join(format!("{name}.json"));
            crate::atomic::write(&self.root.join(&path), text.as_bytes())?;
            configs.push((name.to_owned(), path));
        }
        configs.push(("missing_file".to_owned(), dir.join("no-such-config.json")));
        Ok(configs)
    }

    /// How a prepared language's demo refuses each config; the demos run
    /// a few at a time, since each is mostly a runtime starting up.
    pub fn refusals(
        &self,
        language: &Language,
        configs: &[(String, PathBuf)],
    ) -> Result<Vec<Refusal>, String> {
        const AT_ONCE: usize = 4;
        let refuse = |path: &PathBuf| -> Result<Refusal, String> {
            let (_, output) = self.start(language, path, exec::KEEP)?;
            Ok(Refusal {
                code: output.status.and_then(|s| s.code()),
                first_line: output
                    .stderr
                    .text()
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .to_owned(),
            })
        };
        let mut refusals = Vec::with_capacity(configs.len());
        for chunk in configs.chunks(AT_ONCE) {
            let results: Vec<Result<Refusal, String>> = std::thread::scope(|scope| {
                let running: Vec<_> = chunk
                    .iter()
                    .map(|(_, path)| scope.spawn(|| refuse(path)))
                    .collect();
                running
                    .into_iter()
                    .map(|thread| {
                        thread
                            .join()
                            .unwrap_or_else(|_| Err("a demo thread panicked".to_owned()))
                    })
                    .collect()
            });
            for result in results {
                refusals.push(result?);
            }
        }
        Ok(refusals)
    }
}

/// Where a language's refusals differ from the Rust demo's, or `Ok`.
pub fn compare_refusals(
    language: &str,
    configs: &[(String, PathBuf)],
    expected: &[Refusal],
    actual: &[Refusal],
) -> Result<(), String> {
    let mut problems = String::new();
    for (((name, path), want), got) in configs.iter().zip(expected).zip(actual) {
        if got.code != Some(BAD_CONFIG_EXIT) || got != want {
            problems.push_str(&format!(
                "  {name} ({}):\n    expected: exit {BAD_CONFIG_EXIT}, {:?}\n    actual:   exit {}, {:?}\n",
                path.display(),
                want.first_line,
                got.code.map_or("(killed)".to_owned(), |c| c.to_string()),
                got.first_line
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the {language} demo refuses bad configs otherwise than the Rust demo (exit code and first \
             line of stderr):\n{problems}"
        ))
    }
}
