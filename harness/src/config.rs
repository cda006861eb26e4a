//! What a run is told from outside: the environment's settings, where the
//! harness keeps its files, and the names trials are known by.

use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

/// Every trial name starts with this.
pub const PREFIX: &str = "patterns/enterprise/outbox/practice";
/// The kinds of trial every language has besides the table's cases: the
/// one list the trial names, the reserved case names and the report's rows
/// come from (tools outside the harness, `make mutants`' skip list, read
/// the kinds from a results file). A new kind is a variant here, its check in
/// `suite/trials.rs`, and its row's description below.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// The run over the fixed-seed generated scenarios.
    Generated,
    /// The refusals the protocol requires (SPEC.md, "Refusals").
    Protocol,
    /// The demo's transcript on two configs.
    Demo,
    /// The demo's refusal of bad configs.
    DemoConfig,
    /// The port's own unit tests.
    Unit,
}

impl Kind {
    /// Every kind, in the order each language's trials are listed.
    pub const ALL: [Kind; 5] = [
        Kind::Generated,
        Kind::Protocol,
        Kind::Demo,
        Kind::DemoConfig,
        Kind::Unit,
    ];

    /// The trial's name under its language (`<prefix>/<language>/<name>`).
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Generated => "generated",
            Kind::Protocol => "protocol",
            Kind::Demo => "demo",
            Kind::DemoConfig => "demo_config",
            Kind::Unit => "unit",
        }
    }

    /// What the report's row of this kind says it checks.
    pub fn description(self) -> String {
        match self {
            Kind::Generated => format!(
                "{GENERATED_COUNT} scenarios drawn from seed {GENERATED_SEED}, each also run with a \
                 new relay before every pass, checked against the reference and the properties."
            ),
            Kind::Protocol => "The runner refuses what the protocol says it must (another \
                               version, an unknown kind or failure kind) and goes on."
                .into(),
            Kind::Demo => "The demo, the relay as a process, prints the Rust demo's transcript \
                           byte for byte."
                .into(),
            Kind::DemoConfig => "The demo refuses each bad config with exit code 2, naming the \
                                 path (and the key) first."
                .into(),
            Kind::Unit => "The port's own tests, with its language's standard tool: the idioms \
                           the table cannot see."
                .into(),
        }
    }

    /// The order of the report's rows after the cases (not the trials'
    /// order, which puts the protocol beside the runner's other answers).
    pub const REPORT_ROWS: [Kind; 5] = [
        Kind::Generated,
        Kind::Demo,
        Kind::DemoConfig,
        Kind::Unit,
        Kind::Protocol,
    ];

    /// libtest's arguments that leave only the table's cases of the
    /// selection (`--skip /<kind>` for every kind): what mutation testing
    /// judges by the table alone and what make bench times as `cases`.
    pub fn skip_all() -> Vec<String> {
        Kind::ALL
            .iter()
            .flat_map(|k| ["--skip".to_owned(), format!("/{}", k.name())])
            .collect()
    }
}

/// Names a case may not take because a trial of each language has them
/// (`cases/schema.json` lists the same, a self-test checks it).
pub fn reserved_names() -> [&'static str; Kind::ALL.len()] {
    Kind::ALL.map(Kind::name)
}

/// A language's id: its folder's name under `runners/`, the key of all
/// that is the language's in a run (its port, known failures, logs,
/// trials, a report's column), typed so that no other name is taken for
/// one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LanguageId(String);

impl std::ops::Deref for LanguageId {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for LanguageId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for LanguageId {
    fn from(name: &str) -> Self {
        LanguageId(name.to_owned())
    }
}

/// The seed of the generated scenarios every `make test` checks.
pub const GENERATED_SEED: u64 = 20_261_130;
/// How many generated scenarios every `make test` checks per language.
pub const GENERATED_COUNT: usize = 300;

/// The full name of a language's trial.
pub fn trial_name(language: &str, trial: &str) -> String {
    format!("{PREFIX}/{language}/{trial}")
}

/// The arguments that chose trials (the filter, `--skip`, `--exact`,
/// `--ignored`), as libtest takes them; empty when every trial ran.
pub fn arguments(args: &libtest_mimic::Arguments) -> String {
    let mut words: Vec<String> = args.filter.iter().cloned().collect();
    words.extend(args.skip.iter().map(|skip| format!("--skip {skip}")));
    let flags = [(args.exact, "--exact"), (args.ignored, "--ignored")];
    words.extend(flags.into_iter().filter(|f| f.0).map(|f| f.1.to_owned()));
    words.join(" ")
}

/// Whether the arguments select `trial` (not filtered out, not skipped, not
/// ignored by a flag).
pub fn is_selected(args: &libtest_mimic::Arguments, trial: &libtest_mimic::Trial) -> bool {
    !args.is_filtered_out(trial) && !args.is_ignored(trial)
}

/// Settings read from the environment, with their defaults.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `PARITY_CASES`: more case files or folders (relative to the root).
    pub extra_cases: Vec<PathBuf>,
    /// `PARITY_TIMEOUT`: seconds per case (and per demo), default 10.
    pub timeout: Duration,
    /// `PARITY_BUILD_TIMEOUT`: seconds per probe or build step, default 600.
    pub build_timeout: Duration,
    /// `PARITY_STRICT=1`: a missing toolchain is a failure.
    pub strict: bool,
    /// `PARITY_REPEAT` (`make test REPEAT=N`): how many times each selected
    /// trial runs, default 1; more than once, a trial whose verdict or
    /// answer changes between runs fails.
    pub repeat: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            extra_cases: Vec::new(),
            timeout: Duration::from_secs(10),
            build_timeout: Duration::from_secs(600),
            strict: false,
            repeat: 1,
        }
    }
}

impl Settings {
    /// Reads `PARITY_CASES`, `PARITY_TIMEOUT`, `PARITY_BUILD_TIMEOUT`,
    /// `PARITY_STRICT` and `PARITY_REPEAT`; a value that makes no sense is
    /// an error naming it.
    pub fn from_env() -> Result<Self, String> {
        let defaults = Settings::default();
        let cases = std::env::var_os("PARITY_CASES").unwrap_or_default();
        let extra_cases = std::env::split_paths(&cases)
            .filter(|p| !p.as_os_str().is_empty())
            .collect();
        // Under 10 ms no runner starts, over a day is a typo: both would
        // make the run say something untrue (every case a timeout, or a
        // hang that never ends).
        let seconds = |variable, default| {
            let wanted = "give a number of seconds from 0.01 to 86400 (a day)";
            let seconds = number(variable, 0.01..=86_400.0, wanted)?;
            Ok::<_, String>(seconds.map_or(default, Duration::from_secs_f64))
        };
        let runs = "give a whole number of runs from 1 to 1000";
        Ok(Settings {
            extra_cases,
            timeout: seconds("PARITY_TIMEOUT", defaults.timeout)?,
            build_timeout: seconds("PARITY_BUILD_TIMEOUT", defaults.build_timeout)?,
            strict: number("PARITY_STRICT", 0..=1, "use 1 (strict) or 0")? == Some(1u8),
            repeat: number("PARITY_REPEAT", 1..=1000, runs)?.unwrap_or(defaults.repeat),
        })
    }
}

/// `variable` read as a number in `range`, `None` when it is unset or
/// empty; any other value is an error naming it, asking for `wanted`.
fn number<T: FromStr + PartialOrd>(
    variable: &str,
    range: RangeInclusive<T>,
    wanted: &str,
) -> Result<Option<T>, String> {
    match std::env::var(variable).as_deref() {
        Err(_) | Ok("") => Ok(None),
        Ok(text) => (text.trim().parse().ok())
            .filter(|n| range.contains(n))
            .map(Some)
            .ok_or_else(|| format!("{variable}={text:?}: {wanted}")),
    }
}

/// `PARITY_MUTANT=1`: the run is one of make mutants' judges, which runs
/// while a mutant is in place ([`crate::suite::no_mutant_in_place`]) and
/// may judge one put over a build's products (Java's class files).
pub fn judging_a_mutant() -> bool {
    std::env::var_os("PARITY_MUTANT").is_some_and(|v| v == "1")
}

/// Cargo's target folder: `CARGO_TARGET_DIR` when set (relative to the
/// root), else `target` under the root.
pub fn target_dir(root: &Path) -> PathBuf {
    env_path(root, "CARGO_TARGET_DIR").unwrap_or_else(|| root.join("target"))
}

/// The path an environment variable names, from the root when relative;
/// unset and empty alike mean none, as make passes an empty variable.
pub fn env_path(root: &Path, variable: &str) -> Option<PathBuf> {
    std::env::var_os(variable)
        .filter(|p| !p.is_empty())
        .map(|p| root.join(p))
}

/// The results file a run writes and `make known-failures` reads:
/// `PARITY_RESULTS`, else `parity/results.json` in the target folder.
pub fn results_file(root: &Path) -> PathBuf {
    env_path(root, "PARITY_RESULTS").unwrap_or_else(|| target_dir(root).join("parity/results.json"))
}

/// Where the suite keeps what it builds and logs for a language.
pub fn work_dir(root: &Path, language: &str) -> PathBuf {
    target_dir(root).join("parity").join(language)
}

/// A fresh, empty folder `<target>/parity/tests/<name>` for one of the
/// harness's own tests (which panics when it cannot be made).
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = target_dir(&crate::repo_root())
        .join("parity/tests")
        .join(name);
    // A checkout's older tests may have left a file where a folder now goes.
    let above = dir.ancestors().take(name.split('/').count());
    for file in above.filter(|above| !above.is_dir()) {
        let _ = std::fs::remove_file(file);
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder can be made");
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The schema that editors check cases with refuses exactly the names
    /// the harness reserves, and says so in the field's description; and
    /// each kind has a row of the report and is skipped by its name.
    #[test]
    fn the_schema_reserves_the_names_of_the_trial_kinds_each_a_row() {
        let text = std::fs::read_to_string(crate::repo_root().join("cases/schema.json")).unwrap();
        let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
        let name = &schema["$defs"]["case"]["properties"]["name"];
        let listed = name["not"]["enum"]
            .as_array()
            .expect("cases/schema.json: $defs.case.properties.name.not.enum");
        let reserved: std::collections::BTreeSet<&str> =
            listed.iter().filter_map(|v| v.as_str()).collect();
        let expected: std::collections::BTreeSet<_> = reserved_names().into_iter().collect();
        assert_eq!(reserved, expected, "cases/schema.json's reserved names");
        assert_eq!(listed.len(), expected.len(), "a reserved name listed twice");
        let description = name["description"].as_str().unwrap_or_default();
        for kind in Kind::ALL {
            assert!(
                description.contains(&format!("`{}`", kind.name())),
                "the name's description does not mention `{}`",
                kind.name()
            );
            assert!(Kind::REPORT_ROWS.contains(&kind), "{kind:?} has no row");
        }
        assert_eq!(
            Kind::skip_all().join(" "),
            "--skip /generated --skip /protocol --skip /demo --skip /demo_config --skip /unit"
        );
    }
}
