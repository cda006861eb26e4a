//! The ports' parts read alike (SPEC.md, "The five parts"): each part's
//! files, as its language's manifest lists them (`[code]`), are read into
//! an outline, one line per documented type or method in file order, its
//! name, its parameters' names and its doc (every sentence, normalised for
//! the language's casing and markup and for Go's rule that a doc starts
//! with the name; a tag line, `@param` or `@throws`, ends the prose). Each
//! port's outline must be the reference's, line for line, once the
//! differences `parts_alike.json` lists, each with its reason, are applied; a
//! drift fails naming the language, the part and the member, and so does a
//! listed difference that no longer occurs. A member added alike
//! everywhere needs nothing here. Not a parser: one regex per language
//! finds a doc comment and the declaration it documents.

use std::fmt::Write as _;
use std::path::Path;

use parity::toolchain::manifest;
use regex::Regex;
use serde::Deserialize;

mod common;

/// A group of `parts_alike.json`: differences from the reference on
/// purpose, `languages part: the port's words => the reference's` (`*`:
/// every port, or every part), in outline words, and why.
#[derive(Deserialize)]
struct OnPurpose {
    entries: Vec<String>,
}

/// Every difference on purpose, each listed once.
fn on_purpose() -> Vec<String> {
    let groups = common::fixture::<Vec<OnPurpose>>("parts_alike.json", "differences");
    groups.into_iter().flat_map(|group| group.entries).collect()
}

/// A doc comment and the type or method it documents, per language:
/// captures `doc` and `type`, or `method` and its `params`.
fn pattern(language: &str) -> Regex {
    let block = r"/\*\*(?<doc>(?:[^*]|\*[^/])*)\*/\s*";
    // A default may call a constructor: `partition: Partition = Partition()`.
    let params = r"\((?<params>(?:[^()]|\([^()]*\))*)\)";
    Regex::new(&match language {
        "rust" => format!(r"(?m)(?<doc>(?:^[ \t]*///.*\n)+)(?:^[ \t]*#\[.*\n)*^[ \t]*(?:pub )?(?:(?:struct|enum|trait|type) (?<type>\w+)|fn (?<method>\w+){params})"),
        "go" => format!(r"(?m)(?<doc>(?:^\t?//.*\n)+)(?:^(?:type|var) (?<type>\w+)|^(?:func (?:\([^)]*\) )?|\t)(?<method>\w+){params})"),
        "python" => format!(r#"(?ms)^[ \t]*(?:class (?<type>\w+)|def (?<method>\w+){params})[^\n]*\n[ \t]*"""(?<doc>.*?)""""#),
        "php" => format!(r"{block}(?:(?:final|readonly|abstract|public|private|static)\s+)*(?:(?:class|interface|enum)\s+(?<type>\w+)|function\s+(?<method>\w+){params})"),
        "typescript" => format!(r"{block}(?:export\s+)?(?:(?:class|interface|enum)\s+(?<type>\w+)|(?:(?:get|static)\s+)?(?<method>\w+){params})"),
        "java" => format!(r"{block}(?:@\w+\s+)*(?:(?:public|private|static|final)\s+)*(?:(?:class|interface|enum|record)\s+(?<type>\w+)|(?<ret>[\w<>\[\], ]+?)\s(?<method>\w+){params})"),
        other => panic!("no doc pattern for {other}: add one here"),
    })
    .expect("the pattern compiles")
}

/// Lower case, no `_`: `run_once`, `RunOnce` and `runOnce` alike.
fn key(name: &str) -> String {
    name.to_lowercase().replace('_', "")
}

/// A doc's prose up to its first tag line, without comment markers, markup
/// or casing.
fn prose(language: &str, name: &str, doc: &str) -> String {
    let lines = doc.lines().map(str::trim);
    let lines = lines.map(|l| l.trim_start_matches(['/', '*']).trim());
    let tag = |l: &&str| l.starts_with('@') || l.starts_with("# ");
    let mut text = Vec::from_iter(lines.take_while(|l| !tag(l))).join(" ");
    if language == "go" {
        // A Go doc starts with the name, then often a verb the others drop.
        let go = format!("^{name} (?:is |holds |means |returns |reports |makes )?");
        let go = Regex::new(&go).expect("a name is a word");
        text = go.replace(&text, "").into_owned();
    }
    // A link to a type, [`OutOfOrder`] or [OutOfOrder], is its name.
    let link = Regex::new(r"\[(`?[A-Z][\w:]*`?)\]").unwrap();
    let text = link.replace_all(&text, "$1");
    let markup = Regex::new(r"\{@code |\{@link |[}`$_]|\(\)|self\.|this\.").unwrap();
    let words = markup.replace_all(&text.to_lowercase(), "").into_owned();
    // A member of a type: Rust's `Fetch::Heads`, Java's `Fetch#HEADS`.
    let member = Regex::new(r"(\w)(?:::|#)(\w)").unwrap();
    let words = member.replace_all(&words, "$1.$2");
    words.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A parameter list's names, normalised, `self` aside: the word before
/// `:` (Rust, Python, TypeScript), after `$` (PHP), first (Go) or last
/// (Java); generic arguments, whose commas are no separators, left out.
fn parameters(language: &str, list: &str) -> String {
    let generic = Regex::new(r"<[^<>]*>|\[[^\[\]]*\]").unwrap();
    let mut list = list.to_owned();
    while let Some(generics) = generic.find(&list) {
        list.replace_range(generics.range(), "");
    }
    let name = Regex::new(match language {
        "php" => r"\$(\w+)",
        "go" => r"^\s*(\w+)",
        "java" => r"(\w+)\s*$",
        _ => r"(\w+)\s*\??[:=]",
    });
    let name = name.expect("the pattern compiles");
    let named = |p: &str| Some(key(&name.captures(p)?[1]));
    Vec::from_iter(list.split(',').filter_map(named)).join(", ")
}

/// A part's outline: its documented types and methods in file order, one
/// line each, `name: prose` or `name(parameters): prose`, a constructor
/// named `new`.
fn outline(language: &str, texts: &[String]) -> String {
    let (pattern, mut outline) = (pattern(language), String::new());
    for hit in texts.iter().flat_map(|text| pattern.captures_iter(text)) {
        let name = hit.name("type").or(hit.name("method")).unwrap().as_str();
        // Java's has no return type, so the pattern takes `public` for one.
        let constructor = matches!(name, "new" | "__init__" | "__construct" | "constructor")
            || name.starts_with("New")
            || hit.name("ret").is_some_and(|r| r.as_str() == "public");
        let key = key(if constructor { "new" } else { name });
        let params = hit.name("params").map(|p| parameters(language, p.as_str()));
        let params = params.map(|p| format!("({p})")).unwrap_or_default();
        let doc = prose(language, name, &hit["doc"]);
        let _ = writeln!(outline, "{key}{params}: {doc}");
    }
    outline
}

/// Every drift of every port from the reference, one line each, with the
/// files' texts as `read` gives them.
fn drifts(root: &Path, read: impl Fn(&str) -> String) -> Vec<String> {
    let manifests = manifest::read_all(root).expect("the manifests are valid");
    let reference = manifests.iter().find(|m| m.reference).expect("a reference");
    let on_purpose = on_purpose();
    let (mut problems, mut used) = (Vec::new(), vec![false; on_purpose.len()]);
    for port in manifests.iter().filter(|m| !m.reference) {
        let language = port.name.as_str();
        for part in manifest::Code::PARTS {
            let texts = |files: &[String]| files.iter().map(|f| read(f)).collect::<Vec<_>>();
            let mut want = outline("rust", &texts(reference.code.files(part)));
            let mut got = outline(language, &texts(port.code.files(part)));
            for (at, difference) in on_purpose.iter().enumerate() {
                let (whom, words) = difference.split_once(": ").expect("`: ` in every entry");
                let (languages, on) = whom.split_once(' ').expect("languages, then the part");
                let (theirs, ours) = words.split_once("=>").expect("`=>` in every entry");
                let (theirs, ours) = (theirs.trim(), ours.trim());
                let ours_too = (languages.split(',')).any(|l| l == "*" || l == language);
                let (text, from, to) = match theirs.is_empty() {
                    true => (&mut want, ours, ""),
                    false => (&mut got, theirs, ours),
                };
                if ours_too && (on == "*" || on == part) && text.contains(from) {
                    used[at] = true;
                    *text = text.replace(from, to);
                }
            }
            let words = |l: &str| l.split_whitespace().collect::<Vec<_>>().join(" ");
            let lines = |t: &str| Vec::from_iter(t.lines().map(words).filter(|l| !l.is_empty()));
            let (want, got) = (lines(&want), lines(&got));
            let at = (0..want.len().max(got.len())).find(|&at| want.get(at) != got.get(at));
            if let Some(at) = at {
                let [want, got] =
                    [&want, &got].map(|lines| lines.get(at).map_or("", String::as_str));
                let named = if want.is_empty() { got } else { want };
                let member = named.split([':', '(']).next().unwrap_or_default();
                problems.push(format!(
                    "{language}: {part}: {member}: says {got:?}, the reference {want:?}"
                ));
            }
        }
    }
    let stale = on_purpose.iter().zip(used).filter(|(_, used)| !used);
    problems.extend(stale.map(|(listed, _)| format!("listed, but no port differs so: {listed}")));
    problems
}

fn on_disk(root: &Path) -> impl Fn(&str) -> String + '_ {
    |file| std::fs::read_to_string(root.join(file)).expect("a [code] file is readable")
}

#[test]
fn every_port_reads_like_the_reference() {
    let root = parity::repo_root();
    common::assert_none(
        &drifts(&root, on_disk(&root)),
        "the ports' parts drift from the reference's (doc sentences, parameter names, member \
         order; differences on purpose are listed, each with why, in harness/tests/parts_alike.json)",
    );
}

/// Issue 42: a later sentence drifted where only the first was read.
#[test]
fn a_later_sentence_that_drifts_is_named() {
    let root = parity::repo_root();
    let file = "runners/php/src/Broker.php";
    let planted = drifts(&root, |path| {
        let text = on_disk(&root)(path);
        if path != file {
            return text;
        }
        let planted = text.replacen("the relay must retry later", "the relay may retry", 1);
        assert!(planted != text, "{file} says the relay must retry later");
        planted
    });
    let publish = |p: &&String| p.starts_with("php: broker: publish: says ");
    assert_eq!(planted.iter().filter(publish).count(), 1, "{planted:#?}");
}

#[test]
fn go_names_and_markup_are_normalised_away() {
    let go = prose("go", "RunOnce", "// RunOnce makes one pass.\n// More.");
    assert_eq!(go, prose("rust", "run_once", "/// One pass. More."));
    let java = "* With {@link OutOfOrder} as `x[n]`.\n * @throws";
    let rust = "/// With [`OutOfOrder`] as `x[n]`.";
    assert_eq!(prose("java", "add", java), prose("rust", "add", rust));
    let java = parameters("java", "Map<Long, Failure> failures, long id");
    assert_eq!(java, "failures, id");
    let typescript = parameters("typescript", "private readonly batch_size: number");
    assert_eq!(typescript, "batchsize");
}
