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
//! - [`contract`]: `cases/schema.json`, read at run time: what a case file
//!   and an answer may be, the outcome's words, the optional features;
//! - [`table`]: reading, checking, writing and blessing case files;
//!   [`files`] and [`json`]: the files a user names, JSON read strictly;
//! - [`protocol`] and [`session`]: request lines, answers, a runner process;
//!   [`fault`]: what a runner did wrong, as data, and its one text;
//! - [`exec`]: the one way a child is started (group, deadline, bounded output);
//! - [`toolchain`]: the languages, their probes and builds;
//! - [`oracle`]: expected outcomes from the reference crate, through the
//!   harness's one pass loop;
//! - [`judge`]: verdicts and their reasons, comparing, known failures, the demo;
//! - [`differential`]: generated scenarios, properties, shrinking;
//! - [`suite`]: one run of the suite as libtest-mimic trials, each recorded
//!   as typed data; [`selection`]: whether the run ran what it selected;
//! - [`report`]: what is made of the records, without starting anything: the
//!   HTML report page (a matrix of languages and cases with a picture per
//!   case), the results file, the JUnit file, the CI summary.

pub mod atomic;
pub mod config;
pub mod contract;
pub mod differential;
pub mod exec;
pub mod fault;
pub mod files;
pub mod json;
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

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;

/// How one of the harness's tools ends: with the code `result` gives, or
/// with its error on stderr after the tool's name and `code` (2: what it
/// was given is wrong; 1: it failed), so that every tool says why alike.
pub fn end(tool: &str, code: u8, result: Result<ExitCode, String>) -> ExitCode {
    result.unwrap_or_else(|why| {
        eprintln!("{tool}: {why}");
        ExitCode::from(code)
    })
}

/// The repository root, where `cases/`, `runners/` and `target/` live,
/// found when the harness runs, never where it was compiled: a copied or
/// moved checkout (or a CI cache of `target/` restored elsewhere), which
/// cargo does not rebuild, must test and write its own tree. Found once,
/// from cargo's run-time `CARGO_MANIFEST_DIR` or the current directory; a
/// process in no checkout ends here with exit code 2 and the reason, as
/// nothing the harness does means anything without it.
pub fn repo_root() -> PathBuf {
    static ROOT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let found = ROOT.get_or_init(|| {
        let cwd = std::env::current_dir()
            .map_err(|e| format!("cannot read the current directory: {e}"))?;
        let manifest = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
        find_root(manifest.as_deref(), &cwd)
    });
    match found {
        Ok(root) => root.clone(),
        Err(why) => {
            eprintln!("parity: {why}");
            std::process::exit(2)
        }
    }
}

/// The checkout that holds `manifest_dir` (cargo sets it for what it runs),
/// else the one that holds `cwd` (`make bench` starts `./target/release/*`
/// itself): the nearest folder at or above whose `Cargo.toml` is this
/// workspace's (a member `harness`) and that has `cases/`. Another Rust
/// project's folder is passed over, so a variable inherited from its cargo
/// does not count.
fn find_root(manifest_dir: Option<&Path>, cwd: &Path) -> Result<PathBuf, String> {
    // A FIFO or a device named Cargo.toml is passed over unread.
    let is_root = |dir: &Path| {
        let members = files::read_regular(&dir.join("Cargo.toml"), "a Cargo.toml")
            .ok()
            .and_then(|text| text.parse::<toml::Table>().ok())
            .and_then(|t| t.get("workspace")?.get("members")?.as_array().cloned());
        members.is_some_and(|m| m.iter().any(|m| m.as_str() == Some("harness")))
            && dir.join("cases").is_dir()
    };
    let starts = manifest_dir.map(|d| cwd.join(d)).into_iter();
    let mut above = (starts.chain([cwd.to_path_buf()]))
        .flat_map(|start| start.ancestors().map(Path::to_path_buf).collect::<Vec<_>>());
    above.find(|dir| is_root(dir)).ok_or_else(|| {
        let manifest = manifest_dir
            .map(|dir| format!(" nor above CARGO_MANIFEST_DIR={}", dir.display()))
            .unwrap_or_default();
        format!(
            "not in a checkout of the practice: no folder above {}{manifest} has its \
             Cargo.toml (the workspace with harness/) and cases/; run it from inside the \
             repository",
            cwd.display()
        )
    })
}
