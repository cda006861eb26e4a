//! The shared case table: the case model, reading and checking case files,
//! writing them back in their canonical layout, and blessing `expect`.
//!
//! Errors name the file, the case and the field, and all of them are
//! collected, so a broken table is fixed in one round.

pub mod bless;
pub mod json;
pub mod layout;
pub mod validate;

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

pub use outbox_runner::scenario::{Failure, Outcome, Row, Scenario};

/// The largest id (and attempt number) every language reads exactly: 2^53-1.
pub const MAX_ID: u64 = 9_007_199_254_740_991;
/// The most passes a case may ask for, so a typo cannot hang a runner.
pub const MAX_PASSES: u64 = 1_000_000;
/// The longest case name: it is part of a trial name, which libtest-mimic
/// prints whole (and panics on beyond 65,535 characters).
pub const MAX_NAME_CHARS: usize = 200;
/// The largest case file read, so a runaway file cannot exhaust memory.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// One validated case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// The file the case came from, for messages.
    pub file: PathBuf,
    /// Stable id, unique across files; part of the trial name.
    pub name: String,
    /// What the case shows.
    pub description: String,
    /// What the relay is asked to do.
    pub scenario: Scenario,
    /// The expected result.
    pub expect: Outcome,
}

/// A case as `make bless` reads it: `expect` may still be missing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    /// The case; its `expect` is empty until blessed.
    pub case: Case,
    /// Whether the file gave an `expect`.
    pub has_expect: bool,
}

/// A rule of the case format that a file breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseError {
    /// The file.
    pub file: PathBuf,
    /// The case: its name, or its position when the name itself is bad.
    pub case: Option<String>,
    /// The field, as a path such as `messages[1].id`.
    pub field: Option<String>,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for CaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(case) = &self.case {
            write!(f, ": case {case}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": field `{field}`")?;
        }
        write!(f, ": {}", self.problem)
    }
}

impl std::error::Error for CaseError {}

impl CaseError {
    /// A problem with a whole file.
    pub fn file(file: &Path, problem: String) -> Self {
        CaseError {
            file: file.to_path_buf(),
            case: None,
            field: None,
            problem,
        }
    }
}

/// Every case from `sources` (files, or folders searched for `*.json`
/// except `schema.json`), or every rule they break.
pub fn load(sources: &[PathBuf]) -> Result<Vec<Case>, Vec<CaseError>> {
    let (files, mut errors) = files(sources);
    let mut cases: Vec<Case> = Vec::new();
    let mut first_file: HashMap<String, PathBuf> = HashMap::new();
    for file in &files {
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(e) => {
                errors.push(CaseError::file(file, format!("cannot read: {e}")));
                continue;
            }
        };
        for case in validate::parse_file(file, &text, &mut errors) {
            if let Some(earlier) = first_file.get(&case.name) {
                errors.push(CaseError {
                    file: file.clone(),
                    case: Some(format!("`{}`", case.name)),
                    field: Some("name".into()),
                    problem: format!(
                        "the name is already used in {} (names are unique across all case files)",
                        earlier.display()
                    ),
                });
                continue;
            }
            first_file.insert(case.name.clone(), file.clone());
            cases.push(case);
        }
    }
    if errors.is_empty() {
        Ok(cases)
    } else {
        Err(errors)
    }
}

/// The case files among `sources`: files as given, folders searched for
/// `*.json` except `schema.json`, in sorted order; and what could not be read.
pub fn files(sources: &[PathBuf]) -> (Vec<PathBuf>, Vec<CaseError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for source in sources {
        if let Err(e) = collect_files(source, &mut files) {
            errors.push(CaseError::file(source, format!("cannot read: {e}")));
        }
    }
    (files, errors)
}

fn collect_files(source: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if !source.is_dir() {
        std::fs::metadata(source)?;
        files.push(source.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(source)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect_files(&path, files)?;
        } else if path.extension().is_some_and(|ext| ext == "json")
            && path.file_name().is_some_and(|name| name != "schema.json")
        {
            files.push(path);
        }
    }
    Ok(())
}

/// A case name: lowercase letters, digits and `_`, at least one.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}
