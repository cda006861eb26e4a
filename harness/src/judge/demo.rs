//! The demo checks, judged: each language's demo must print the Rust
//! demo's transcript byte for byte, and refuse bad configs as SPEC says
//! (the processes and the configs are [`crate::suite::executor`]'s).

use std::path::PathBuf;

use super::{Reason, Verdict};

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

/// The demo's second config: another batch size and a pass limit that
/// stops with rows unsent, so its transcript differs from the shared
/// config's and a demo that prints a stored transcript fails. Constant
/// data written by the harness.
pub const SECOND_DEMO_CONFIG: &str = r#"{"batch_size": 2, "max_passes": 2}"#;

/// A demo's verdict from what it printed (`actual`, or why it printed
/// nothing) and the transcript it must print, from where.
pub fn transcript(
    language: &str,
    against: Against,
    expected: &str,
    actual: Result<String, String>,
) -> Verdict {
    let failure = match actual {
        Err(why) => DemoFailure::NotRun(why),
        Ok(actual) if actual == expected => return Verdict::Pass,
        Ok(actual) => DemoFailure::Transcript(Box::new(Transcripts {
            language: language.to_owned(),
            against,
            expected: expected.to_owned(),
            actual,
        })),
    };
    Verdict::Fail(Reason::Demo(failure))
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

    /// A refusal naming the path and the key passes, and each rule of the
    /// contract fails on the bug it is there for.
    #[test]
    fn each_rule_fails_alone() {
        let configs = configs();
        assert_eq!(judge_refusals("x", &configs, &good(&configs)), Ok(()));
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
