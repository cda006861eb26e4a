//! The code panel: each part of the practice side by side in every
//! language, read from the source files when the page is written, so a
//! course author sees at a glance that the ports look alike.
//!
//! [`PARTS`] is the one place that says which file holds which part in
//! which language; a missing or unreadable file shows as such on the page.

use std::path::Path;

/// The most of one file the panel shows, in characters: a file that grew
/// by accident cannot push the page past its size.
const MAX_FILE_CHARS: usize = 64 * 1024;

/// A language and the files, relative to the repository root, that hold
/// one part in it.
pub type LanguageFiles = (&'static str, &'static [&'static str]);

/// Part name, then per language the files that hold it, in the order the
/// panel shows them. PHP keeps one type per file, so its broker part is
/// the four files of what Rust's `broker.rs` holds (the `Broker`
/// interface, `Failure`, `PublishFailed`, `FlakyBroker`), and its table
/// part includes `OutOfOrder`, as Rust's `table.rs` does.
pub const PARTS: &[(&str, &[LanguageFiles])] = &[
    (
        "message",
        &[
            ("rust", &["reference/src/message.rs"]),
            ("go", &["runners/go/message.go"]),
            ("python", &["runners/python/outbox/message.py"]),
            ("php", &["runners/php/src/Message.php"]),
            ("typescript", &["runners/typescript/src/message.ts"]),
        ],
    ),
    (
        "table",
        &[
            ("rust", &["reference/src/table.rs"]),
            ("go", &["runners/go/table.go"]),
            ("python", &["runners/python/outbox/table.py"]),
            (
                "php",
                &[
                    "runners/php/src/OutboxTable.php",
                    "runners/php/src/OutOfOrder.php",
                ],
            ),
            ("typescript", &["runners/typescript/src/table.ts"]),
        ],
    ),
    (
        "broker",
        &[
            ("rust", &["reference/src/broker.rs"]),
            ("go", &["runners/go/broker.go"]),
            ("python", &["runners/python/outbox/broker.py"]),
            (
                "php",
                &[
                    "runners/php/src/Broker.php",
                    "runners/php/src/Failure.php",
                    "runners/php/src/PublishFailed.php",
                    "runners/php/src/FlakyBroker.php",
                ],
            ),
            ("typescript", &["runners/typescript/src/broker.ts"]),
        ],
    ),
    (
        "relay",
        &[
            ("rust", &["reference/src/relay.rs"]),
            ("go", &["runners/go/relay.go"]),
            ("python", &["runners/python/outbox/relay.py"]),
            ("php", &["runners/php/src/OutboxRelay.php"]),
            ("typescript", &["runners/typescript/src/relay.ts"]),
        ],
    ),
    (
        "consumer",
        &[
            ("rust", &["reference/src/consumer.rs"]),
            ("go", &["runners/go/consumer.go"]),
            ("python", &["runners/python/outbox/consumer.py"]),
            ("php", &["runners/php/src/IdempotentConsumer.php"]),
            ("typescript", &["runners/typescript/src/consumer.ts"]),
        ],
    ),
];

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

/// Every part of [`PARTS`], read from below `root`. Never fails: a file that
/// cannot be read carries the reason instead of its text.
pub fn read(root: &Path) -> Vec<Part> {
    PARTS
        .iter()
        .map(|(name, languages)| Part {
            name: (*name).to_owned(),
            languages: languages
                .iter()
                .map(|(language, paths)| {
                    let sources = paths.iter().map(|path| read_one(root, path)).collect();
                    ((*language).to_owned(), sources)
                })
                .collect(),
        })
        .collect()
}

fn read_one(root: &Path, path: &str) -> Source {
    let text = match std::fs::read(root.join(path)) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            Ok(crate::text::excerpt(&text, MAX_FILE_CHARS))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err("not found".to_owned()),
        Err(e) => Err(format!("cannot be read: {e}")),
    };
    Source {
        path: path.to_owned(),
        text,
    }
}
