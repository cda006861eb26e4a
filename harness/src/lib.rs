//! The cross-language parity harness of the Outbox relay practice.
//!
//! One JSON case table (`cases/`) is the single source of truth. Every
//! language's runner gets each case on stdin and answers on stdout (see
//! `../shared/SPEC.md`, "Runner protocol"); the harness compares, per case,
//! the ids sent in each pass, the consumer's journal and its duplicate
//! count, and turns every (language, case) into a libtest-mimic trial.

pub mod bless;
pub mod case;
pub mod compare;
pub mod differential;
pub mod format;
pub mod generate;
pub mod json;
pub mod junit;
pub mod known_failures;
pub mod language;
pub mod process;
pub mod properties;
pub mod protocol;
pub mod report;
pub mod suite;

use std::path::PathBuf;

/// The repository root, where `cases/`, `runners/` and `target/` live.
pub fn repo_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(PathBuf::from).unwrap_or(manifest)
}
