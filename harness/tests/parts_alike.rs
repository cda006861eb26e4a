//! The ports' parts read alike (SPEC.md, "The four parts"): in each part's
//! files, as its language's manifest lists them (`[code]`), the documented
//! types and methods come in the reference's order, and the first sentence
//! of each doc is the reference's, normalised for the language's casing and
//! markup and for Go's rule that a doc starts with the name. A drift fails
//! naming the language, the part and the member. Not a parser: one regex per
//! language finds a doc comment and the declaration it documents.

use std::path::Path;

use parity::toolchain::manifest;
use regex::Regex;

mod common;

/// Where a port differs from the reference on purpose: language (`*`
/// for every port), part, the port's name, the reference's name, `-`
/// where one side has no such member. Names are normalised (lower case,
/// no `_`, a method's with `()`).
const EXCEPTIONS: &[[&str; 4]] = &[
    // Rust names the id's type; the ports use the language's integer.
    ["*", "message", "-", "messageid"],
    // The Rust broker owns the consumer, so it reads it back (SPEC,
    // language notes).
    ["*", "broker", "-", "consumer()"],
    // ... and the caller ticks the consumer's clock through it.
    ["*", "broker", "-", "consumermut()"],
    // Rust has no default arguments: the options are a constructor of
    // their own (SPEC, the four parts, says how each port passes them).
    ["*", "relay", "-", "withoptions()"],
    ["*", "consumer", "-", "withretention()"],
    // Go has no exceptions: a sentinel error, found with errors.Is.
    ["go", "broker", "errpublishfailed", "publishfailed"],
    // Callers write outbox.Consumer (SPEC, the four parts).
    ["go", "consumer", "consumer", "idempotentconsumer"],
    // Named and keyword arguments with defaults pass the relay's options.
    ["php", "relay", "-", "relayoptions"],
    ["python", "relay", "-", "relayoptions"],
    // An exception is no record: OutOfOrder's and PublishFailed's fields
    // are accessors.
    ["java", "table", "id()", "-"],
    ["java", "table", "lastid()", "-"],
    ["java", "broker", "failure()", "-"],
];

/// A doc comment and the type or method it documents, per language:
/// captures `doc` and `type` or `method`.
fn pattern(language: &str) -> Regex {
    let block = r"/\*\*(?<doc>(?:[^*]|\*[^/])*)\*/\s*";
    Regex::new(&match language {
        "rust" => r"(?m)(?<doc>(?:^[ \t]*///.*\n)+)(?:^[ \t]*#\[.*\n)*^[ \t]*(?:pub )?(?:(?:struct|enum|trait|type) (?<type>\w+)|fn (?<method>\w+))".to_owned(),
        "go" => r"(?m)(?<doc>(?:^\t?//.*\n)+)(?:^(?:type|var) (?<type>\w+)|^(?:func (?:\([^)]*\) )?|\t)(?<method>\w+)\()".to_owned(),
        "python" => r#"(?ms)^[ \t]*(?:class (?<type>\w+)|def (?<method>\w+))[^\n]*\n[ \t]*"""(?<doc>.*?)""""#.to_owned(),
        "php" => format!(r"{block}(?:(?:final|readonly|abstract|public|private|static)\s+)*(?:(?:class|interface|enum)\s+(?<type>\w+)|function\s+(?<method>\w+))"),
        "typescript" => format!(r"{block}(?:export\s+)?(?:(?:class|interface|enum)\s+(?<type>\w+)|(?:(?:get|static)\s+)?(?<method>\w+)\()"),
        "java" => format!(r"{block}(?:@\w+\s+)*(?:(?:public|private|static|final)\s+)*(?:(?:class|interface|enum|record)\s+(?<type>\w+)|(?<ret>[\w<>\[\], ]+?)\s(?<method>\w+)\()"),
        other => panic!("no doc pattern for {other}: add one here"),
    })
    .expect("the pattern compiles")
}

/// Lower case, no `_`: `run_once`, `RunOnce` and `runOnce` alike.
fn key(name: &str) -> String {
    name.to_lowercase().replace('_', "")
}

/// The first sentence of a doc, without comment markers, markup or casing.
fn first_sentence(language: &str, name: &str, doc: &str) -> String {
    let lines: Vec<&str> = doc
        .lines()
        .map(|l| l.trim().trim_start_matches(['/', '*']).trim())
        .collect();
    let mut text = lines.join(" ");
    if language == "go" {
        // A Go doc starts with the name, then often a verb the others drop.
        let go = Regex::new(&format!(
            "^{name} (?:is |holds |means |returns |reports |makes )?"
        ));
        text = go
            .expect("a name is a word")
            .replace(&text, "")
            .into_owned();
    }
    let end = text.find(". ").map_or(text.len(), |at| at + 1);
    let sentence = text[..end].to_lowercase();
    // A rustdoc link's target, `[`unpark`](Self::unpark)`, is markup too.
    let markup = Regex::new(r"\]\(.*?\)|\{@code |\{@link |[}`\[\]$_]|\(\)|self\.|this\.").unwrap();
    let words = markup.replace_all(&sentence, "");
    words.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A part's documented types and methods, constructors aside, in file
/// order: (normalised name, normalised first sentence).
fn members(root: &Path, language: &str, files: &[String]) -> Vec<(String, String)> {
    let pattern = pattern(language);
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(root.join(file)).expect("a [code] file is readable");
        for hit in pattern.captures_iter(&text) {
            let (name, parens) = match hit.name("type") {
                Some(name) => (name.as_str(), ""),
                None => (&hit["method"], "()"),
            };
            // Java's has no return type, so the pattern takes `public` for one.
            let constructor = matches!(name, "new" | "__init__" | "__construct" | "constructor")
                || name.starts_with("New")
                || hit.name("ret").is_some_and(|r| r.as_str() == "public");
            if !constructor {
                let sentence = first_sentence(language, name, &hit["doc"]);
                found.push((key(name) + parens, sentence));
            }
        }
    }
    found
}

/// Every drift of every port from the reference, one line each.
fn drifts(root: &Path) -> Vec<String> {
    let manifests = manifest::read_all(root).expect("the manifests are valid");
    let reference = manifests.iter().find(|m| m.reference).expect("a reference");
    let mut problems = Vec::new();
    for port in manifests.iter().filter(|m| !m.reference) {
        let language = port.name.as_str();
        for part in manifest::Code::PARTS {
            // (port's name, reference's name) of this language and part.
            let exceptions: Vec<(&str, &str)> = EXCEPTIONS
                .iter()
                .filter(|[l, p, ..]| (*l == "*" || *l == language) && *p == part)
                .map(|[_, _, port, reference]| (*port, *reference))
                .collect();
            let expected: Vec<(String, String)> = members(root, "rust", reference.code.files(part))
                .into_iter()
                .filter(|(name, _)| !exceptions.contains(&("-", name)))
                .collect();
            // The port's names as the reference's, `-` where it has none.
            // A port's name for a member the reference names otherwise.
            let rename = |name: String| match exceptions.iter().find(|e| e.0 == name) {
                Some((_, reference)) => (*reference).to_owned(),
                None => name,
            };
            let actual: Vec<(String, String)> = members(root, language, port.code.files(part))
                .into_iter()
                .map(|(name, doc)| (rename(name), doc))
                .filter(|(name, _)| name != "-")
                .collect();
            let names =
                |list: &[(String, String)]| list.iter().map(|m| m.0.clone()).collect::<Vec<_>>();
            if names(&expected) != names(&actual) {
                problems.push(format!(
                    "{language}: {part}: documented members {:?}, the reference's are {:?}",
                    names(&actual),
                    names(&expected)
                ));
                continue;
            }
            for ((name, want), (_, got)) in expected.iter().zip(&actual) {
                if want != got {
                    problems.push(format!(
                        "{language}: {part}: {name}: {got:?}, the reference's is {want:?}"
                    ));
                }
            }
        }
    }
    problems
}

#[test]
fn every_port_reads_like_the_reference() {
    let root = parity::repo_root();
    common::assert_none(
        &drifts(&root),
        "the ports' parts drift from the reference's (first doc sentences, member order; \
         exceptions are listed in harness/tests/parts_alike.rs)",
    );
}

#[test]
fn go_names_and_markup_are_normalised_away() {
    assert_eq!(
        first_sentence("go", "RunOnce", "// RunOnce makes one pass.\n// More."),
        first_sentence("rust", "run_once", "/// One pass. More.")
    );
    assert_eq!(
        first_sentence("java", "add", "* With {@link OutOfOrder}.\n * @throws"),
        first_sentence("rust", "add", "/// With [`OutOfOrder`].")
    );
}
