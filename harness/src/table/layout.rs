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

/// A case as text, indented by `level` steps of two spaces.
pub fn case_text(case: &Case, level: usize) -> String {
    pretty(&case_value(case, true), level)
}

/// A case without `expect`, for when no trustworthy expect exists.
pub fn case_text_without_expect(case: &Case, level: usize) -> String {
    pretty(&case_value(case, false), level)
}

/// The `$schema` of a new case file: the schema beside it in `cases/`.
pub const SCHEMA: &str = "./schema.json";

/// A whole new case file.
pub fn file_text(cases: &[Case]) -> String {
    file_text_of(
        Some(SCHEMA),
        cases.iter().map(|case| case_value(case, true)).collect(),
    )
}

/// A whole case file where some cases have no `expect` yet, with the
/// `$schema` its author gave (none when `None`).
pub fn file_text_drafts(schema: Option<&str>, drafts: &[Draft]) -> String {
    file_text_of(
        schema,
        drafts
            .iter()
            .map(|draft| case_value(&draft.case, draft.has_expect))
            .collect(),
    )
}

fn file_text_of(schema: Option<&str>, cases: Vec<Value>) -> String {
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
    use super::*;
    use std::path::Path;

    /// Every tool writes this layout, so a file already in it shows only
    /// what changed in `git diff`; `make lint` checks the same.
    #[test]
    fn the_case_files_are_in_the_canonical_layout() {
        let dir = crate::repo_root().join("cases");
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "json") || path.ends_with("schema.json") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let mut errors = Vec::new();
            let cases =
                super::super::validate::parse_file(Path::new("case file"), &text, &mut errors);
            assert!(errors.is_empty(), "{errors:?}");
            assert!(
                file_text(&cases) == text,
                "{} is not in the canonical layout: `make bless` lays it out",
                path.display()
            );
        }
    }
}
