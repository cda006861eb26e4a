//! The case files' layout: fields in the order SPEC.md lists them, and every
//! value on one line where it fits, so a written file reads like a
//! hand-written one and a change shows as a small diff.

use serde_json::{json, Map, Value};

use super::{Case, Draft};

/// Lines longer than this are broken up.
const WIDTH: usize = 100;

/// A case as a JSON value, fields in the canonical order: the scenario's
/// own encoding (the one the protocol sends) between the case's name and
/// description and its `expect`, with an empty `failures` left out.
pub fn case_value(case: &Case, with_expect: bool) -> Value {
    let mut fields = Map::new();
    fields.insert("name".into(), json!(case.name));
    fields.insert("description".into(), json!(case.description));
    let Value::Object(scenario) =
        serde_json::to_value(&case.scenario).expect("a scenario serializes")
    else {
        unreachable!("a scenario is a JSON object")
    };
    for (key, value) in scenario {
        if key == "failures" && value.as_object().is_some_and(Map::is_empty) {
            continue;
        }
        fields.insert(key, value);
    }
    if with_expect {
        fields.insert(
            "expect".into(),
            serde_json::to_value(&case.expect).expect("an outcome serializes"),
        );
    }
    Value::Object(fields)
}

/// A case as text, indented by `level` steps of two spaces.
pub fn case_text(case: &Case, level: usize) -> String {
    pretty(&case_value(case, true), level)
}

/// A case without `expect`, for when no trustworthy expect exists.
pub fn case_text_without_expect(case: &Case, level: usize) -> String {
    pretty(&case_value(case, false), level)
}

/// A whole case file.
pub fn file_text(cases: &[Case]) -> String {
    file_text_of(cases.iter().map(|case| case_value(case, true)).collect())
}

/// A whole case file where some cases have no `expect` yet.
pub fn file_text_drafts(drafts: &[Draft]) -> String {
    file_text_of(
        drafts
            .iter()
            .map(|draft| case_value(&draft.case, draft.has_expect))
            .collect(),
    )
}

fn file_text_of(items: Vec<Value>) -> String {
    let file = json!({"$schema": "./schema.json", "cases": items});
    let mut text = pretty(&file, 0);
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

    /// `make bless` rewrites a file in this layout, so a file already in it
    /// shows only the blessed lines in `git diff`.
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
                "{} is not in the canonical layout: `make bless` rewrites it in it",
                path.display()
            );
        }
    }
}
