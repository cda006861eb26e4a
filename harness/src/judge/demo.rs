//! The demo checks, judged: each language's demo must print the Rust
//! demo's transcript byte for byte, and refuse bad configs as SPEC says
//! (the processes and the configs are [`crate::suite::executor`]'s).

use std::path::PathBuf;

use super::{Reason, Verdict};

/// The demo's second config: another batch size and a pass limit that
/// stops with rows unsent, so its transcript differs from the shared
/// config's and a demo that prints a stored transcript fails. Constant
/// data written by the harness.
pub const SECOND_DEMO_CONFIG: &str = r#"{"batch_size": 2, "max_passes": 2}"#;

/// A demo's verdict from what it printed (`actual`, or why it printed
/// nothing) and the transcript it must print. A failure is plain text
/// (`differs`, what was compared, then where the transcripts first
/// differ): a repeat run compares verdicts, and a message is all a demo's
/// failure is read for.
pub fn transcript(differs: &str, expected: &str, actual: Result<String, String>) -> Verdict {
    let why = match actual {
        Err(why) => why,
        Ok(actual) if actual == expected => return Verdict::Pass,
        Ok(actual) => format!("{differs} {}", first_difference(expected, &actual)),
    };
    Verdict::Fail(Reason::Wrong(why))
}

/// Where two different transcripts first differ, byte for byte.
fn first_difference(expected: &str, actual: &str) -> String {
    let (mut expected, mut actual) = (expected.split_inclusive('\n'), actual.split_inclusive('\n'));
    let shown = |line: Option<&str>| line.map_or("(end of output)".into(), |l| format!("{l:?}"));
    let (number, e, a) = (1..)
        .map(|number| (number, expected.next(), actual.next()))
        .find(|(_, e, a)| e != a)
        .expect("the transcripts differ");
    format!(
        "at line {number}:\n  expected: {}\n  actual:   {}",
        shown(e),
        shown(a)
    )
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
const KEYS: [&str; 3] = ["batch_size", "max_passes", "max_attempts"];

/// The exit code every demo gives a config it refuses.
pub const BAD_CONFIG_EXIT: i32 = 2;

/// How a demo refused one of [`BAD_CONFIGS`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The path it was given, relative to the root. The file names are
    /// neutral (`bad-3.json`), so a path never names a key by itself.
    pub path: PathBuf,
    /// The exit code (`None`: killed by a signal or at the deadline).
    pub code: Option<i32>,
    /// The first line it wrote to stderr.
    pub first_line: String,
}

/// Where a language's refusals break the contract (exit code 2; the first
/// line of stderr names the path as passed and the key at fault), or `Ok`.
/// `actual`: the refusals of [`BAD_CONFIGS`], in order.
pub fn judge_refusals(language: &str, actual: &[Refusal]) -> Result<(), String> {
    let mut problems = String::new();
    for (&(text, key), got) in BAD_CONFIGS.iter().zip(actual) {
        let path = got.path.to_string_lossy();
        let line = &got.first_line;
        let (mut wrong, stderr) = (Vec::new(), "the first line of stderr");
        if got.code != Some(BAD_CONFIG_EXIT) {
            let code = got.code.map_or("(killed)".to_owned(), |c| c.to_string());
            wrong.push(format!("exit {code} instead of {BAD_CONFIG_EXIT}"));
        }
        if !line.contains(path.as_ref()) {
            wrong.push(format!("{stderr} does not name the path"));
        }
        // The key at fault must be named, and no other key (a line that
        // lists them all would pass for every config).
        let path_free = line.replace(path.as_ref(), "");
        for name in KEYS {
            match (Some(name) == key, path_free.contains(name)) {
                (true, false) => wrong.push(format!("{stderr} does not name `{name}`")),
                (false, true) => {
                    wrong.push(format!("{stderr} names `{name}`, which is not at fault"))
                }
                _ => {}
            }
        }
        if !wrong.is_empty() {
            let text = text.map_or("no such file".to_owned(), |t| format!("{t:?}"));
            let wrong = wrong.join("; ");
            problems +=
                &format!("  {path} ({text}): {wrong}\n    first line of stderr: {line:?}\n");
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(format!(
        "the {language} demo does not refuse bad configs as it must (exit code {BAD_CONFIG_EXIT}; \
         the first line of stderr names the config's path, and the key at fault where there is one):\n{problems}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Refusals that keep the contract, of `t/bad-1.json` and on.
    fn good() -> Vec<Refusal> {
        let refusal = |(n, (_, key)): (usize, (_, Option<&str>))| {
            let path = PathBuf::from(format!("t/bad-{n}.json"));
            let named = key.unwrap_or("the file");
            let first_line = format!("demo: {}: {named} is wrong", path.display());
            Refusal {
                path,
                code: Some(2),
                first_line,
            }
        };
        (1..).zip(BAD_CONFIGS).map(refusal).collect()
    }

    /// A refusal naming the path and the key passes, and each rule of the
    /// contract fails on the bug it is there for.
    #[test]
    fn each_rule_fails_alone() {
        assert_eq!(judge_refusals("x", &good()), Ok(()));
        let plant = |at: usize, change: &dyn Fn(&mut Refusal)| {
            let mut refusals = good();
            change(&mut refusals[at]);
            judge_refusals("x", &refusals).unwrap_err()
        };
        // A line naming every key would otherwise pass for every config.
        let not_at_fault = "names `batch_size`, which is not at fault";
        for (at, line, said) in [
            (1, "demo: not JSON", "does not name the path"),
            (
                2,
                "demo: t/bad-3.json: wrong type",
                "does not name `max_passes`",
            ),
            (
                1,
                "demo: t/bad-2.json: bad (batch_size, max_passes)",
                not_at_fault,
            ),
            (
                2,
                "demo: t/bad-3.json: bad batch_size or max_passes",
                not_at_fault,
            ),
        ] {
            let why = plant(at, &|r| r.first_line = line.into());
            assert!(why.contains(said), "{why}");
        }
        let why = plant(0, &|r| r.code = Some(1));
        assert!(
            why.contains("t/bad-1.json") && why.contains("exit 1 instead of 2"),
            "{why}"
        );
        let why = plant(2, &|r| r.code = None);
        assert!(why.contains("exit (killed)"), "{why}");
        // A path that names the key does not name it for the refusal.
        let why = plant(2, &|r| {
            r.path = PathBuf::from("t/max_passes.json");
            r.first_line = "demo: t/max_passes.json: wrong type".into();
        });
        assert!(why.contains("does not name `max_passes`"), "{why}");
    }

    /// A transcript passes when equal, byte for byte; otherwise the message
    /// says what was compared and the first line that differs, or where one
    /// ends first.
    #[test]
    fn a_transcript_shows_its_first_difference() {
        assert_eq!(
            transcript("x", "a\nb\n", Ok("a\nb\n".into())),
            Verdict::Pass
        );
        let at_line_2 = "x at line 2:\n  expected: \"b\\n\"\n  actual:   ";
        for (actual, shown) in [
            ("a\nc\n", "\"c\\n\""),
            ("a\n", "(end of output)"),
            ("a\nb", "\"b\""),
        ] {
            let why = format!("{at_line_2}{shown}");
            let verdict = transcript("x", "a\nb\n", Ok(actual.into()));
            assert_eq!(verdict, Verdict::Fail(Reason::Wrong(why)));
        }
    }
}
