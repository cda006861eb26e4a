//! `make bless`: `expect` computed by the Rust reference and written back
//! into the case file, so adding a case is a JSON edit and a review of the
//! diff. Every file is written in the one canonical layout ([`layout`]),
//! which `make lint` checks ([`check`]), and every write is atomic: a crash
//! or a full disk leaves the old file whole.

use std::fs::File;
use std::path::{Path, PathBuf};

use outbox_cases::{CaseFile, CaseSpec};

use super::{layout, validate, Case, CaseError};
use crate::contract::Contract;
use crate::oracle;

/// Which cases get a new `expect`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// Only those without one.
    Missing,
    /// Every case (after a deliberate change of behaviour).
    All,
}

/// Blesses one file and writes it in the canonical layout, if that changes
/// it: a file laid out by hand is laid out anew even with nothing to bless
/// (its `$schema` kept). A missing file is not made; a file with any other
/// problem is left alone and its problems returned. Returns the cases
/// whose `expect` was written or changed, and whether the file was written.
pub fn bless_file(path: &Path, which: Which) -> Result<(Vec<String>, bool), String> {
    rewrite(path, true, |specs| {
        let mut names = Vec::new();
        for spec in specs {
            if spec.expect.is_some() && which == Which::Missing {
                continue;
            }
            let outcome = Some(oracle::expect(&spec.scenario));
            if spec.expect != outcome {
                names.push(spec.name.clone());
                spec.expect = outcome;
            }
        }
        names
    })
}

/// The case file at `path` read under its folder's lock, its cases changed
/// by `change`, and written back in the canonical layout if that changes
/// it: what every tool that writes a case file does. Unless `relayout`, a
/// file `change` adds no case to is left as it is (a tool that only
/// appends, or refuses, touches nothing else). A missing file is read as
/// one with no case, and made (with [`layout::SCHEMA`]) only when `change`
/// adds one. Returns what `change` did, and whether the file was written.
fn rewrite<T>(
    path: &Path,
    relayout: bool,
    change: impl FnOnce(&mut Vec<CaseSpec>) -> T,
) -> Result<(T, bool), String> {
    // Read under the lock: another tool may have added to the file since
    // its caller looked, and its cases must be kept.
    let _lock = lock_folder(path)?;
    let (old, file) = read(path)?.unzip();
    let mut file = file.unwrap_or_else(|| CaseFile {
        schema: Some(layout::SCHEMA.to_owned()),
        cases: Vec::new(),
    });
    let before = file.cases.len();
    let done = change(&mut file.cases);
    let text = layout::file_text(&file);
    let added = file.cases.len() != before;
    let written = (relayout || added) && old.map_or(added, |old| old != text);
    // Atomic (through a link, as every atomic write is): a failed write
    // leaves the old file whole.
    if written {
        let at = path.display();
        let cannot = |e| format!("{at}: cannot write (the file is unchanged): {e}");
        crate::atomic::write(path, text.as_bytes()).map_err(cannot)?;
    }
    Ok((done, written))
}

/// Whether the case file at `path` is valid and in the canonical layout,
/// as `make lint` asks (`bless --check`); the error says what to run.
pub fn check(path: &Path) -> Result<(), String> {
    let at = path.display();
    match read(path)? {
        None => Err(format!("{at}: cannot read: no such file")),
        Some((text, file)) if layout::file_text(&file) == text => Ok(()),
        Some(_) => Err(format!(
            "{at}: not in the canonical layout (the one every tool writes): `make bless` lays it out"
        )),
    }
}

/// The case file at `path`, its text and its cases, or `None` if there is
/// none; a file with any problem is an error listing them all.
fn read(path: &Path) -> Result<Option<(String, CaseFile)>, String> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: cannot read: {e}", path.display())),
        Ok(_) => {}
    }
    let text = super::read_regular(path, super::CASE_FILE)
        .map_err(|problem| CaseError::new(path, problem).to_string())?;
    let mut errors = Vec::new();
    let (file, _) = validate::parse(&*repo_contract()?, path, &text, &mut errors, true);
    if !errors.is_empty() {
        let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
        return Err(lines.join("\n"));
    }
    Ok(Some((text, file)))
}

/// The case `make new-case` starts from, SPEC.md's lost ack, its name
/// given and its `expect` left to `make bless`.
const TEMPLATE: &str = r#"{
  "name": "",
  "description": "TODO: what this case shows, in a sentence or two.",
  "batch_size": 10,
  "messages": [
    {"id": 1, "aggregate": "order-1", "type": "OrderPlaced"},
    {"id": 2, "aggregate": "order-2", "type": "OrderPlaced"},
    {"id": 3, "aggregate": "order-1", "type": "OrderPaid"}
  ],
  "failures": {"1": "lost_ack"},
  "passes": 2
}"#;

/// Appends a template case named `name` (no `expect`, a TODO description)
/// to `path`, creating the file if needed; the caller has checked that a
/// run loads `path` ([`super::unloaded`]).
pub fn new_case(path: &Path, name: &str, existing: &[Case]) -> Result<(), String> {
    if let Some(problem) = repo_contract()?.name_problem(name) {
        return Err(format!("the case name {problem}"));
    }
    let mut spec: CaseSpec = serde_json::from_str(TEMPLATE).expect("the template is a case");
    spec.name = name.to_owned();
    match append_new(path, &[spec], existing)?.remove(0) {
        None => Ok(()),
        Some(file) => Err(format!(
            "a case named {name} is already in {}",
            file.display()
        )),
    }
}

/// Appends to `path` the cases whose name is new: in no case of `table`
/// (every case file, since a saved case may have been moved to another),
/// not in the file as it is now, and not an earlier one's of `specs`.
/// Returns, per case, where its name already was (`None`: appended). What
/// `make fuzz SAVE=1` and `make new-case` write, in the canonical layout
/// with the file's `$schema` kept ([`rewrite`]); the file is not written
/// when nothing is new.
pub fn append_new(
    path: &Path,
    specs: &[CaseSpec],
    table: &[Case],
) -> Result<Vec<Option<PathBuf>>, String> {
    let (already, _) = rewrite(path, false, |all| {
        let mut already = Vec::new();
        for spec in specs {
            let in_table = table.iter().find(|c| c.name == spec.name);
            let there = in_table.map(|c| c.file.clone()).or_else(|| {
                let in_file = all.iter().any(|s| s.name == spec.name);
                in_file.then(|| path.to_path_buf())
            });
            if there.is_none() {
                all.push(spec.clone());
            }
            already.push(there);
        }
        already
    })?;
    Ok(already)
}

/// The repository's contract, which the tools write case files by.
fn repo_contract() -> Result<std::sync::Arc<Contract>, String> {
    let schema = crate::repo_root().join(crate::contract::SCHEMA);
    Contract::repo().map_err(|e| CaseError::new(&schema, e).to_string())
}

/// An exclusive lock on the folder of a case file, held while the file is
/// read, changed and written back: two `make new-case` (or `make bless`,
/// `make fuzz SAVE=1`) at once take turns, and neither loses the other's
/// cases. The folder, not the file: the atomic write replaces the file, so
/// a lock on it would be on the old one. Closing the folder unlocks it.
fn lock_folder(path: &Path) -> Result<File, String> {
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let folder = match real.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let (at, shown) = (path.display(), folder.display());
    let cannot = |e| format!("{at}: cannot lock its folder {shown} (the file is unchanged): {e}");
    let dir = File::open(&folder).map_err(cannot)?;
    loop {
        match dir.lock() {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(cannot(e)),
        }
    }
}
