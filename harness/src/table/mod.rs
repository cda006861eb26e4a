//! The shared case table: the case model, reading and checking case files,
//! writing them back in their canonical layout, and blessing `expect`.
//!
//! Errors name the file, the case and the field, and all of them are
//! collected, so a broken table is fixed in one round.

pub mod bless;
pub mod layout;
pub mod limits;
pub mod validate;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use outbox_cases::CaseSpec;
pub use outbox_cases::{Failure, Outcome, Row, Scenario};

use crate::contract::{Contract, Fields, SCHEMA};
use crate::files::{not_regular, read_regular};

pub use crate::contract::MAX_ID;

/// One validated case.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Case {
    /// The file the case came from, for messages.
    pub file: PathBuf,
    /// Stable id, unique across files; part of the trial name.
    pub name: String,
    /// What the case shows.
    pub description: String,
    /// What the relay is asked to do.
    pub scenario: Scenario,
    /// The expected outcome, as data (see [`CaseSpec::expect`]); empty
    /// until blessed.
    pub expect: Fields,
    /// The optional features it uses ([`Contract::features_of`]).
    pub features: BTreeSet<String>,
}

impl Case {
    /// A case as `spec` spells it, from `file`, using `features`.
    pub fn new(file: &Path, spec: CaseSpec, features: BTreeSet<String>) -> Self {
        Case {
            file: file.to_path_buf(),
            name: spec.name,
            description: spec.description,
            scenario: spec.scenario,
            expect: spec.expect.unwrap_or_default(),
            features,
        }
    }

    /// The case as a file spells it, with its `expect` or, when it has no
    /// trustworthy one, without.
    pub fn spec(&self, with_expect: bool) -> CaseSpec {
        CaseSpec {
            name: self.name.clone(),
            description: self.description.clone(),
            scenario: self.scenario.clone(),
            expect: with_expect.then(|| self.expect.clone()),
        }
    }
}

/// A rule of the case format that a file breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {problem}", file.display())]
pub struct CaseError {
    /// The file, apart, so that a caller can show it as it shows paths.
    pub file: PathBuf,
    /// What is wrong, after the case (its name, or its position when the
    /// name itself is bad) and the field (a path such as `messages[1].id`)
    /// when it is about one.
    pub problem: String,
}

impl CaseError {
    /// A problem in `file`.
    pub fn new(file: &Path, problem: String) -> Self {
        let file = file.to_path_buf();
        CaseError { file, problem }
    }
}

/// Every case from `sources` (files, or folders searched for `*.json`
/// except `schema.json`) checked with the repository's schema
/// ([`Contract::repo`]), or every rule they break.
pub fn load(sources: &[PathBuf]) -> Result<Vec<Case>, Vec<CaseError>> {
    let schema = crate::repo_root().join(SCHEMA);
    let contract = Contract::repo().map_err(|e| vec![CaseError::new(&schema, e)])?;
    load_with(&contract, sources)
}

/// Every case from `sources`, checked with `contract`, or every rule they
/// break.
pub fn load_with(contract: &Contract, sources: &[PathBuf]) -> Result<Vec<Case>, Vec<CaseError>> {
    let (files, mut errors) = files(sources);
    let mut cases = Vec::new();
    let mut first_file: HashMap<String, PathBuf> = HashMap::new();
    for file in &files {
        let text = read_regular(file, CASE_FILE).map_err(|p| errors.push(CaseError::new(file, p)));
        let Ok(text) = text else { continue };
        let (parsed, features) = validate::parse(contract, file, &text, &mut errors, false);
        for (spec, features) in parsed.cases.into_iter().zip(features) {
            let case = Case::new(file, spec, features);
            if let Some(earlier) = first_file.get(&case.name) {
                let earlier = beside(earlier, file).display();
                let problem = format!(
                    "case `{}`: field `name`: the name is already used in {earlier} (names are unique \
                     across all case files)",
                    case.name
                );
                errors.push(CaseError::new(file, problem));
                continue;
            }
            first_file.insert(case.name.clone(), file.clone());
            cases.push(case);
        }
    }
    errors.is_empty().then_some(cases).ok_or(errors)
}

/// `other` as a reader of a message about `file` finds it: by its name
/// when it sits beside `file` (the message names `file` however the caller
/// shows paths), else as given.
fn beside<'a>(other: &'a Path, file: &Path) -> &'a Path {
    match other.file_name() {
        Some(name) if other.parent() == file.parent() => Path::new(name),
        _ => other,
    }
}

/// The case files among `sources`: files as given, folders searched for
/// `*.json` except `schema.json`, in sorted order; and what could not be read.
///
/// Each real file comes once, under the first path it was reached by,
/// however many links or sources lead to it; a link back to a folder being
/// searched is named as a loop instead of followed; what is not a regular
/// file is refused here, before anything opens it (a FIFO would block).
pub fn files(sources: &[PathBuf]) -> (Vec<PathBuf>, Vec<CaseError>) {
    let mut walk = Walk::default();
    for source in sources {
        walk.visit(source, true);
    }
    (walk.files, walk.errors)
}

/// The state of one search of the sources.
#[derive(Default)]
struct Walk {
    files: Vec<PathBuf>,
    errors: Vec<CaseError>,
    /// Canonical paths of the files and folders already taken.
    seen: HashSet<PathBuf>,
    /// The folders being searched, canonical, outermost first.
    open: Vec<PathBuf>,
}

impl Walk {
    /// Takes `path`: a folder is searched, a file kept. `given`: named by
    /// the user, so a problem is reported even when it is not `*.json`.
    fn visit(&mut self, path: &Path, given: bool) {
        let found = std::fs::canonicalize(path)
            .and_then(|real| std::fs::metadata(&real).map(|meta| (real, meta)));
        let wanted = given || is_case_file(path);
        let problem = match found {
            // A dangling link that is not a case file is none of ours.
            Err(_) if !wanted => return,
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                "a symlink loop: its links lead to one another, never to a file".to_owned()
            }
            Err(e) => format!("cannot read: {e}"),
            Ok((real, _)) if self.open.contains(&real) => format!(
                "a symlink loop: it leads back to {}, a folder it is in, so it is not followed",
                real.display()
            ),
            Ok((real, meta)) if meta.is_dir() => {
                if self.seen.insert(real.clone()) {
                    self.open.push(real);
                    self.search(path);
                    self.open.pop();
                }
                return;
            }
            Ok(_) if !wanted => return,
            Ok((real, meta)) if !meta.is_file() => not_regular(&meta, &real, CASE_FILE),
            Ok((real, _)) => {
                if self.seen.insert(real) {
                    self.files.push(path.to_path_buf());
                }
                return;
            }
        };
        self.errors.push(CaseError::new(path, problem));
    }

    fn search(&mut self, folder: &Path) {
        let entries = std::fs::read_dir(folder)
            .and_then(|entries| entries.map(|e| e.map(|e| e.path())).collect());
        let mut entries: Vec<PathBuf> = match entries {
            Ok(entries) => entries,
            Err(e) => {
                self.errors
                    .push(CaseError::new(folder, format!("cannot read: {e}")));
                return;
            }
        };
        entries.sort();
        // Dotfiles and dot-folders are not the table's: an editor's lock
        // link (`.#seed.json`, dangling on purpose), a swap file, a
        // temporary file of an atomic write.
        for entry in entries.into_iter().filter(|e| !is_dotfile(e)) {
            self.visit(&entry, false);
        }
    }
}

/// A `*.json` file other than `schema.json`, and not a dotfile.
fn is_case_file(path: &Path) -> bool {
    path.extension().is_some_and(|ext| ext == "json")
        && path.file_name().is_some_and(|name| name != "schema.json")
        && !is_dotfile(path)
}

fn is_dotfile(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|name| name.as_encoded_bytes().starts_with(b"."))
}

/// Why a run over `sources` would not load a case file at `path` (which
/// may not exist yet), if it would not: what `make new-case` checks before
/// it says "added". A case file is named `*.json` (lowercase), not
/// `schema.json` nor a dotfile, and is a source or inside a source folder
/// through no dot-folder.
pub fn unloaded(path: &Path, sources: &[PathBuf]) -> Option<&'static str> {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let Some(parent) = path.parent().filter(|_| is_case_file(path)) else {
        return Some(
            "case files end in `.json` (lowercase), and `schema.json` and dotfiles are not case files",
        );
    };
    let file = real(parent).join(path.file_name().unwrap_or_default());
    let hidden = |inside: &Path| inside.components().any(|c| is_dotfile(c.as_ref()));
    let loaded = sources.iter().map(|s| real(s)).any(|source| {
        let inside = file.strip_prefix(&source).ok();
        file == source || (source.is_dir() && inside.is_some_and(|inside| !hidden(inside)))
    });
    (!loaded)
        .then_some("case files are `*.json` files in cases/ or in a PARITY_CASES file or folder")
}

/// What a case file is called in messages.
const CASE_FILE: &str = "a case file";
