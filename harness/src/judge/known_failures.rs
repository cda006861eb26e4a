//! Per-language lists of cases a port is known to fail, with the reason
//! (e.g. a case added before that port caught up).
//!
//! A listed case that fails is reported ignored with its reason; a listed
//! case that passes fails the run as stale, so the list cannot rot.
//! The file is `runners/<language>/known-failures.json`:
//! `{"case_name": "why it fails, and the issue that tracks it"}`.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use super::{Reason, Verdict};
use crate::config::reserved_names;
use serde_json::Value;

/// The reason `make known-failures` writes for a new entry: the loader
/// refuses it, so a list is not used until a person says why.
pub const PLACEHOLDER: &str = "TODO: say why it fails and which issue tracks it";

/// The known failures of one language: case name to reason.
pub type KnownFailures = BTreeMap<String, String>;

/// Where a language's list lives, relative to the repository root.
pub fn path(language: &str) -> PathBuf {
    PathBuf::from(format!("runners/{language}/known-failures.json"))
}

/// `verdict` as a language's list turns it: a listed failure is known, a
/// listed pass is stale; an ignored trial stays as it is.
pub fn apply(known: &KnownFailures, language: &str, trial: &str, verdict: Verdict) -> Verdict {
    let Some(reason) = known.get(trial) else {
        return verdict;
    };
    match verdict {
        Verdict::Fail(_) => Verdict::KnownFailure(reason.clone()),
        Verdict::Pass => Verdict::Fail(Reason::StaleKnownFailure {
            trial: trial.to_owned(),
            language: language.to_owned(),
            reason: reason.clone(),
        }),
        other @ (Verdict::Ignore(_) | Verdict::KnownFailure(_) | Verdict::Unsupported(_)) => other,
    }
}

/// Reads a language's list (an absent file is an empty list). Every entry
/// must name a known case (or `demo`, or `generated`) and give a reason;
/// `placeholder_ok` (for `make known-failures`: a list a person has not
/// finished must be rewritable) lets a [`PLACEHOLDER`] reason pass.
pub fn load(
    root: &Path,
    language: &str,
    case_names: &HashSet<&str>,
    placeholder_ok: bool,
) -> Result<KnownFailures, String> {
    let relative = path(language);
    let file = root.join(&relative);
    let at = relative.display();
    if std::fs::metadata(&file).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
        return Ok(KnownFailures::new());
    }
    let text = crate::files::read_regular(&file, "a known-failures list")
        .map_err(|problem| format!("{at}: {problem}"))?;
    let parsed = crate::json::parse_value(&text);
    let (Value::Object(entries), _) = parsed.map_err(|e| format!("{at}: not valid JSON: {e}"))?
    else {
        return Err(format!("{at}: must be an object of case name to reason"));
    };
    let mut known = KnownFailures::new();
    for (name, reason) in entries {
        let known_name = reserved_names().contains(&name.as_str()) || case_names.contains(&*name);
        let why = match reason {
            _ if !known_name => "is not a case in the table: remove it, or fix the name",
            Value::String(reason) if reason.trim() == PLACEHOLDER && !placeholder_ok => {
                "still has the placeholder reason: say why it fails and which issue tracks it"
            }
            Value::String(reason) if !reason.trim().is_empty() => {
                known.insert(name, reason);
                continue;
            }
            _ => "needs a reason (a non-empty string)",
        };
        return Err(format!("{at}: `{name}` {why}"));
    }
    Ok(known)
}
