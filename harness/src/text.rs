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

/// The last `lines` lines of `text`, each cut to 300 characters, with a
/// note when lines were left out.
pub fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    let start = all.len().saturating_sub(lines);
    let shown: Vec<String> = all[start..].iter().map(|l| excerpt(l, 300)).collect();
    let mut shown = shown.join("\n");
    if start > 0 {
        shown.insert_str(0, &format!("(last {lines} lines)\n"));
    }
    shown
}

/// `path` relative to `root` when it is below it, for messages.
pub fn relative(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Every mention of `root/` in `text` dropped, for messages built elsewhere.
pub fn relative_in(text: &str, root: &Path) -> String {
    text.replace(&format!("{}/", root.display()), "")
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
}
