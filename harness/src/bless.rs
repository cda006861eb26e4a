//! `make bless`: `expect` computed by the Rust reference and written back
//! into the case file, so adding a case is a JSON edit and a review of the
//! diff. The file is rewritten in the canonical layout (see `format`), which
//! every case file is kept in, so `git diff` shows only what was blessed.

use std::path::Path;

use crate::case::{self, Case, Message, Outcome};
use crate::format;
use crate::generate::reference_outcome;

/// Which cases get a new `expect`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// Only those without one.
    Missing,
    /// Every case (after a deliberate change of behaviour).
    All,
}

/// Blesses one file; returns the names whose `expect` was written or changed.
/// A file with any other problem is left alone and its problems returned.
pub fn bless_file(path: &Path, which: Which) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let mut errors = Vec::new();
    let mut cases = case::parse_file_for_bless(path, &text, &mut errors);
    if !errors.is_empty() {
        let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
        return Err(lines.join("\n"));
    }
    let mut blessed = Vec::new();
    for (case, has_expect) in &mut cases {
        if *has_expect && which == Which::Missing {
            continue;
        }
        let outcome = reference_outcome(case);
        if !*has_expect || outcome != case.expect {
            blessed.push(case.name.clone());
        }
        case.expect = outcome;
        *has_expect = true;
    }
    let new_text = format::file_text_partial(&cases);
    if new_text != text {
        std::fs::write(path, new_text)
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    }
    Ok(blessed)
}

/// Appends a template case named `name` (no `expect`, a TODO description)
/// to `path`, creating the file if needed.
pub fn new_case(path: &Path, name: &str, existing: &[Case]) -> Result<(), String> {
    if !case::is_valid_name(name) {
        return Err(format!(
            "{name:?} is not a valid case name: use lowercase letters, digits and `_`"
        ));
    }
    if let Some(other) = existing.iter().find(|c| c.name == name) {
        return Err(format!(
            "a case named {name} is already in {}",
            other.file.display()
        ));
    }
    let mut cases = match std::fs::read_to_string(path) {
        Ok(text) => {
            let mut errors = Vec::new();
            let cases = case::parse_file_for_bless(path, &text, &mut errors);
            if let Some(error) = errors.first() {
                return Err(error.to_string());
            }
            cases
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(format!("{}: cannot read: {e}", path.display())),
    };
    let message = |id: u64, aggregate: &str, event_type: &str| Message {
        id,
        aggregate: aggregate.into(),
        event_type: event_type.into(),
    };
    let template = Case {
        file: path.to_path_buf(),
        name: name.to_owned(),
        description: "TODO: what this case shows, in a sentence or two.".into(),
        batch_size: 10,
        messages: vec![
            message(1, "order-1", "OrderPlaced"),
            message(2, "order-2", "OrderPlaced"),
            message(3, "order-1", "OrderPaid"),
        ],
        failures: [(1, case::Failure::LostAck)].into(),
        passes: 2,
        restart_each_pass: false,
        expect: Outcome::default(),
    };
    cases.push((template, false));
    std::fs::write(path, format::file_text_partial(&cases))
        .map_err(|e| format!("{}: cannot write: {e}", path.display()))
}
