//! The code panel: each part of the practice side by side in every
//! language, read from the source files when the page is written, so a
//! course author sees at a glance that the ports look alike.
//!
//! Which file holds which part in which language is each language's
//! manifest's `[code]` table (`runners/<language>/language.toml`); a
//! missing or unreadable file shows as such on the page.

use std::path::Path;

use crate::toolchain::manifest::{Code, Manifest};

/// The most of one file the panel shows, in characters: a file that grew
/// by accident cannot push the page past its size.
const MAX_FILE_CHARS: usize = 64 * 1024;

/// One part of the practice in every language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// E.g. `relay`.
    pub name: String,
    /// Per language, in the panel's order, the files of the part.
    pub languages: Vec<(String, Vec<Source>)>,
}

/// One source file as the panel shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Relative to the repository root, as the page prints it.
    pub path: String,
    /// The file's text, or why it could not be read (missing, not a file).
    pub text: Result<String, String>,
}

/// Every part of [`Code::PARTS`], per language in the manifests' order,
/// its files read from below `root`.
pub fn parts(manifests: &[Manifest], root: &Path) -> Vec<Part> {
    Code::PARTS
        .iter()
        .map(|name| Part {
            name: (*name).to_owned(),
            languages: manifests
                .iter()
                .map(|m| {
                    let sources = m
                        .code
                        .files(name)
                        .iter()
                        .map(|p| read_one(root, p))
                        .collect();
                    (m.name.clone(), sources)
                })
                .collect(),
        })
        .collect()
}

fn read_one(root: &Path, path: &str) -> Source {
    let file = root.join(path);
    // A manifest names it, so it is opened only if it is a regular file.
    let text = match std::fs::metadata(&file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err("not found".to_owned()),
        _ => crate::files::read_regular(&file, "a source file")
            .map(|text| crate::text::excerpt(&text, MAX_FILE_CHARS)),
    };
    Source {
        path: path.to_owned(),
        text,
    }
}
