//! Text into HTML: escaping (markup, control and bidi characters) and the
//! fragment ids every section of the page links by.

use std::fmt::Write as _;

use crate::text::for_terminal;

/// Makes `text` safe inside an element or a quoted attribute: markup
/// escaped, and a runner's control characters (ESC, NUL, BEL, which would
/// be raw bytes in the page) and bidi controls (U+202E would turn the text
/// after it around) shown as their code, as on the terminal.
pub(super) fn escape(text: &str) -> String {
    for_terminal(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// A fragment id for `name` that needs no URL escaping: letters, digits and
/// `_` stay, every other byte becomes `-` and two hex digits, so two names
/// never share an id and `--` never occurs inside one.
pub(super) fn slug(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "-{b:02x}");
        }
    }
    out
}

pub(super) fn result_id(row: &str, language: &str) -> String {
    format!("r-{}--{}", slug(row), slug(language))
}
