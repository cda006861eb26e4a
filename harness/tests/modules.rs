//! The harness keeps the shape its rebuild gave it: a module per job, no
//! import cycle between the top-level modules of `harness/src` nor between
//! the files of one module (`super::` paths counted). How long and how
//! tangled a function may be is clippy's (`too_many_lines`,
//! `cognitive_complexity`: Cargo.toml and clippy.toml).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod common;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// `text` without comments and without each item marked `#[cfg(test)]`,
/// read as rustfmt lays it out: the item ends on the first line at the
/// attribute's indent that ends in `;`, `,` or `}`, or before a line
/// indented less. Only that item is left out: a test item in the middle
/// of a file hides no import below it. String
/// literals are read as code: none in `harness/src` holds a module path.
fn production_code(text: &str) -> String {
    let mut code = String::new();
    let mut test_item: Option<usize> = None;
    for line in text.lines() {
        let line = if line.trim_start().starts_with("//") {
            ""
        } else {
            line.split(" //").next().unwrap()
        };
        let indent = line.len() - line.trim_start().len();
        let line = line.trim();
        if test_item.is_some_and(|at| indent < at) && !line.is_empty() {
            test_item = None;
        }
        if test_item.is_none() && line.starts_with("#[cfg(test)]") {
            test_item = Some(indent);
        }
        match test_item {
            Some(at) if indent == at && line.ends_with([';', ',', '}']) => test_item = None,
            Some(_) => {}
            None => code.extend([line, "\n"]),
        }
    }
    code
}

/// The `.rs` files below `dir`, test files (`tests.rs`, `tests/`) left
/// out, by their paths relative to `dir`, each with its production code.
fn sources(dir: &Path) -> BTreeMap<PathBuf, String> {
    let (mut sources, mut paths) = (BTreeMap::new(), vec![dir.to_path_buf()]);
    while let Some(path) = paths.pop() {
        let relative = path.strip_prefix(dir).unwrap().to_owned();
        let test = relative.iter().any(|c| c == "tests" || c == "tests.rs");
        if path.is_dir() {
            paths.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if !test && path.extension().is_some_and(|e| e == "rs") {
            let code = production_code(&std::fs::read_to_string(&path).unwrap());
            sources.insert(relative, code);
        }
    }
    sources
}

/// The modules declared in `dir` (`x.rs` or `x/`, its files at any depth
/// counted), each with its production code; `lib.rs`, `mod.rs` and `bin/`
/// left out.
fn modules(dir: &Path) -> BTreeMap<String, String> {
    let mut modules = BTreeMap::<String, String>::new();
    for (path, code) in sources(dir) {
        let first = path.iter().next().unwrap().to_string_lossy();
        let name = first.trim_end_matches(".rs");
        if !["lib", "mod", "bin"].contains(&name) {
            modules.entry(name.to_owned()).or_default().push_str(&code);
        }
    }
    modules
}

/// The first path segment of each item that `text` (just after a `::`)
/// names: `a::b` gives `a`, `{a, b::c, D}` gives `a`, `b` and `D`.
fn named(text: &str) -> Vec<String> {
    let ident = |t: &str| {
        let (t, end) = (t.trim_start(), |c: char| !c.is_alphanumeric() && c != '_');
        t.split(end).next().unwrap().to_owned()
    };
    let Some(list) = text.strip_prefix('{') else {
        return vec![ident(text)];
    };
    // An item starts the list or follows one of its own commas.
    let (mut items, mut depth) = (vec![ident(list)], 0);
    for (at, c) in list.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => items.push(ident(&list[at + 1..])),
            _ => {}
        }
    }
    items.retain(|item| !item.is_empty());
    items
}

/// Each module to the others that its code names right after one of
/// `prefixes`.
fn graph(modules: &BTreeMap<String, String>, prefixes: &[&str]) -> Graph {
    let names = |(module, code): (&String, &String)| {
        let deps = prefixes
            .iter()
            .flat_map(|p| code.match_indices(p).map(|(at, _)| &code[at + p.len()..]))
            .flat_map(named)
            .filter(|name| name != module && modules.contains_key(name))
            .collect();
        (module.clone(), deps)
    };
    modules.iter().map(names).collect()
}

/// A path through `graph` that comes back to where it started, if any.
fn cycle(graph: &Graph) -> Option<String> {
    // A module that imports none of those left is on no cycle.
    let mut left: BTreeSet<&str> = graph.keys().map(String::as_str).collect();
    let leaf = |left: &BTreeSet<&str>, m: &str| graph[m].iter().all(|d| !left.contains(d.as_str()));
    while let Some(m) = left.iter().copied().find(|m| leaf(&left, m)) {
        left.remove(m);
    }
    // Each module left imports one left: a walk from any comes back.
    let mut path = vec![*left.first()?];
    loop {
        let on_cycle = |d: &&String| left.contains(d.as_str());
        let next = graph[*path.last()?].iter().find(on_cycle)?;
        let seen = path.iter().position(|m| m == next);
        path.push(next);
        if let Some(at) = seen {
            return Some(path[at..].join(" -> "));
        }
    }
}

/// The top-level modules, counting `crate::` paths; then the same rule one
/// level down: the files of one module (`report/html.rs`,
/// `report/picture.rs`, ...), counting `super::` paths, which the
/// top-level graph cannot see. A parent (`mod.rs`) is left out: it
/// declares its children, and they may use what it defines.
#[test]
fn modules_import_each_other_without_a_cycle() {
    let src = parity::repo_root().join("harness/src");
    let top = graph(&modules(&src), &["crate::"]);
    assert!(top.len() >= 10, "{top:?}");
    assert!(top["judge"].contains("files"), "a path in code counts");
    assert_eq!(cycle(&top), None, "import cycle");
    let folders: Vec<&String> = top.keys().filter(|m| src.join(m).is_dir()).collect();
    assert!(folders.len() >= 5, "{folders:?}");
    for module in folders {
        let prefixes = ["super::", &format!("crate::{module}::")];
        let graph = graph(&modules(&src.join(module)), &prefixes);
        if module == "report" {
            assert!(graph["run"].contains("trial"), "report's files: {graph:?}");
        }
        assert_eq!(cycle(&graph), None, "import cycle in {module}/");
    }
}

/// A test item (here in the middle of the file) hides only itself: the
/// check once read each file only up to its first `#[cfg(test)]`, so a
/// cycle through code below one passed. Of a braced import, only each
/// item's first segment is a module here (`c` in `b::{c, B}` is not). The
/// made-up files, the graph and the cycle are `modules.json`'s.
#[test]
fn the_cycle_check_reads_past_a_test_item() {
    let files: BTreeMap<String, Vec<String>> = common::fixture("modules.json", "files");
    let code = |lines: Vec<String>| production_code(&(lines.join("\n") + "\n"));
    let modules = files
        .into_iter()
        .map(|(name, lines)| (name, code(lines)))
        .collect();
    let graph = graph(&modules, &["super::"]);
    assert_eq!(graph, common::fixture::<Graph>("modules.json", "graph"));
    let named: String = common::fixture("modules.json", "cycle");
    assert_eq!(cycle(&graph), Some(named));
}

/// The harness sources (of `src/`, relative) whose code names a field of
/// the outcome (`$defs/outcome` in `cases/schema.json`): a field read or
/// set (`x.sent`, `sent: ...`) or a key (`"sent"`), comments and
/// `#[cfg(test)]` items aside.
fn naming_outcome_fields(src: &Path) -> BTreeMap<String, String> {
    let schema: serde_json::Value = common::read_json(&src.join("../../cases/schema.json"));
    let fields = schema["$defs"]["outcome"]["properties"].as_object();
    let names = Vec::from_iter(fields.unwrap().keys().map(|f| regex::escape(f)));
    let names = names.join("|");
    let pattern = format!(r#"[\w)\]]\.({names})\b|\b({names})\s*:[^:]|"({names})""#);
    let naming = regex::Regex::new(&pattern).unwrap();
    let named = sources(src).into_iter().filter_map(|(path, code)| {
        let found = naming.find(&code)?.as_str().to_owned();
        Some((path.display().to_string(), found))
    });
    named.collect()
}

/// A new field touches only the harness files harness/README.md's "Adding
/// a case field" lists: no other names a field of the outcome (issue 39:
/// the protocol, the comparison, the answers' verdicts, REPEAT and the
/// fake runner read whatever fields the schema has).
#[test]
fn only_the_files_the_docs_list_name_an_outcome_field() {
    let root = parity::repo_root();
    let readme = std::fs::read_to_string(root.join("harness/README.md")).unwrap();
    let section = readme.split("\n## Adding a case field\n").nth(1).unwrap();
    let section = section.split("\n## ").next().unwrap();
    let listed = regex::Regex::new(r"`harness/src/([\w/]+\.rs)`").unwrap();
    let listed = listed.captures_iter(section);
    let listed: BTreeSet<&str> = listed.map(|c| c.get(1).unwrap().as_str()).collect();
    let named = naming_outcome_fields(&root.join("harness/src"));
    for (file, how) in &named {
        assert!(
            listed.contains(file.as_str()),
            "harness/src/{file} names a field of the outcome ({how}), and harness/README.md's \
             \"Adding a case field\" does not list it: read fields as data, or list it"
        );
    }
    let found = named.contains_key("oracle/mod.rs");
    assert!(found, "the check finds nothing: {named:?}");
    for file in [
        "protocol.rs",
        "judge/compare.rs",
        "judge/answers.rs",
        "suite/repeat.rs",
        "bin/fake-runner.rs",
    ] {
        assert!(!listed.contains(file), "{file} is listed");
    }
}
