//! The harness keeps the shape its rebuild gave it: a module per job, no
//! import cycle between the top-level modules of `harness/src` nor between
//! the files of one module (`super::` paths counted), and no source file
//! long enough to hide a second job.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// About 400 lines; a file past this does more than one job.
const MAX_LINES: usize = 450;

fn sources(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// Top-level module to the top-level modules its code (tests aside) names
/// as `crate::<module>`.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    sources(src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let relative = file.strip_prefix(src).unwrap();
        let first = relative
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs").to_owned();
        if module == "lib" || module == "bin" {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        let deps = graph.entry(module.clone()).or_default();
        for (at, _) in code.match_indices("crate::") {
            let name: String = code[at + 7..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name != module && name != "repo_root" {
                deps.insert(name);
            }
        }
    }
    graph
}

fn cycle_from(
    graph: &BTreeMap<String, BTreeSet<String>>,
    path: &mut Vec<String>,
) -> Option<Vec<String>> {
    let last = path.last().unwrap().clone();
    for next in graph.get(&last).into_iter().flatten() {
        if let Some(at) = path.iter().position(|m| m == next) {
            let mut cycle = path[at..].to_vec();
            cycle.push(next.clone());
            return Some(cycle);
        }
        path.push(next.clone());
        if let Some(cycle) = cycle_from(graph, path) {
            return Some(cycle);
        }
        path.pop();
    }
    None
}

#[test]
fn the_top_level_modules_import_each_other_without_a_cycle() {
    let graph = graph(&parity::repo_root().join("harness/src"));
    assert!(graph.len() >= 10, "{graph:?}");
    for module in graph.keys() {
        if let Some(cycle) = cycle_from(&graph, &mut vec![module.clone()]) {
            panic!("import cycle: {}", cycle.join(" -> "));
        }
    }
}

/// The first path segment of each item that `text` (just after a `::`)
/// names: `a::b` gives `a`, `{a, b::c, D}` gives `a`, `b` and `D`.
fn named(text: &str) -> Vec<String> {
    let ident = |t: &str| -> String {
        t.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let Some(list) = text.strip_prefix('{') else {
        return vec![ident(text)];
    };
    let mut depth = 0;
    let end = list
        .char_indices()
        .find(|&(_, c)| {
            depth += match c {
                '{' => 1,
                '}' => -1,
                _ => 0,
            };
            depth < 0
        })
        .map_or(list.len(), |(at, _)| at);
    let mut items = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (at, c) in list[..end].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(ident(&list[start..at]));
                start = at + 1;
            }
            _ => {}
        }
    }
    items.push(ident(&list[start..end]));
    items.retain(|i| !i.is_empty());
    items
}

/// For each top-level module with files of its own (`report/`, `suite/`,
/// ...): each child file to the sibling files its code (tests aside) names,
/// through `super::` or `crate::<module>::`. The parent (`mod.rs`) is left
/// out: it declares its children, and they may use what it defines.
fn sibling_graphs(src: &Path) -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let mut graphs = BTreeMap::new();
    for entry in std::fs::read_dir(src).unwrap() {
        let dir = entry.unwrap().path();
        if !dir.is_dir() || dir.ends_with("bin") {
            continue;
        }
        let top = dir.file_name().unwrap().to_string_lossy().into_owned();
        let children: BTreeMap<String, PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter_map(|path| {
                let stem = path.file_stem()?.to_string_lossy().into_owned();
                let file = if path.is_dir() {
                    path.join("mod.rs")
                } else {
                    path
                };
                let is_rust = file.extension().is_some_and(|e| e == "rs") && file.is_file();
                (is_rust && stem != "mod" && stem != "tests").then_some((stem, file))
            })
            .collect();
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (child, file) in &children {
            let text = std::fs::read_to_string(file).unwrap();
            let text = text.split("#[cfg(test)]").next().unwrap_or_default();
            // Comments name modules without importing them (doc links).
            let code: String = text
                .lines()
                .map(|line| line.split("//").next().unwrap_or_default())
                .collect::<Vec<_>>()
                .join("\n");
            let deps = graph.entry(child.clone()).or_default();
            let through = format!("crate::{top}::");
            for prefix in ["super::", through.as_str()] {
                for (at, _) in code.match_indices(prefix) {
                    for name in named(&code[at + prefix.len()..]) {
                        if &name != child && children.contains_key(&name) {
                            deps.insert(name);
                        }
                    }
                }
            }
        }
        graphs.insert(top, graph);
    }
    graphs
}

/// The same rule one level down: the files of one module (`report/html.rs`,
/// `report/picture.rs`, ...) do not import each other in a circle, counting
/// `super::` paths, which the top-level graph cannot see.
#[test]
fn the_files_of_a_module_import_each_other_without_a_cycle() {
    let graphs = sibling_graphs(&parity::repo_root().join("harness/src"));
    assert!(graphs.len() >= 5, "{graphs:?}");
    assert!(
        graphs["report"].values().any(|deps| !deps.is_empty()),
        "the report's files name each other: the parser must see it"
    );
    for (top, graph) in &graphs {
        for module in graph.keys() {
            if let Some(cycle) = cycle_from(graph, &mut vec![module.clone()]) {
                panic!("import cycle in {top}/: {}", cycle.join(" -> "));
            }
        }
    }
}

#[test]
fn a_braced_import_names_each_item() {
    assert_eq!(named("picture;"), ["picture"]);
    assert_eq!(
        named("{first_line, picture, markup::{escape, slug}, Cell};"),
        ["first_line", "picture", "markup", "Cell"]
    );
}

#[test]
fn the_cycle_check_sees_a_cycle() {
    let graph = BTreeMap::from([
        ("a".to_owned(), BTreeSet::from(["b".to_owned()])),
        ("b".to_owned(), BTreeSet::from(["a".to_owned()])),
    ]);
    assert_eq!(
        cycle_from(&graph, &mut vec!["a".to_owned()]),
        Some(vec!["a".to_owned(), "b".to_owned(), "a".to_owned()])
    );
}

#[test]
fn no_source_file_does_more_than_one_job() {
    let mut files = Vec::new();
    sources(&parity::repo_root().join("harness/src"), &mut files);
    sources(&parity::repo_root().join("runners/rust/src"), &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|file| {
            let lines = std::fs::read_to_string(file).unwrap().lines().count();
            (lines > MAX_LINES).then(|| format!("{} ({lines} lines)", file.display()))
        })
        .collect();
    assert!(long.is_empty(), "split these by job: {long:?}");
}
