//! The harness keeps the shape its rebuild gave it: a module per job, no
//! import cycle between the top-level modules of `harness/src`, and no
//! source file long enough to hide a second job.

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
