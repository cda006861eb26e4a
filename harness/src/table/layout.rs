//! The case files' one canonical layout: fields in the order SPEC.md lists
//! them, and every value on one line where it fits, so a written file reads
//! like a hand-written one and a change shows as a small diff. Every tool
//! that writes a case file writes it so (`make bless`, `make new-case`,
//! `make fuzz SAVE=1`), and `make lint` checks it (`bless --check`).
//! serde_json's pretty printer would put every id of `sent` on a line of
//! its own: a ten-row case would take a screen.

use outbox_cases::CaseFile;
use serde_json::Value;

use super::Case;

/// Lines longer than this are broken up.
const WIDTH: usize = 100;

/// The `$schema` of a new case file: the schema beside it in `cases/`.
pub const SCHEMA: &str = "./schema.json";

/// A case as text, as a case file holds it at the top level, with its
/// `expect` or, when no trustworthy one exists, without.
pub fn case_text(case: &Case, with_expect: bool) -> String {
    let mut value = serde_json::to_value(case.spec(with_expect)).expect("a case serializes");
    filed(&mut value);
    pretty(&value, 0)
}

/// A whole case file, some cases perhaps without `expect` yet.
pub fn file_text(file: &CaseFile) -> String {
    let mut value = serde_json::to_value(file).expect("a case file serializes");
    let cases = value["cases"].as_array_mut().into_iter().flatten();
    cases.for_each(filed);
    pretty(&value, 0) + "\n"
}

/// A case's value as a file holds it: the wire always carries `failures`
/// (the model's serde writes it), a file leaves it out when there is none.
fn filed(case: &mut Value) {
    let failures = case.get("failures").and_then(Value::as_object);
    let none = failures.is_some_and(|f| f.is_empty());
    if let Some(fields) = case.as_object_mut().filter(|_| none) {
        fields.shift_remove("failures");
    }
}

/// `value` on one line (a space after `,` and `:`, as people write it) if
/// it fits after `indent` spaces, else one item per line.
fn pretty(value: &Value, indent: usize) -> String {
    let inner = |value: &Value| pretty(value, indent + 2);
    let field =
        |(key, value): (&String, _)| format!("{}: {}", Value::from(key.as_str()), inner(value));
    let ([open, close], items): (_, Vec<String>) = match value {
        Value::Array(items) => (['[', ']'], items.iter().map(&inner).collect()),
        Value::Object(fields) => (['{', '}'], fields.iter().map(field).collect()),
        scalar => return scalar.to_string(),
    };
    // An item that fits at this depth fits one deeper, so a line that fits
    // holds only one-line items.
    let line = format!("{open}{}{close}", items.join(", "));
    if items.is_empty() || (indent + line.len() <= WIDTH && !line.contains('\n')) {
        return line;
    }
    let pad = " ".repeat(indent + 2);
    let items = items.join(&format!(",\n{pad}"));
    format!("{open}\n{pad}{items}\n{}{close}", " ".repeat(indent))
}
