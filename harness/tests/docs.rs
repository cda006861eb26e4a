//! The repository stands alone: every relative link in its Markdown leads
//! to a file (and heading) inside it, and no tracked text file refers to a
//! path outside it. A clone is all a reader has; a link into the author's
//! machine, or into a folder beside the repository, is a dead end there.
//! And each README's map of the tree (its Layout section) names only
//! paths that exist, and leaves out no folder it must cover.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use common::assert_none;

/// The repository's root (the workspace is at the top).
fn root() -> PathBuf {
    parity::repo_root()
        .canonicalize()
        .expect("the repository root")
}

/// Paths of the files git tracks, relative to the root, `/`-separated, that
/// exist in the work tree.
fn tracked(root: &Path) -> Vec<String> {
    let output = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root)
        .output()
        .expect("these tests need git: cannot run `git ls-files`");
    assert!(
        output.status.success(),
        "`git ls-files` failed (is this a git checkout?):\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("tracked paths are UTF-8")
        .split('\0')
        .filter(|p| !p.is_empty() && root.join(p).is_file())
        .map(str::to_owned)
        .collect()
}

/// Lockfiles list other people's names and hashes, not ours: not checked.
fn is_lockfile(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.ends_with(".lock") || matches!(name, "package-lock.json" | "pnpm-lock.yaml" | "go.sum")
}

/// The text of a tracked file, or None for a binary one.
fn text(root: &Path, path: &str) -> Option<String> {
    let bytes = std::fs::read(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    if bytes.contains(&0) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// Joins `relative` onto the folder `base` (both `/`-separated, relative to
/// the root) without touching the file system; None when `..` climbs above
/// the root.
fn resolve(base: &str, relative: &str) -> Option<String> {
    let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
    for part in relative.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            _ => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// The folder a tracked file is in, relative to the root ("" at the top).
fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// One line of Markdown with its code spans blanked out, so that brackets
/// in code are not read as links.
fn without_code_spans(line: &str) -> String {
    line.split('`')
        .enumerate()
        .map(|(i, part)| if i % 2 == 0 { part } else { "" })
        .collect::<Vec<_>>()
        .join("")
}

/// Whether a line opens or closes a fenced code block.
fn is_fence(line: &str) -> bool {
    let trimmed = line.trim_start();
    line.len() - trimmed.len() <= 3 && (trimmed.starts_with("```") || trimmed.starts_with("~~~"))
}

/// The link targets of a Markdown text, with their line numbers: inline
/// links and images `[text](target "title")` and reference definitions
/// `[label]: target`. Code (fenced blocks and spans) is skipped.
fn links(markdown: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut in_fence = false;
    for (index, line) in markdown.lines().enumerate() {
        let number = index + 1;
        if is_fence(line) {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let line = without_code_spans(line);
        let trimmed = line.trim_start();
        if let Some(definition) = trimmed.strip_prefix('[') {
            if let Some((label, rest)) = definition.split_once("]:") {
                if !label.is_empty() && !label.contains(']') {
                    if let Some(target) = rest.split_whitespace().next() {
                        found.push((number, target.trim_matches(['<', '>']).to_owned()));
                    }
                    continue;
                }
            }
        }
        let mut rest = line.as_str();
        while let Some(start) = rest.find("](") {
            let after = &rest[start + 2..];
            let mut depth = 0usize;
            let end = after
                .char_indices()
                .find(|&(_, c)| match c {
                    '(' => {
                        depth += 1;
                        false
                    }
                    ')' if depth == 0 => true,
                    ')' => {
                        depth -= 1;
                        false
                    }
                    _ => false,
                })
                .map_or(after.len(), |(i, _)| i);
            let inside = after[..end].trim();
            let target = if let Some(angled) = inside.strip_prefix('<') {
                angled.split('>').next().unwrap_or("")
            } else {
                inside.split_whitespace().next().unwrap_or("")
            };
            found.push((number, target.to_owned()));
            rest = &after[end..];
        }
    }
    found
}

/// A link target that names a scheme (`https:`, `mailto:`) leaves the
/// repository on purpose.
fn is_external(target: &str) -> bool {
    let scheme_end = target.find(':');
    scheme_end.is_some_and(|end| {
        end > 0
            && target[..end]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    })
}

/// `%20` and friends, as a link may write a path.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
            if let Ok(byte) = u8::from_str_radix(hex, 16) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The anchors GitHub gives a Markdown file's headings: the text of each
/// `#` heading in lower case, without punctuation, spaces as hyphens, and
/// `-1`, `-2`, ... after repeats.
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut anchors = BTreeSet::new();
    let mut in_fence = false;
    for line in markdown.lines() {
        if is_fence(line) {
            in_fence = !in_fence;
            continue;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if in_fence || hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let title = line[hashes..].trim().trim_end_matches('#').trim();
        // A link in a heading counts with its text only.
        let mut text = String::new();
        let mut rest = title;
        while let Some(start) = rest.find("](") {
            text.push_str(&rest[..start]);
            rest = rest[start..].split_once(')').map_or("", |(_, after)| after);
        }
        text.push_str(rest);
        let slug: String = text
            .to_lowercase()
            .chars()
            .filter(|&c| c.is_alphanumeric() || c == '-' || c == '_' || c == ' ')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let count = seen.entry(slug.clone()).or_insert(0);
        let anchor = if *count == 0 {
            slug.clone()
        } else {
            format!("{slug}-{count}")
        };
        *count += 1;
        anchors.insert(anchor);
    }
    anchors
}

/// Every broken relative link in the tracked Markdown, one line each.
fn broken_links(root: &Path, files: &[String]) -> Vec<String> {
    let file_set: BTreeSet<&str> = files.iter().map(String::as_str).collect();
    let is_folder = |path: &str| {
        path.is_empty()
            || files
                .iter()
                .any(|f| f.strip_prefix(path).is_some_and(|r| r.starts_with('/')))
    };
    let mut problems = Vec::new();
    for path in files.iter().filter(|p| p.ends_with(".md")) {
        let Some(markdown) = text(root, path) else {
            problems.push(format!("{path}: not UTF-8 text"));
            continue;
        };
        for (line, target) in links(&markdown) {
            if target.is_empty() || is_external(&target) {
                continue;
            }
            let (target_path, fragment) = match target.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (target.as_str(), None),
            };
            let target_path = percent_decode(target_path.split('?').next().unwrap_or(""));
            let resolved = if target_path.is_empty() {
                Some(path.clone())
            } else if let Some(from_root) = target_path.strip_prefix('/') {
                resolve("", from_root)
            } else {
                resolve(folder(path), &target_path)
            };
            let Some(resolved) = resolved else {
                problems.push(format!(
                    "{path}:{line}: `{target}` points outside the repository"
                ));
                continue;
            };
            if !file_set.contains(resolved.as_str()) {
                if !is_folder(&resolved) {
                    problems.push(format!(
                        "{path}:{line}: `{target}`: no tracked file `{resolved}` in the repository"
                    ));
                }
                continue;
            }
            if let Some(fragment) = fragment.filter(|f| !f.is_empty()) {
                if resolved.ends_with(".md") {
                    let known = text(root, &resolved)
                        .map(|t| anchors(&t))
                        .unwrap_or_default();
                    if !known.contains(&percent_decode(fragment).to_lowercase()) {
                        problems.push(format!(
                            "{path}:{line}: `{target}`: `{resolved}` has no heading with the anchor #{fragment}"
                        ));
                    }
                }
            }
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
    let beside = root
        .parent()
        .filter(|p| p.parent().is_some() && *p != std::env::temp_dir())
        .map(|p| format!("{}/", p.display()));
    let mut problems = Vec::new();
    for path in files.iter().filter(|p| !is_lockfile(p)) {
        let Some(content) = text(root, path) else {
            continue;
        };
        for (index, line) in content.lines().enumerate() {
            let at = format!("{path}:{}", index + 1);
            if line.contains(&shared) {
                problems.push(format!(
                    "{at}: refers to `{shared}`, outside the repository"
                ));
            }
            if let Some(beside) = &beside {
                if line.contains(beside.as_str()) {
                    problems.push(format!(
                        "{at}: refers to `{beside}`, the folder the checkout is in"
                    ));
                }
            }
            for (start, _) in line.match_indices("../") {
                // `.../<language>` is an ellipsis, not a path; after a `/`
                // the `../` is part of a longer path, seen from its start
                // or joined onto another base (`__DIR__ . '/../x'`).
                if line[..start].ends_with(['.', '/']) {
                    continue;
                }
                let token: String = line[start..]
                    .chars()
                    .take_while(|&c| c.is_alphanumeric() || "._-/".contains(c))
                    .collect();
                // A path at the end of a sentence.
                let token = token.trim_end_matches('.');
                if resolve(folder(path), token).is_none() && !token.starts_with(&shared) {
                    let from = match folder(path) {
                        "" => "the root".to_owned(),
                        dir => format!("`{dir}/`"),
                    };
                    problems.push(format!(
                        "{at}: `{token}` climbs out of the repository from {from}"
                    ));
                }
            }
        }
    }
    problems.dedup();
    problems
}

#[test]
fn every_relative_markdown_link_resolves_inside_the_repository() {
    let root = root();
    let files = tracked(&root);
    for readme in ["README.md", "harness/README.md"] {
        assert!(files.iter().any(|f| f == readme), "{readme} is not tracked");
    }
    let problems = broken_links(&root, &files);
    assert_none(&problems, "broken links in the repository's Markdown");
}

#[test]
fn no_tracked_file_refers_to_a_path_outside_the_repository() {
    let root = root();
    let problems = outside_references(&root, &tracked(&root));
    let what = "paths outside the repository (a clone does not have them)";
    assert_none(&problems, what);
}

#[test]
fn links_are_read_as_markdown_reads_them() {
    let markdown = "\
See [the spec](SPEC.md#the-story \"title\") and ![x](<img a.png>).
`[not](a-link.md)` in code
```
[also not](inside-a-fence.md)
```
[ref]: cases/seed.json
[web](https://example.com) [(nested)](a_(b).md)
";
    let targets: Vec<(usize, String)> = links(markdown);
    assert_eq!(
        targets,
        vec![
            (1, "SPEC.md#the-story".to_owned()),
            (1, "img a.png".to_owned()),
            (6, "cases/seed.json".to_owned()),
            (7, "https://example.com".to_owned()),
            (7, "a_(b).md".to_owned()),
        ]
    );
    assert!(is_external("https://example.com") && is_external("mailto:a@b"));
    assert!(!is_external("SPEC.md") && !is_external("#anchor"));
}

#[test]
fn anchors_follow_github() {
    let known = anchors(
        "# Outbox relay\n## Where the practice stops (known limits)\n\
         ## The `restart_each_pass` field\n## Notes\n## Notes\n```\n# not a heading\n```\n",
    );
    let expected: BTreeSet<String> = [
        "outbox-relay",
        "where-the-practice-stops-known-limits",
        "the-restart_each_pass-field",
        "notes",
        "notes-1",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(known, expected);
}

#[test]
fn paths_resolve_without_leaving_the_root() {
    assert_eq!(
        resolve("runners/php", "../demo.json").as_deref(),
        Some("runners/demo.json")
    );
    assert_eq!(resolve("", "./SPEC.md").as_deref(), Some("SPEC.md"));
    assert_eq!(resolve("", "../x"), None);
    // Joined, so that the outside-path check does not find it in this file.
    assert_eq!(
        resolve("harness/src", &["..", "..", "..", "x"].join("/")),
        None
    );
    assert_eq!(percent_decode("a%20b.md"), "a b.md");
}

/// The paths the fenced block under `## Layout` names, with their line
/// numbers: the first column of each line (several paths comma-separated;
/// it ends at two spaces). A line at column 0 names paths from the root;
/// one indented two spaces names paths in the folder of the last column-0
/// line; deeper lines continue a description and name nothing. A folder
/// ends in `/`; `*` stands for one path segment or part of one.
fn layout(markdown: &str) -> Vec<(usize, String)> {
    let mut paths = Vec::new();
    let mut parent = String::new();
    let (mut in_section, mut in_fence) = (false, false);
    for (index, line) in markdown.lines().enumerate() {
        if line.starts_with("## ") {
            in_section = line == "## Layout";
        } else if in_section && is_fence(line) {
            in_fence = !in_fence;
        } else if in_section && in_fence && !line.trim().is_empty() {
            let indent = line.len() - line.trim_start().len();
            if indent > 2 {
                continue;
            }
            let names = line.trim().split_once("  ").map_or(line.trim(), |(n, _)| n);
            let base = if indent == 0 { "" } else { parent.as_str() };
            let named: Vec<String> = names
                .split(',')
                .map(|n| format!("{base}{}", n.trim()))
                .collect();
            if indent == 0 {
                parent = named[0].clone();
            }
            paths.extend(named.into_iter().map(|p| (index + 1, p)));
        }
    }
    paths
}

/// Whether `pattern` (segments, `*` standing for any text within one)
/// names `path`, or a folder `path` is in when the pattern ends in `/`.
fn matches(pattern: &str, path: &str) -> bool {
    let folder = pattern.ends_with('/');
    let wanted: Vec<&str> = pattern.trim_end_matches('/').split('/').collect();
    let parts: Vec<&str> = path.split('/').collect();
    let fits = |(p, s): (&&str, &&str)| match p.split_once('*') {
        Some((before, after)) => {
            s.len() >= before.len() + after.len() && s.starts_with(before) && s.ends_with(after)
        }
        None => p == s,
    };
    let enough = if folder {
        parts.len() > wanted.len()
    } else {
        parts.len() == wanted.len()
    };
    enough && wanted.iter().zip(&parts).all(fits)
}

/// How many segments a path has (`a/b/` two).
fn depth(path: &str) -> usize {
    path.trim_end_matches('/').split('/').count()
}

/// Which folders a layout must cover: every entry of each (a file, or a
/// folder ending in `/`) must be a path the layout names, or hold one.
/// At the root, only the folders count.
const COVERED: &[(&str, &[&str])] = &[
    ("README.md", &[""]),
    ("harness/README.md", &["harness/src", "runners"]),
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
    let mut problems = Vec::new();
    for (line, path) in paths {
        if !files.iter().any(|f| matches(path, f)) {
            problems.push(format!("{readme}:{line}: `{path}` is not in the tree"));
        }
    }
    let mut children = BTreeSet::new();
    for folder in covered {
        let prefix = if folder.is_empty() {
            String::new()
        } else {
            format!("{folder}/")
        };
        for rest in files.iter().filter_map(|f| f.strip_prefix(&prefix)) {
            match rest.split_once('/') {
                Some((dir, _)) => children.insert(format!("{prefix}{dir}/")),
                None if !folder.is_empty() => children.insert(format!("{prefix}{rest}")),
                None => false,
            };
        }
    }
    for child in children {
        let named = files
            .iter()
            .filter(|f| f.starts_with(&child) || **f == child)
            .any(|f| {
                paths
                    .iter()
                    .any(|(_, p)| depth(p) >= depth(&child) && matches(p, f))
            });
        if !named {
            problems.push(format!("{readme}: `{child}` is in no line of the layout"));
        }
    }
    problems
}

#[test]
fn each_readmes_layout_is_the_tree() {
    let root = root();
    let files = tracked(&root);
    for (readme, covered) in COVERED {
        let markdown = std::fs::read_to_string(root.join(readme)).expect(readme);
        let paths = layout(&markdown);
        assert!(paths.len() >= 8, "{readme}'s layout section: {paths:?}");
        let problems = layout_problems(readme, &paths, covered, &files);
        let what = format!("{readme}'s layout (## Layout) and the tree differ");
        assert_none(&problems, &what);
    }
}

/// The layout check on a made-up README and tree: a stale path and an
/// entry of a covered folder that no path names are found (the folder's
/// own line names none of its entries); a continuation line names nothing.
#[test]
fn the_layout_check_sees_stale_and_missing_lines() {
    let readme = "\
# x
## Layout

```
cases/        the table (*.json)
runners/*/language.toml   the manifests
runners/gone/   a port that left
harness/src/  the harness:
  lib.rs, table/  the modules, and on the next line
              stale.rs
.ci/          CI
```
## After
```
not/layout/  ignored
```
";
    let paths = layout(readme);
    let expected = [
        (5, "cases/"),
        (6, "runners/*/language.toml"),
        (7, "runners/gone/"),
        (8, "harness/src/"),
        (9, "harness/src/lib.rs"),
        (9, "harness/src/table/"),
        (11, ".ci/"),
    ];
    assert_eq!(
        paths,
        expected.map(|(line, path)| (line, path.to_owned())),
        "{paths:?}"
    );
    let files: Vec<String> = [
        "cases/seed.json",
        "runners/go/language.toml",
        "runners/go/main.go",
        "runners/demo.json",
        "harness/src/lib.rs",
        "harness/src/text.rs",
        "harness/src/table/json.rs",
        "harness/src/judge/mod.rs",
        "reference/src/lib.rs",
        "README.md",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(
        layout_problems("R.md", &paths, &["", "harness/src", "runners"], &files),
        [
            "R.md:7: `runners/gone/` is not in the tree",
            "R.md:11: `.ci/` is not in the tree",
            "R.md: `harness/src/judge/` is in no line of the layout",
            "R.md: `harness/src/text.rs` is in no line of the layout",
            "R.md: `reference/` is in no line of the layout",
            "R.md: `runners/demo.json` is in no line of the layout",
        ]
    );
}

#[test]
fn layout_patterns_name_files_and_folders() {
    assert!(matches(
        "runners/*/language.toml",
        "runners/go/language.toml"
    ));
    assert!(!matches(
        "runners/*/language.toml",
        "runners/go/x/language.toml"
    ));
    assert!(matches("cases/*.json", "cases/seed.json"));
    assert!(!matches("cases/*.json", "cases/model/a.json"));
    assert!(matches("cases/", "cases/model/a.json"));
    assert!(!matches("cases/", "cases"));
    assert!(!matches("case/", "cases/seed.json"));
}
