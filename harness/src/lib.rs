//! The cross-language parity harness of the Outbox relay practice.
//!
//! One JSON case table (`cases/`) is the single source of truth. Every
//! language's runner gets each case on stdin and answers on stdout (SPEC.md,
//! "Runner protocol"); the harness compares, per case, the ids sent in each
//! pass, the consumer's journal and its duplicate count, and turns every
//! (language, case) into a libtest-mimic trial.
//!
//! The modules, each with one job:
//! - [`config`]: settings from the environment, paths, trial names;
//! - [`table`]: the case model, reading, checking, writing and blessing case files;
//! - [`protocol`] and [`session`]: request lines, answers, a runner process;
//!   [`fault`]: what a runner did wrong, as data, and its one text;
//! - [`exec`]: the one way a child is started (group, deadline, bounded output);
//! - [`toolchain`]: the languages, their probes and builds;
//! - [`oracle`]: expected outcomes from the reference crate; [`in_process`]: the
//!   reference as a runner, without a process;
//! - [`judge`]: verdicts and their reasons, comparing, known failures, the demo;
//! - [`differential`]: generated scenarios, properties, shrinking;
//! - [`suite`]: one run of the suite as libtest-mimic trials, and its JUnit report;
//!   [`selection`]: whether the run ran what it selected;
//! - [`report`]: the HTML report page, a matrix of languages and cases with a picture per case.

pub mod atomic;
pub mod config;
pub mod differential;
pub mod exec;
pub mod fault;
pub mod in_process;
pub mod judge;
pub mod oracle;
pub mod protocol;
pub mod report;
pub mod selection;
pub mod session;
pub mod suite;
pub mod table;
pub mod text;
pub mod toolchain;

use std::path::PathBuf;

/// The repository root, where `cases/`, `runners/` and `target/` live.
pub fn repo_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(PathBuf::from).unwrap_or(manifest)
}
