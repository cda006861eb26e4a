//! The code panel, as the practice's text describes it: the whole scenario
//! with its output, a language at a time (PHP first), read from the source
//! files when the page is written.
//!
//! Which files hold which part, which block of the demo is its composition
//! root and loop, where a language's tab stands and what text shows its
//! idiom is each language's manifest's `[code]` table
//! (`runners/<language>/language.toml`); the sentence naming the idiom is
//! SPEC.md's language note, read from there. A missing or unreadable file
//! shows as such on the page.

use std::path::Path;

use crate::toolchain::manifest::{Code, Excerpt, Manifest};

/// The most of one file the panel shows, in characters: a file that grew
/// by accident cannot push the page past its size.
const MAX_FILE_CHARS: usize = 64 * 1024;

/// The panel's name for the demo's composition root and loop, shown after
/// the parts of [`Code::PARTS`].
pub const DEMO: &str = "demo";

/// The whole scenario in every language.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Panel {
    /// Per language, in the tabs' order (`code.tab`).
    pub languages: Vec<Language>,
    /// The demo's transcript: the scenario's output, the same in every
    /// language (`None` in a panel of no language).
    pub output: Option<Source>,
}

/// One language's tab.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Language {
    /// E.g. `php`.
    pub name: String,
    /// SPEC.md's note on the language's idiom (its Markdown, on one line):
    /// the first language note naming it in bold; empty if none does.
    pub note: String,
    /// The text the panel marks (`code.idiom`).
    pub marks: Vec<String>,
    /// Each part of [`Code::PARTS`], then [`DEMO`]: its name and files.
    pub parts: Vec<(String, Vec<Source>)>,
}

/// One source file, or the demo's block of it, as the panel shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Relative to the repository root, as the page prints it.
    pub path: String,
    /// The text, or why it could not be read (missing, not a file).
    pub text: Result<String, String>,
}

/// The panel of `manifests`, its files read from below `root`, SPEC.md's
/// notes and the demo's `transcript` (relative to `root`) too.
pub fn panel(manifests: &[Manifest], root: &Path, transcript: &str) -> Panel {
    let spec = crate::files::read_regular(&root.join("SPEC.md"), "the specification");
    let spec = spec.unwrap_or_default();
    let mut manifests: Vec<&Manifest> = manifests.iter().collect();
    manifests.sort_by_key(|m| (m.code.tab, &m.name));
    let languages = manifests.into_iter().map(|m| {
        let read = |part: &&str| {
            let files = m.code.files(part).iter().map(|path| read_one(root, path));
            ((*part).to_owned(), files.collect())
        };
        let mut parts: Vec<(String, Vec<Source>)> = Code::PARTS.iter().map(read).collect();
        parts.push((DEMO.to_owned(), vec![excerpt(root, &m.code.demo)]));
        Language {
            name: m.name.clone(),
            note: note(&spec, &m.name),
            marks: m.code.idiom.clone(),
            parts,
        }
    });
    Panel {
        languages: languages.collect(),
        output: Some(read_one(root, transcript)),
    }
}

/// The file at `path` from its first declaration (see [`opening`]).
fn read_one(root: &Path, path: &str) -> Source {
    let file = root.join(path);
    // A manifest names it, so it is opened only if it is a regular file.
    let text = match std::fs::metadata(&file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err("not found".to_owned()),
        _ => crate::files::read_regular(&file, "a source file")
            .map(|text| crate::text::excerpt(&text[opening(&text)..], MAX_FILE_CHARS)),
    };
    Source {
        path: path.to_owned(),
        text,
    }
}

/// The demo's block that `from` opens: from its first line to the line
/// that closes it at its indentation, or before the next line there
/// (Python's blocks have no closing line).
fn excerpt(root: &Path, demo: &Excerpt) -> Source {
    let mut source = read_one(root, &demo.file);
    source.text = source.text.and_then(|text| {
        let lines: Vec<&str> = text.lines().collect();
        let at = (lines.iter().position(|l| l.contains(&demo.from)))
            .ok_or_else(|| format!("no line holds {:?} (code.demo.from)", demo.from))?;
        let indent = |line: &str| line.len() - line.trim_start().len();
        let inside =
            |line: &&&str| matches!(line.trim(), "" | "{") || indent(line) > indent(lines[at]);
        let end = at + 1 + lines[at + 1..].iter().take_while(inside).count();
        let closing = (lines.get(end)).is_some_and(|l| l.trim().starts_with(['}', ')', ']']));
        let end = end + usize::from(closing);
        Ok(lines[at..end].join("\n").trim_end().to_owned())
    });
    source
}

/// How many bytes open `text` before its first declaration: the package,
/// namespace and import lines (`<?php` and `declare` too), with the
/// comments and blank lines among and after them; the panel leaves them out.
fn opening(text: &str) -> usize {
    const OPENING: [&str; 7] = [
        "<?php",
        "declare",
        "namespace",
        "package",
        "import",
        "use",
        "from",
    ];
    let (mut at, mut end, mut block) = (0, 0, false);
    for line in text.split_inclusive('\n') {
        let code = line.trim();
        at += line.len();
        if block || OPENING.contains(&code.split([' ', '(']).next().unwrap_or_default()) {
            // `import (`, `use a::{`: the lines up to the closing one.
            block = (block || code.ends_with(['(', '{'])) && !code.starts_with([')', '}']);
            end = at;
        } else if !code.is_empty() && !code.starts_with(['/', '*']) {
            break;
        } else if code.is_empty() && end == at - line.len() {
            end = at;
        }
    }
    end
}

/// The first bullet of SPEC.md's "Language notes" section that names
/// `language` in bold (`- **PHP**: ...`), its Markdown on one line.
fn note(spec: &str, language: &str) -> String {
    let section = (spec.split("\n## ")).find(|s| s.starts_with("Language notes"));
    let mut bullets = section.unwrap_or_default().split("\n- ").skip(1);
    let named = |bullet: &&str| {
        let name = bullet.strip_prefix("**").and_then(|b| b.split("**").next());
        name.is_some_and(|name| name.eq_ignore_ascii_case(language))
    };
    let bullet = bullets.find(named).unwrap_or_default();
    let lines = bullet.lines().take_while(|l| !l.trim().is_empty());
    lines.map(str::trim).collect::<Vec<_>>().join(" ")
}
