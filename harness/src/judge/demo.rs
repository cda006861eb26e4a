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

/// Why a demo check failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DemoFailure {
    /// The demo gave no transcript: it could not start, hung, failed,
    /// printed too much or not UTF-8 (or the transcript file could not be
    /// read); why.
    NotRun(String),
    /// It printed another transcript than the one it must (boxed: a
    /// verdict stays small).
    Transcript(Box<Transcripts>),
    /// It refused the bad configs otherwise than it must; where.
    Refusals(String),
}

/// A demo's transcript and the one it must print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transcripts {
    /// The language whose demo it is.
    pub language: String,
    /// Where the expected transcript comes from.
    pub against: Against,
    /// The transcript it must print.
    pub expected: String,
    /// What it printed.
    pub actual: String,
}

/// Where the transcript a demo must print comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Against {
    /// The committed transcript of the shared config (its path).
    Committed(PathBuf),
    /// The Rust demo's run on a second config: its path and text.
    SecondConfig {
        /// The config's path, relative to the root.
        path: PathBuf,
        /// Its text.
        config: String,
    },
    /// The Rust demo's run on the same config (`make demo`).
    Reference,
}

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
    pub fn check(&self, language: &Language) -> Result<(), DemoFailure> {
        let expected = std::fs::read_to_string(self.root.join(&self.transcript)).map_err(|e| {
            DemoFailure::NotRun(format!("cannot read {}: {e}", self.transcript.display()))
        })?;
        let actual = self
            .run(language, &self.config)
            .map_err(DemoFailure::NotRun)?;
        if expected == actual {
            return Ok(());
        }
        Err(DemoFailure::Transcript(Box::new(Transcripts {
            language: language.name.clone(),
            against: Against::Committed(self.transcript.clone()),
            expected,
            actual,
        })))
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

/// Bad configs every demo must refuse: its text (`None`: the file does
/// not exist) and the key at fault, which the first line of stderr must
/// name besides the path. The contract as a process: one file that cannot
/// be read, one that is not JSON, one with a key at fault (a boolean, the
/// pitfall of Python and PHP); each port's own unit tests check every
/// other refusal of SPEC's list in-process, where a case costs no start.
/// Constant data written by the harness, never from a case file.
pub const BAD_CONFIGS: [(Option<&str>, Option<&str>); 3] = [
    (None, None),
    (Some("batch_size = 3"), None),
    (
        Some(r#"{"batch_size": 3, "max_passes": true}"#),
        Some("max_passes"),
    ),
];

/// Every key a config may hold: a refusal names the one at fault and no
/// other, so a line that lists them all cannot pass.
const KEYS: [&str; 2] = ["batch_size", "max_passes"];

/// The exit code every demo gives a config it refuses.
pub const BAD_CONFIG_EXIT: i32 = 2;

/// One bad config as a demo is given it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadConfig {
    /// The path passed to the demo, relative to the root. The file names
    /// are neutral (`bad-4.json`), so a path never names a key by itself.
    pub path: PathBuf,
    /// What the file holds, shown in messages (`None`: no such file).
    pub text: Option<&'static str>,
    /// The key the first line of stderr must name, if one is at fault.
    pub key: Option<&'static str>,
}

/// How a demo refused one bad config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The exit code (`None`: killed by a signal or at the deadline).
    pub code: Option<i32>,
    /// The first line it wrote to stderr.
    pub first_line: String,
}

impl Demo {
    /// Writes [`BAD_CONFIGS`] under `dir` (relative to the root),
    /// atomically; the missing one is made sure not to exist.
    pub fn write_bad_configs(&self, dir: &Path) -> std::io::Result<Vec<BadConfig>> {
        std::fs::create_dir_all(self.root.join(dir))?;
        let mut configs = Vec::new();
        for (number, (text, key)) in BAD_CONFIGS.into_iter().enumerate() {
            let path = dir.join(format!("bad-{}.json", number + 1));
            match text {
                Some(text) => crate::atomic::write(&self.root.join(&path), text.as_bytes())?,
                None => match std::fs::remove_file(self.root.join(&path)) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                    _ => {}
                },
            }
            configs.push(BadConfig { path, text, key });
        }
        Ok(configs)
    }

    /// How a prepared language's demo refuses each config. They all start
    /// at once: each is mostly a runtime starting up, so side by side they
    /// cost about one start-up of wall time.
    pub fn refusals(
        &self,
        language: &Language,
        configs: &[BadConfig],
    ) -> Result<Vec<Refusal>, String> {
        let refuse = |config: &BadConfig| -> Result<Refusal, String> {
            let (_, output) = self.start(language, &config.path, exec::KEEP)?;
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
        std::thread::scope(|scope| {
            let running: Vec<_> = configs
                .iter()
                .map(|config| scope.spawn(|| refuse(config)))
                .collect();
            running
                .into_iter()
                .map(|thread| {
                    thread
                        .join()
                        .unwrap_or_else(|_| Err("a demo thread panicked".to_owned()))
                })
                .collect()
        })
    }
}

/// Where a language's refusals break the contract (exit code 2; the first
/// line of stderr names the path as passed and the key at fault), or `Ok`.
pub fn judge_refusals(
    language: &str,
    configs: &[BadConfig],
    actual: &[Refusal],
) -> Result<(), String> {
    let mut problems = String::new();
    for (config, got) in configs.iter().zip(actual) {
        let path = config.path.to_string_lossy();
        let mut wrong = Vec::new();
        if got.code != Some(BAD_CONFIG_EXIT) {
            wrong.push(format!(
                "exit {} instead of {BAD_CONFIG_EXIT}",
                got.code.map_or("(killed)".to_owned(), |c| c.to_string())
            ));
        }
        if !got.first_line.contains(path.as_ref()) {
            wrong.push("the first line of stderr does not name the path".to_owned());
        }
        if let Some(key) = config.key {
            if !got.first_line.contains(key) {
                wrong.push(format!("the first line of stderr does not name `{key}`"));
            }
        }
        let path_free = got.first_line.replace(path.as_ref(), "");
        for other in KEYS.iter().filter(|&&k| Some(k) != config.key) {
            if path_free.contains(other) {
                wrong.push(format!(
                    "the first line of stderr names `{other}`, which is not at fault"
                ));
            }
        }
        if !wrong.is_empty() {
            problems.push_str(&format!(
                "  {path} ({}): {}\n    first line of stderr: {:?}\n",
                config
                    .text
                    .map_or("no such file".to_owned(), |t| format!("{t:?}")),
                wrong.join("; "),
                got.first_line
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the {language} demo does not refuse bad configs as it must (exit code {BAD_CONFIG_EXIT}; \
             the first line of stderr names the config's path, and the key at fault where there is one):\n{problems}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn configs() -> Vec<BadConfig> {
        BAD_CONFIGS
            .into_iter()
            .enumerate()
            .map(|(n, (text, key))| BadConfig {
                path: PathBuf::from(format!("t/bad-{}.json", n + 1)),
                text,
                key,
            })
            .collect()
    }

    fn good(configs: &[BadConfig]) -> Vec<Refusal> {
        configs
            .iter()
            .map(|c| Refusal {
                code: Some(2),
                first_line: format!(
                    "demo: {}: {} is wrong",
                    c.path.display(),
                    c.key.unwrap_or("the file")
                ),
            })
            .collect()
    }

    #[test]
    fn a_refusal_naming_the_path_and_the_key_passes() {
        let configs = configs();
        assert_eq!(judge_refusals("x", &configs, &good(&configs)), Ok(()));
    }

    /// Each rule of the contract fails on the bug it is there for.
    #[test]
    fn each_rule_fails_alone() {
        let configs = configs();
        let plant = |at: usize, change: &dyn Fn(&mut Refusal)| {
            let mut refusals = good(&configs);
            change(&mut refusals[at]);
            judge_refusals("x", &configs, &refusals).unwrap_err()
        };
        let why = plant(0, &|r| r.code = Some(1));
        assert!(
            why.contains("t/bad-1.json") && why.contains("exit 1 instead of 2"),
            "{why}"
        );
        let why = plant(1, &|r| r.first_line = "demo: not JSON".into());
        assert!(why.contains("does not name the path"), "{why}");
        let why = plant(2, &|r| {
            r.first_line = "demo: t/bad-3.json: wrong type".into()
        });
        assert!(why.contains("does not name `max_passes`"), "{why}");
        let why = plant(2, &|r| r.code = None);
        assert!(why.contains("exit (killed)"), "{why}");
        // A line naming every key would otherwise pass for every config.
        let why = plant(1, &|r| {
            r.first_line = "demo: t/bad-2.json: bad (batch_size, max_passes)".into()
        });
        assert!(
            why.contains("names `batch_size`, which is not at fault"),
            "{why}"
        );
        let why = plant(2, &|r| {
            r.first_line = "demo: t/bad-3.json: bad batch_size or max_passes".into()
        });
        assert!(
            why.contains("names `batch_size`, which is not at fault"),
            "{why}"
        );
    }

    /// A neutral file name: a path that named the key would pass the key
    /// check by itself.
    #[test]
    fn no_path_names_a_key() {
        for config in configs() {
            for key in KEYS {
                assert!(!config.path.to_string_lossy().contains(key));
            }
        }
    }
}
