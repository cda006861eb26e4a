//! `make bless`: `expect` computed by the Rust reference and written back
//! into the case file, so adding a case is a JSON edit and a review of the
//! diff. The file is rewritten in the canonical layout (see [`layout`]),
//! which every case file is kept in, so `git diff` shows only what was
//! blessed; a file with nothing to change is not written at all.

use std::path::Path;

use super::{is_valid_name, layout, validate, Case, Draft, Failure, Outcome, Row, Scenario};
use crate::config::RESERVED_NAMES;
use crate::oracle;

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
    let mut drafts = read_drafts(path)?;
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut blessed = Vec::new();
    for draft in &mut drafts {
        if draft.has_expect && which == Which::Missing {
            continue;
        }
        let outcome = oracle::expect(&draft.case.scenario);
        if !draft.has_expect || outcome != draft.case.expect {
            blessed.push(draft.case.name.clone());
        }
        draft.case.expect = outcome;
        draft.has_expect = true;
    }
    let new_text = layout::file_text_drafts(&drafts);
    if new_text != text {
        crate::atomic::write(path, new_text.as_bytes()).map_err(|e| {
            format!(
                "{}: cannot write (the file is unchanged): {e}",
                path.display()
            )
        })?;
    }
    Ok(blessed)
}

/// The drafts of a case file; a missing file has none.
fn read_drafts(path: &Path) -> Result<Vec<Draft>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: cannot read: {e}", path.display())),
    };
    let mut errors = Vec::new();
    let drafts = validate::parse_drafts(path, &text, &mut errors);
    if errors.is_empty() {
        Ok(drafts)
    } else {
        let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
        Err(lines.join("\n"))
    }
}

/// Appends a template case named `name` (no `expect`, a TODO description)
/// to `path`, creating the file if needed.
pub fn new_case(path: &Path, name: &str, existing: &[Case]) -> Result<(), String> {
    if !is_valid_name(name) {
        return Err(format!(
            "{name:?} is not a valid case name: use lowercase letters, digits and `_`"
        ));
    }
    if RESERVED_NAMES.contains(&name) {
        return Err(format!(
            "{name:?} is reserved for a trial of each language: pick another name"
        ));
    }
    if let Some(other) = existing.iter().find(|c| c.name == name) {
        return Err(format!(
            "a case named {name} is already in {}",
            other.file.display()
        ));
    }
    let mut drafts = read_drafts(path)?;
    let row = |id: u64, aggregate: &str, event_type: &str| Row {
        id,
        aggregate: aggregate.into(),
        event_type: event_type.into(),
        written_after_pass: 0,
    };
    let template = Case {
        file: path.to_path_buf(),
        name: name.to_owned(),
        description: "TODO: what this case shows, in a sentence or two.".into(),
        scenario: Scenario {
            batch_size: 10,
            messages: vec![
                row(1, "order-1", "OrderPlaced"),
                row(2, "order-2", "OrderPlaced"),
                row(3, "order-1", "OrderPaid"),
            ],
            failures: [(1, Failure::LostAck)].into(),
            passes: 2,
            restart_each_pass: false,
        },
        expect: Outcome::default(),
    };
    drafts.push(Draft {
        case: template,
        has_expect: false,
    });
    crate::atomic::write(path, layout::file_text_drafts(&drafts).as_bytes()).map_err(|e| {
        format!(
            "{}: cannot write (the file is unchanged): {e}",
            path.display()
        )
    })
}
