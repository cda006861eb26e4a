//! The case files' layout: fields in the order SPEC.md lists them, and every
//! value on one line where it fits, so a written file reads like a
//! hand-written one and a change shows as a small diff.

use std::ops::Range;

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

/// `text` (a valid case file holding `drafts`) with the `expect` of the
/// cases at `changed` written in or replaced where it stands, and every
/// other byte as it was: how `make bless` edits a file its author laid out
/// in their own way. `None` if the text is not laid out as expected.
pub fn with_expects(text: &str, drafts: &[Draft], changed: &[usize]) -> Option<String> {
    let spans = Spans::of(text)?;
    let mut text = text.to_owned();
    for &index in changed.iter().rev() {
        let span = spans.cases.get(index)?;
        let expect = serde_json::to_value(&drafts.get(index)?.case.expect).ok()?;
        match &span.expect {
            Some(old) => {
                let level = indent_at(&text, old.start).len() / 2;
                text.replace_range(old.clone(), &pretty(&expect, level));
            }
            None if !text[span.open..span.last_end].contains('\n') => {
                let field = format!(", \"expect\": {}", one_line(&expect));
                text.insert_str(span.last_end, &field);
            }
            None => {
                let indent = indent_at(&text, span.last_key).to_owned();
                let value = pretty(&expect, indent.len() / 2);
                let field = format!(",\n{indent}\"expect\": {value}");
                text.insert_str(span.last_end, &field);
            }
        }
    }
    Some(text)
}

/// `text` (a valid case file) with `case` appended to its cases and every
/// other byte as it was. `None` if it has no case to append after.
pub fn with_case_appended(text: &str, case: &Value) -> Option<String> {
    let last = Spans::of(text)?.cases.pop()?;
    let indent = indent_at(text, last.open).to_owned();
    let case = pretty(case, indent.len() / 2);
    let mut text = text.to_owned();
    text.insert_str(last.end, &format!(",\n{indent}{case}"));
    Some(text)
}

/// The whitespace that starts the line holding byte `at`.
fn indent_at(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let line = &text[start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// Where the cases of a case file's text are, as byte offsets.
struct Spans {
    cases: Vec<CaseSpan>,
}

/// Where one case object is.
struct CaseSpan {
    /// Its `{`.
    open: usize,
    /// Just after its `}`.
    end: usize,
    /// The start of its last field's key.
    last_key: usize,
    /// Just after its last field's value.
    last_end: usize,
    /// Its `expect` value, if it has one.
    expect: Option<Range<usize>>,
}

impl Spans {
    /// The spans of a text already parsed as a valid case file.
    fn of(text: &str) -> Option<Spans> {
        let mut scan = Scan { text, at: 0 };
        let mut cases = Vec::new();
        scan.object(|scan, key, _| {
            if key != "cases" {
                return scan.value().map(|_| ());
            }
            scan.eat(b'[')?;
            if scan.peek() == Some(b']') {
                scan.at += 1;
                return Some(());
            }
            loop {
                cases.push(scan.case()?);
                match scan.next()? {
                    b',' => {}
                    b']' => return Some(()),
                    _ => return None,
                }
            }
        })?;
        Some(Spans { cases })
    }
}

/// A cursor over JSON text that is known to be valid.
struct Scan<'t> {
    text: &'t str,
    at: usize,
}

impl Scan<'_> {
    fn skip_space(&mut self) {
        let rest = &self.text[self.at..];
        self.at += rest.len() - rest.trim_start_matches([' ', '\t', '\r', '\n']).len();
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.text.as_bytes().get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.next()? == byte).then_some(())
    }

    /// An object's fields: each key, and where it starts, given to
    /// `field`, which reads its value.
    fn object(
        &mut self,
        mut field: impl FnMut(&mut Self, &str, usize) -> Option<()>,
    ) -> Option<()> {
        self.eat(b'{')?;
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Some(());
        }
        loop {
            let span = self.string()?;
            let key: String = serde_json::from_str(&self.text[span.clone()]).ok()?;
            self.eat(b':')?;
            field(self, &key, span.start)?;
            match self.next()? {
                b',' => {}
                b'}' => return Some(()),
                _ => return None,
            }
        }
    }

    fn case(&mut self) -> Option<CaseSpan> {
        self.skip_space();
        let open = self.at;
        let (mut last_key, mut last_end, mut expect) = (open, open, None);
        self.object(|scan, key, key_start| {
            last_key = key_start;
            let value = scan.value()?;
            last_end = value.end;
            if key == "expect" {
                expect = Some(value);
            }
            Some(())
        })?;
        Some(CaseSpan {
            open,
            end: self.at,
            last_key,
            last_end,
            expect,
        })
    }

    fn string(&mut self) -> Option<Range<usize>> {
        self.skip_space();
        let start = self.at;
        let bytes = self.text.as_bytes();
        if bytes.get(start) != Some(&b'"') {
            return None;
        }
        let mut at = start + 1;
        loop {
            match bytes.get(at)? {
                b'\\' => at += 2,
                b'"' => break,
                _ => at += 1,
            }
        }
        self.at = at + 1;
        Some(start..self.at)
    }

    fn value(&mut self) -> Option<Range<usize>> {
        self.skip_space();
        let start = self.at;
        let bytes = self.text.as_bytes();
        match bytes.get(start)? {
            b'"' => return self.string(),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match bytes.get(self.at)? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.at += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    self.at += 1;
                }
            }
            _ => {
                while bytes
                    .get(self.at)
                    .is_some_and(|b| !b",}] \t\r\n".contains(b))
                {
                    self.at += 1;
                }
            }
        }
        Some(start..self.at)
    }
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

    fn drafts(text: &str) -> Vec<Draft> {
        let mut errors = Vec::new();
        let drafts = super::super::validate::parse_drafts(Path::new("f"), text, &mut errors);
        assert!(errors.is_empty(), "{errors:?}");
        drafts
    }

    /// Bless's edit of a hand-laid-out file: the expect goes in after the
    /// last field, on the case's line if the case is on one line, and a
    /// `}` or `"` inside a string does not confuse the scan.
    #[test]
    fn writes_an_expect_in_and_keeps_every_other_byte() {
        let text = concat!(
            "{\"cases\":[ {\"name\": \"one_line\", \"description\": \"Has } and \\\" and ]\", ",
            "\"batch_size\": 1, \"messages\": [], \"passes\": 1} ,\n",
            "  {\"name\": \"two\",\n   \"description\": \"x\", \"batch_size\": 1,\n",
            "   \"messages\": [], \"passes\": 0 }\n]}"
        );
        let mut drafts = drafts(text);
        drafts[0].case.expect.sent = vec![vec![]];
        let once = with_expects(text, &drafts, &[0, 1]).unwrap();
        assert_eq!(
            once,
            concat!(
                "{\"cases\":[ {\"name\": \"one_line\", \"description\": \"Has } and \\\" and ]\", ",
                "\"batch_size\": 1, \"messages\": [], \"passes\": 1, ",
                "\"expect\": {\"sent\": [[]], \"journal\": [], \"duplicates\": 0}} ,\n",
                "  {\"name\": \"two\",\n   \"description\": \"x\", \"batch_size\": 1,\n",
                "   \"messages\": [], \"passes\": 0,\n",
                "   \"expect\": {\"sent\": [], \"journal\": [], \"duplicates\": 0} }\n]}"
            )
        );
        // Replaced where it stands.
        let mut again =
            super::super::validate::parse_drafts(Path::new("f"), &once, &mut Vec::new());
        again[1].case.expect.duplicates = 3;
        let twice = with_expects(&once, &again, &[1]).unwrap();
        assert_eq!(
            twice,
            once.replace("\"duplicates\": 0} }", "\"duplicates\": 3} }")
        );
    }
}
