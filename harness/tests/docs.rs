//! The repository stands alone: every relative link in its Markdown leads
//! to a file (and heading) inside it, and no tracked text file refers to a
//! path outside it. A clone is all a reader has; a link into the author's
//! machine, or into a folder beside the repository, is a dead end there.
//! And each README's map of the tree (its Layout section) names only
//! paths that exist, and leaves out no entry of the folders it covers.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};

use pulldown_cmark::{Event, LinkType, Parser, Tag, TagEnd};
use regex::Regex;
use serde::Deserialize;

mod common;

use common::assert_none;

/// The repository's root (the workspace is at the top), and the paths of
/// the files git tracks that exist in the work tree, relative to it and
/// `/`-separated.
fn tracked() -> (PathBuf, Vec<String>) {
    let root = parity::repo_root().canonicalize();
    let root = root.expect("the repository root");
    let listed = duct::cmd!("git", "ls-files", "-z").dir(&root).read();
    let listed = listed.expect("these tests need git: `git ls-files` in the repository");
    let present = |p: &&str| !p.is_empty() && root.join(p).is_file();
    let files = Vec::from_iter(listed.split('\0').filter(present).map(str::to_owned));
    (root, files)
}

/// The text of a tracked file, or None for a binary one.
fn text(root: &Path, path: &str) -> Option<String> {
    let bytes = std::fs::read(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    String::from_utf8(bytes).ok().filter(|t| !t.contains('\0'))
}

/// Joins `relative` onto the folder `base` (relative to the root; a
/// `relative` starting with `/` is from the root) without touching the file
/// system, `/`-separated; None when `..` climbs above the root.
fn resolve(base: &str, relative: &str) -> Option<String> {
    let (joined, mut parts) = (Path::new(base).join(relative), Vec::new());
    for part in joined.components() {
        match part {
            Component::Normal(name) => parts.push(name.to_str()?),
            Component::ParentDir => _ = parts.pop()?,
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    Some(parts.join("/"))
}

/// The folder a tracked file is in, relative to the root ("" at the top).
fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// What the checks read in a Markdown text, as CommonMark reads it, none
/// of it in code.
#[derive(Default)]
struct Markdown {
    /// Link targets with their line numbers: links, images and reference
    /// definitions; a link by reference is checked at its definition. A
    /// target that names a scheme (`https:`, `mailto:`) leaves the
    /// repository on purpose, and is left out, as is an empty one.
    links: Vec<(usize, String)>,
    /// The anchors GitHub gives the headings: the heading's text (a link's
    /// or a code span's text included) in lower case, without punctuation,
    /// spaces as hyphens, and `-1`, `-2`, ... after repeats.
    anchors: BTreeSet<String>,
    /// The first code block under the heading `Layout`: its first line's
    /// number, and its text.
    layout: (usize, String),
}

/// One pass of the parser over `markdown`.
fn read(markdown: &str) -> Markdown {
    let line = |offset: usize| markdown[..offset].matches('\n').count() + 1;
    let (parser, mut read) = (Parser::new(markdown), Markdown::default());
    for (_, definition) in parser.reference_definitions().iter() {
        let at = line(definition.span.start);
        read.links.push((at, definition.dest.to_string()));
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    // What GitHub drops from a heading's anchor: all but letters, digits,
    // `_` (and marks, connectors), spaces and hyphens.
    let punctuation = Regex::new(r"[^\w\- ]").unwrap();
    let (mut title, mut section, mut in_layout) = (None::<String>, String::new(), false);
    for (event, at) in parser.into_offset_iter() {
        match event {
            // A link by reference is read at its definition.
            Event::Start(Tag::Link { link_type, .. } | Tag::Image { link_type, .. })
                if !matches!(link_type, LinkType::Inline | LinkType::Autolink) => {}
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                read.links.push((line(at.start), dest_url.to_string()));
            }
            Event::Start(Tag::Heading { .. }) => title = Some(String::new()),
            Event::Text(text) | Event::Code(text) if title.is_some() => {
                title.iter_mut().for_each(|t| t.push_str(&text));
            }
            Event::End(TagEnd::Heading(_)) => {
                section = title.take().unwrap_or_default().trim().to_owned();
                let lower = section.to_lowercase();
                let slug = punctuation.replace_all(&lower, "").replace(' ', "-");
                let count = seen.entry(slug.clone()).or_insert(0);
                let repeat = (*count > 0).then(|| format!("-{count}"));
                read.anchors.insert(slug + &repeat.unwrap_or_default());
                *count += 1;
            }
            // The section's first block only.
            Event::Start(Tag::CodeBlock(_)) => {
                in_layout = section == "Layout" && read.layout.1.is_empty();
            }
            Event::Text(text) if in_layout => {
                if read.layout.1.is_empty() {
                    read.layout.0 = line(at.start);
                }
                read.layout.1.push_str(&text);
            }
            Event::End(TagEnd::CodeBlock) => in_layout = false,
            _ => {}
        }
    }
    let scheme = Regex::new(r"^[A-Za-z0-9+.-]+:").unwrap();
    read.links
        .retain(|(_, target)| !target.is_empty() && !scheme.is_match(target));
    read.links.sort_by_key(|(line, _)| *line);
    read
}

/// Every broken relative link in the tracked Markdown, one line each.
fn broken_links(root: &Path, files: &[String]) -> Vec<String> {
    let (mut problems, mut docs) = (Vec::new(), BTreeMap::new());
    for path in files.iter().filter(|p| p.ends_with(".md")) {
        match text(root, path) {
            Some(markdown) => drop(docs.insert(path.as_str(), read(&markdown))),
            None => problems.push(format!("{path}: not UTF-8 text")),
        }
    }
    // What is wrong with a link from `path` to `target`, said after it.
    let wrong = |path: &str, target: &str| -> Option<String> {
        let (file, fragment) = target.split_once('#').unwrap_or((target, ""));
        let base = if file.is_empty() { path } else { folder(path) };
        let Some(resolved) = resolve(base, file) else {
            return Some(" points outside the repository".into());
        };
        // A file, or a folder (the root included).
        if !files.iter().any(|f| Path::new(f).starts_with(&resolved)) {
            return Some(format!(": no tracked file `{resolved}` in the repository"));
        }
        let anchors = &docs.get(resolved.as_str())?.anchors;
        let found = fragment.is_empty() || anchors.contains(&fragment.to_lowercase());
        (!found).then(|| format!(": `{resolved}` has no heading with the anchor #{fragment}"))
    };
    for (path, doc) in &docs {
        for (line, target) in &doc.links {
            let said = wrong(path, target).map(|why| format!("{path}:{line}: `{target}`{why}"));
            problems.extend(said);
        }
    }
    problems
}

/// Every reference to a path outside the repository in a tracked text
/// file, one line each: the folder beside the repository the material came
/// from, a relative path that climbs above the root from the file's own
/// folder, and an absolute path into the folder the checkout sits in.
fn outside_references(root: &Path, files: &[String]) -> Vec<String> {
    // Built from parts, so that this file does not name it itself.
    let shared = ["..", "shared"].join("/");
    let mut outside = vec![(shared.clone(), "outside the repository")];
    let beside = root.parent();
    let beside = beside.filter(|p| p.parent().is_some() && *p != std::env::temp_dir());
    outside.extend(beside.map(|p| (format!("{}/", p.display()), "the folder the checkout is in")));
    // `.../<language>` is an ellipsis, not a path; after a `/` the `../` is
    // part of a longer path, seen from its start or joined onto another
    // base (`__DIR__ . '/../x'`).
    let climb = Regex::new(r"(?:^|[^./])(\.\./[A-Za-z0-9._/-]*)").unwrap();
    // Lockfiles list other people's names and hashes, not ours.
    let lockfile = Regex::new(r"(\.lock|package-lock\.json|pnpm-lock\.yaml|go\.sum)$").unwrap();
    let mut problems = Vec::new();
    for path in files.iter().filter(|p| !lockfile.is_match(p)) {
        let Some(content) = text(root, path) else {
            continue;
        };
        let from = match folder(path) {
            "" => "the root".to_owned(),
            dir => format!("`{dir}/`"),
        };
        for (index, line) in content.lines().enumerate() {
            let at = format!("{path}:{}", index + 1);
            for (named, what) in outside.iter().filter(|(n, _)| line.contains(n.as_str())) {
                problems.push(format!("{at}: refers to `{named}`, {what}"));
            }
            for token in climb.captures_iter(line) {
                // A path at the end of a sentence.
                let token = token[1].trim_end_matches('.');
                if resolve(folder(path), token).is_none() && !token.starts_with(&shared) {
                    let climbs =
                        format!("{at}: `{token}` climbs out of the repository from {from}");
                    problems.push(climbs);
                }
            }
        }
    }
    problems.dedup();
    problems
}

#[test]
fn every_relative_markdown_link_resolves_inside_the_repository() {
    let (root, files) = tracked();
    for readme in ["README.md", "harness/README.md"] {
        assert!(files.iter().any(|f| f == readme), "{readme} is not tracked");
    }
    let broken = broken_links(&root, &files);
    assert_none(&broken, "broken links in the repository's Markdown");
}

#[test]
fn no_tracked_file_refers_to_a_path_outside_the_repository() {
    let (root, files) = tracked();
    let problems = outside_references(&root, &files);
    let outside = "paths outside the repository (a clone does not have them)";
    assert_none(&problems, outside);
}

/// A made-up Markdown text of `docs.json`, as a list of its lines, and
/// what [`read`] must find in it.
#[derive(Deserialize)]
struct Reading {
    markdown: Vec<String>,
    links: Vec<(usize, String)>,
    anchors: BTreeSet<String>,
}

/// The checks read Markdown as GitHub does: links outside code (one with a
/// scheme, or empty, is none of theirs), anchors of headings (the
/// `readings` of `docs.json`); and paths resolve without leaving the root.
#[test]
fn links_and_anchors_are_read_as_github_reads_them() {
    let readings: Vec<Reading> = common::fixture("docs.json", "readings");
    for reading in readings {
        let read = read(&(reading.markdown.join("\n") + "\n"));
        let found = (read.links, read.anchors);
        let expected = (reading.links, reading.anchors);
        assert_eq!(found, expected, "{:#?}", reading.markdown);
    }
    let php = resolve("runners/php", "../demo.json");
    assert_eq!(php.as_deref(), Some("runners/demo.json"));
    assert_eq!(resolve("", "./SPEC.md").as_deref(), Some("SPEC.md"));
    assert_eq!(resolve("a/b", "/SPEC.md").as_deref(), Some("SPEC.md"));
    assert_eq!(resolve("", "../x"), None);
}

/// The paths the fenced block under `## Layout` names, with their line
/// numbers: the first column of each line (several paths comma-separated;
/// it ends at two spaces). A line at column 0 names paths from the root;
/// one indented two spaces names paths in the folder of the last column-0
/// line; deeper lines continue a description and name nothing. A folder
/// ends in `/`; `*` stands for one path segment or part of one.
fn layout(markdown: &str) -> Vec<(usize, String)> {
    let (first, block) = read(markdown).layout;
    let (mut paths, mut parent) = (Vec::new(), String::new());
    for (index, line) in block.lines().enumerate() {
        let indent = line.len() - line.trim_start().len();
        if line.trim().is_empty() || indent > 2 {
            continue;
        }
        let names = line.trim().split_once("  ").map_or(line.trim(), |(n, _)| n);
        let base = if indent == 0 { "" } else { parent.as_str() };
        let named = Vec::from_iter(names.split(',').map(|n| format!("{base}{}", n.trim())));
        if indent == 0 {
            parent = named[0].clone();
        }
        paths.extend(named.into_iter().map(|p| (first + index, p)));
    }
    paths
}

/// What a layout path names: itself (`*` standing for any text within one
/// segment), or, when it ends in `/`, every path in that folder.
fn pattern(path: &str) -> Regex {
    let glob = regex::escape(path).replace(r"\*", "[^/]*");
    let tail = if path.ends_with('/') { ".+" } else { "" };
    Regex::new(&format!("^{glob}{tail}$")).unwrap()
}

/// Which folders (ending in `/`; "" the root) a layout must cover: every
/// entry of each (a file, or a folder ending in `/`) must be a path the
/// layout names, or hold one. At the root, only the folders count.
const COVERED: &[(&str, &[&str])] = &[
    ("README.md", &[""]),
    ("harness/README.md", &["harness/src/", "runners/"]),
];

/// What is wrong with the layout `paths` of `readme` read against the
/// tracked `files`: a path that is not in the tree, and an entry of a
/// `covered` folder that no path names (as deep as the entry: a folder's
/// own line names none of its entries).
fn layout_problems(
    readme: &str,
    paths: &[(usize, String)],
    covered: &[&str],
    files: &[String],
) -> Vec<String> {
    let paths = Vec::from_iter(paths.iter().map(|(l, p)| (*l, p.as_str(), pattern(p))));
    let mut problems = Vec::new();
    for (line, path, names) in &paths {
        if !files.iter().any(|f| names.is_match(f)) {
            problems.push(format!("{readme}:{line}: `{path}` is not in the tree"));
        }
    }
    let depth = |path: &str| path.trim_end_matches('/').split('/').count();
    let mut entries = BTreeSet::new();
    for folder in covered {
        let entry = Regex::new(&format!("^{}[^/]+/?", regex::escape(folder))).unwrap();
        let found = files.iter().filter_map(|f| Some(entry.find(f)?.as_str()));
        entries.extend(found.filter(|e| !folder.is_empty() || e.ends_with('/')));
    }
    for entry in entries {
        // As deep as the entry: a folder's own line names none of its entries.
        let deep = Vec::from_iter(paths.iter().filter(|(_, p, _)| depth(p) >= depth(entry)));
        let names = |f: &String| deep.iter().any(|(_, _, names)| names.is_match(f));
        let named = files.iter().filter(|f| f.starts_with(entry)).any(names);
        if !named {
            problems.push(format!("{readme}: `{entry}` is in no line of the layout"));
        }
    }
    problems
}

#[test]
fn each_readmes_layout_is_the_tree() {
    let (root, files) = tracked();
    for (readme, covered) in COVERED {
        let markdown = std::fs::read_to_string(root.join(readme)).expect(readme);
        let paths = layout(&markdown);
        assert!(paths.len() >= 8, "{readme}'s layout section: {paths:?}");
        let problems = layout_problems(readme, &paths, covered, &files);
        let differ = format!("{readme}'s layout (## Layout) and the tree differ");
        assert_none(&problems, &differ);
    }
}

/// The `layout` of `docs.json`: a made-up README (its lines), the paths
/// its layout names, a made-up tree of `files` of which it must cover the
/// `covered` folders, the problems found, and what each of a few layout
/// paths names.
#[derive(Deserialize)]
struct MadeUpLayout {
    markdown: Vec<String>,
    paths: Vec<(usize, String)>,
    covered: Vec<String>,
    files: Vec<String>,
    problems: Vec<String>,
    patterns: Vec<(String, String, bool)>,
}

/// The layout check on a made-up README and tree: a stale path and an
/// entry of a covered folder that no path names are found (the folder's
/// own line names none of its entries); a continuation line names nothing.
#[test]
fn the_layout_check_sees_stale_and_missing_lines() {
    let made: MadeUpLayout = common::fixture("docs.json", "layout");
    let paths = layout(&(made.markdown.join("\n") + "\n"));
    assert_eq!(paths, made.paths);
    let covered = Vec::from_iter(made.covered.iter().map(String::as_str));
    let problems = layout_problems("R.md", &paths, &covered, &made.files);
    assert_eq!(problems, made.problems);
    for (path, file, named) in made.patterns {
        assert_eq!(pattern(&path).is_match(&file), named, "{path} {file}");
    }
}
