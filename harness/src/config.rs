//! What a run is told from outside: the environment's settings, where the
//! harness keeps its files, and the names trials are known by.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Every trial name starts with this.
pub const PREFIX: &str = "patterns/enterprise/outbox/practice";
/// The trial name of each language's demo check, so no case may take it.
pub const DEMO_TRIAL: &str = "demo";
/// The trial name of each language's run over generated scenarios.
pub const GENERATED_TRIAL: &str = "generated";
/// The trial name of each language's check of its demo's bad-config errors.
pub const DEMO_CONFIG_TRIAL: &str = "demo_config";
/// The trial name of each language's own unit tests.
pub const UNIT_TRIAL: &str = "unit";
/// The trial name of each language's check of the refusals the protocol
/// requires (SPEC.md, "Refusals").
pub const PROTOCOL_TRIAL: &str = "protocol";
/// Names a case may not take because a trial of each language has them.
pub const RESERVED_NAMES: [&str; 5] = [
    DEMO_TRIAL,
    GENERATED_TRIAL,
    DEMO_CONFIG_TRIAL,
    UNIT_TRIAL,
    PROTOCOL_TRIAL,
];
/// The seed of the generated scenarios every `make test` checks.
pub const GENERATED_SEED: u64 = 20_261_130;
/// How many generated scenarios every `make test` checks per language.
pub const GENERATED_COUNT: usize = 300;

/// The full name of a language's trial.
pub fn trial_name(language: &str, trial: &str) -> String {
    format!("{PREFIX}/{language}/{trial}")
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
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            extra_cases: Vec::new(),
            timeout: Duration::from_secs(10),
            build_timeout: Duration::from_secs(600),
            strict: false,
        }
    }
}

impl Settings {
    /// Reads `PARITY_CASES`, `PARITY_TIMEOUT`, `PARITY_BUILD_TIMEOUT` and
    /// `PARITY_STRICT`; a value that makes no sense is an error naming it.
    pub fn from_env() -> Result<Self, String> {
        let defaults = Settings::default();
        let extra_cases = std::env::var_os("PARITY_CASES")
            .map(|paths| {
                std::env::split_paths(&paths)
                    .filter(|p| !p.as_os_str().is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let strict = match std::env::var("PARITY_STRICT").as_deref() {
            Err(_) | Ok("") | Ok("0") => false,
            Ok("1") => true,
            Ok(other) => return Err(format!("PARITY_STRICT={other:?}: use 1 (strict) or 0")),
        };
        Ok(Settings {
            extra_cases,
            timeout: seconds("PARITY_TIMEOUT", defaults.timeout)?,
            build_timeout: seconds("PARITY_BUILD_TIMEOUT", defaults.build_timeout)?,
            strict,
        })
    }
}

/// The range a timeout in seconds may take: under 10 ms no runner starts,
/// over a day is a typo, and both would make the run say something untrue
/// (every case a timeout, or a hang that never ends).
const SECONDS: std::ops::RangeInclusive<f64> = 0.01..=86_400.0;

fn seconds(variable: &str, default: Duration) -> Result<Duration, String> {
    let Ok(text) = std::env::var(variable) else {
        return Ok(default);
    };
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| SECONDS.contains(s))
        .map(Duration::from_secs_f64)
        .ok_or_else(|| {
            format!(
                "{variable}={text:?}: give a number of seconds from {} to {} (a day)",
                SECONDS.start(),
                SECONDS.end()
            )
        })
}

/// `PARITY_REPEAT` (`make test REPEAT=N`): how many times each selected
/// trial runs, default 1; a value that is not a whole number from 1 to
/// 1000 is an error naming it.
pub fn repeat() -> Result<usize, String> {
    match std::env::var("PARITY_REPEAT").as_deref() {
        Err(_) | Ok("") => Ok(1),
        Ok(text) => text
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=1000).contains(n))
            .ok_or_else(|| {
                format!("PARITY_REPEAT={text:?}: give a whole number of runs from 1 to 1000")
            }),
    }
}

/// Cargo's target folder: `CARGO_TARGET_DIR` when set (relative to the
/// root), else `target` under the root.
pub fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => root.join(dir),
        None => root.join("target"),
    }
}

/// Where the suite keeps what it builds and logs for a language.
pub fn work_dir(root: &Path, language: &str) -> PathBuf {
    target_dir(root).join("parity").join(language)
}

/// Scratch space for the harness's own tests, under the target folder.
pub fn scratch_dir(root: &Path, name: &str) -> PathBuf {
    target_dir(root).join("parity").join("tests").join(name)
}
