//! Text for messages: what a child printed, cut to a size a person reads,
//! always saying what was left out.

use std::path::Path;

/// At most `max` characters of `text`, marked when cut.
pub fn excerpt(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}… ({} bytes in all)", &text[..cut], text.len()),
        None => text.to_owned(),
    }
}

/// The first line of `text` with something on it, trimmed: a summary of a
/// message that may start with a blank line.
pub fn first_line(text: &str) -> &str {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

/// The last `lines` lines of `text`, each cut to 300 characters, with a
/// note when lines were left out.
pub fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    let start = all.len().saturating_sub(lines);
    let shown: Vec<String> = all[start..].iter().map(|l| excerpt(l, 300)).collect();
    match start {
        0 => shown.join("\n"),
        _ => format!("(last {lines} lines)\n{}", shown.join("\n")),
    }
}

/// `path` relative to `root` when it is below it, for messages.
pub fn relative(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// `text` safe to print on a terminal: a control character other than a
/// newline or a tab (a `\r` that would overwrite a failure line, an escape
/// sequence) and a bidirectional control (U+202E reverses what follows) are
/// shown escaped, `\r` or `\u{202e}`, instead of acting.
pub fn for_terminal(text: &str) -> String {
    escape_where(text, acts)
}

/// `text` safe on a terminal as one line: what [`for_terminal`] escapes,
/// and newlines and tabs too, for a field read from a file (a base's case
/// name, commit or reason) that must not start a line of its own.
pub fn one_line(text: &str) -> String {
    escape_where(text, |c| c.is_control() || is_bidi_control(c))
}

/// `text` fit for an XML 1.0 document: the characters XML forbids (most
/// C0 controls, U+FFFE, U+FFFF) are shown escaped (`\u{fffe}`), and so is
/// what [`for_terminal`] escapes, since the report is read on screens too.
pub fn for_xml(text: &str) -> String {
    escape_where(text, |c| {
        let allowed = matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}')
            || c >= '\u{10000}';
        !allowed || acts(c)
    })
}

/// Whether `c` acts when shown rather than being read: what
/// [`for_terminal`] escapes.
pub(crate) fn acts(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c)
}

/// The characters that reorder text when shown (Unicode's bidirectional
/// embeddings, overrides, isolates and marks): not control characters to
/// `char`, yet in a description or a runner's output they make a terminal
/// or a page lie about the text.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn escape_where(text: &str, escaped: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        // Rust's own escape of each picked character is the form shown:
        // `\r`, `\n`, `\t`, `\u{202e}`.
        match escaped(c) {
            true => out.extend(c.escape_default()),
            false => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_say_so() {
        assert_eq!(excerpt("abc", 5), "abc");
        assert_eq!(excerpt("abcdef", 3), "abc… (6 bytes in all)");
        assert_eq!(tail("a\nb\nc", 2), "(last 2 lines)\nb\nc");
        assert_eq!(tail("a\nb", 2), "a\nb");
    }

    #[test]
    fn what_acts_on_a_terminal_or_xml_forbids_is_shown_escaped() {
        assert_eq!(for_terminal("ok\n\tstill"), "ok\n\tstill");
        assert_eq!(for_terminal("FAILED\rok    "), "FAILED\\rok    ");
        assert_eq!(for_terminal("a\u{202e}cba"), "a\\u{202e}cba");
        assert_eq!(for_terminal("\u{1b}[2J"), "\\u{1b}[2J");
        assert_eq!(
            one_line("a\nb\tc\rd\u{202e}\u{1b}"),
            "a\\nb\\tc\\rd\\u{202e}\\u{1b}"
        );
        // What XML forbids too.
        assert_eq!(
            for_xml("a\u{fffe}b\u{ffff}\u{0}"),
            "a\\u{fffe}b\\u{ffff}\\u{0}"
        );
        assert_eq!(for_xml("é 😀 \n"), "é 😀 \n");
    }
}
