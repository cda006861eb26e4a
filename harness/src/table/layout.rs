//! The case files' one canonical layout: fields in the order SPEC.md lists
//! them, and every value on one line where it fits, so a written file reads
//! like a hand-written one and a change shows as a small diff. Every tool
//! that writes a case file writes it so (`make bless`, `make new-case`,
//! `make fuzz SAVE=1`), and `make lint` checks it (`bless --check`).

use outbox_cases::{CaseFile, CaseSpec};
use serde_json::Value;

use super::{Case, Draft};

/// Lines longer than this are broken up.
const WIDTH: usize = 100;

/// A case as a JSON value, fields in the canonical order: the model's own
/// ([`CaseSpec`]), which leaves out an optional field at its default, so a
/// new optional field is written without an edit here.
pub fn case_value(case: &Case, with_expect: bool) -> Value {
    let spec = CaseSpec::new(
        case.name.clone(),
        case.description.clone(),
        case.scenario.clone(),
        with_expect.then(|| case.expect.clone()),
    );
    serde_json::to_value(spec).expect("a case serializes")
}

/// A case as text, indented by `level` steps of two spaces, with its
/// `expect` or, when no trustworthy one exists, without.
pub fn case_text(case: &Case, with_expect: bool, level: usize) -> String {
    pretty(&case_value(case, with_expect), level)
}

/// The `$schema` of a new case file: the schema beside it in `cases/`.
pub const SCHEMA: &str = "./schema.json";

/// A whole case file where some cases have no `expect` yet, with the
/// `$schema` its author gave (none when `None`).
pub fn file_text_drafts(schema: Option<&str>, drafts: &[Draft]) -> String {
    let cases = drafts
        .iter()
        .map(|d| case_value(&d.case, d.has_expect))
        .collect();
    let file = CaseFile {
        schema: schema.map(str::to_owned),
        cases,
    };
    let value = serde_json::to_value(file).expect("a case file serializes");
    let mut text = pretty(&value, 0);
    text.push('\n');
    text
}

/// `value` on one line if it fits at this depth, else one item per line.
pub fn pretty(value: &Value, level: usize) -> String {
    let compact = one_line(value);
    let indent = "  ".repeat(level);
    if indent.len() + compact.len() <= WIDTH {
        return compact;
    }
    let inner = "  ".repeat(level + 1);
    match value {
        Value::Array(items) if !items.is_empty() => {
            let lines: Vec<String> = items
                .iter()
                .map(|v| format!("{inner}{}", pretty(v, level + 1)))
                .collect();
            format!("[\n{}\n{indent}]", lines.join(",\n"))
        }
        Value::Object(fields) if !fields.is_empty() => {
            let lines: Vec<String> = fields
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{inner}{}: {}",
                        Value::from(k.as_str()),
                        pretty(v, level + 1)
                    )
                })
                .collect();
            format!("{{\n{}\n{indent}}}", lines.join(",\n"))
        }
        _ => compact,
    }
}

/// JSON on one line with a space after `,` and `:`, as people write it.
fn one_line(value: &Value) -> String {
    match value {
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(one_line).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Object(fields) => {
            let parts: Vec<String> = fields
                .iter()
                .map(|(k, v)| format!("{}: {}", Value::from(k.as_str()), one_line(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        scalar => scalar.to_string(),
    }
}

#[cfg(test)]
mod tests {
    /// Every tool writes this layout, so a file already in it shows only
    /// what changed in `git diff`; `make lint` checks the same.
    #[test]
    fn the_case_files_are_in_the_canonical_layout() {
        let (files, errors) = super::super::files(&[crate::repo_root().join("cases")]);
        assert!(errors.is_empty() && files.len() >= 2, "{errors:?}");
        for file in files {
            super::super::bless::check(&file).unwrap();
        }
    }
}
