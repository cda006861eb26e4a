//! The repository stands alone: every relative link in its Markdown leads
//! to a file (and heading) inside it, and no tracked text file refers to a
//! path outside it. A clone is all a reader has; a link into the author's
//! machine, or into a folder beside the repository, is a dead end there.
//! And the README's map of the tree (its Layout section) is the tree.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

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
    assert!(
        files.iter().any(|f| f == "README.md"),
        "README.md is not tracked"
    );
    let problems = broken_links(&root, &files);
    assert!(
        problems.is_empty(),
        "broken links in the repository's Markdown:\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn no_tracked_file_refers_to_a_path_outside_the_repository() {
    let root = root();
    let problems = outside_references(&root, &tracked(&root));
    assert!(
        problems.is_empty(),
        "paths outside the repository (a clone does not have them):\n  {}",
        problems.join("\n  ")
    );
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

/// One line of the README's layout: a path (or several, comma-separated)
/// in the first column, what it holds after it, continued on the lines
/// indented further.
#[derive(Debug, PartialEq, Eq)]
struct Entry {
    /// The README's line number.
    line: usize,
    /// Relative to the root; a folder ends in `/`; `*` stands for one
    /// path segment or part of one.
    paths: Vec<String>,
    /// The description, continuation lines included.
    about: String,
}

/// The entries of the fenced block under `## Layout`. A line at column 0
/// names paths from the root; one indented two spaces names paths in the
/// folder of the last column-0 line; deeper lines continue a description.
/// The first column ends at two spaces.
fn layout(readme: &str) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    let mut parent = String::new();
    let mut in_section = false;
    let mut in_fence = false;
    for (index, line) in readme.lines().enumerate() {
        if line.starts_with("## ") {
            in_section = line == "## Layout";
            continue;
        }
        if in_section && is_fence(line) {
            in_fence = !in_fence;
            continue;
        }
        if !in_section || !in_fence || line.trim().is_empty() {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        if indent > 2 {
            if let Some(last) = entries.last_mut() {
                last.about.push(' ');
                last.about.push_str(line.trim());
            }
            continue;
        }
        let (names, about) = line.trim().split_once("  ").unwrap_or((line.trim(), ""));
        let base = if indent == 0 { "" } else { parent.as_str() };
        let paths: Vec<String> = names
            .split(',')
            .map(|n| format!("{base}{}", n.trim()))
            .collect();
        if indent == 0 {
            parent = paths[0].clone();
        }
        entries.push(Entry {
            line: index + 1,
            paths,
            about: about.trim().to_owned(),
        });
    }
    entries
}

/// The file names in a description: words ending in a known extension or
/// in `/`, once the punctuation around them is dropped. Names without
/// either (`cmd/runner`, `.ci/setup`) are prose to this check.
fn names_in(about: &str) -> Vec<String> {
    const EXTENSIONS: &[&str] = &[
        ".rs", ".py", ".php", ".json", ".toml", ".ts", ".txt", ".xml", ".java", ".go", ".md",
        ".yml",
    ];
    about
        .split(|c: char| c.is_whitespace() || ",;()".contains(c))
        .map(|word| word.trim_end_matches([':', '.']))
        .filter(|word| word.ends_with('/') || EXTENSIONS.iter().any(|e| word.ends_with(e)))
        .filter(|word| word.len() > 1)
        .map(str::to_owned)
        .collect()
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

/// The paths `pattern` stands for among the tracked `files`: the files it
/// names, or for a folder pattern (`x/`, `*/`) the folders, each ending in
/// `/`.
fn expand(files: &[String], pattern: &str) -> BTreeSet<String> {
    let depth = pattern.trim_end_matches('/').split('/').count();
    files
        .iter()
        .filter(|f| matches(pattern, f))
        .map(|f| match pattern.ends_with('/') {
            true => format!(
                "{}/",
                f.split('/').take(depth).collect::<Vec<_>>().join("/")
            ),
            false => f.clone(),
        })
        .collect()
}

/// The paths a name in the description of an entry in `folder` stands
/// for: in that folder, else (holding a `/`) from a folder above it, up
/// to the root, else in a folder up to four levels below (`freshness.rs`,
/// in the line for `toolchain.rs`, is in `toolchain/`).
fn resolve_name(files: &[String], name: &str, folder: &str) -> BTreeSet<String> {
    let within = |base: &str| match base {
        "" => expand(files, name),
        base => expand(files, &format!("{base}/{name}")),
    };
    let here = within(folder);
    if !here.is_empty() {
        return here;
    }
    if name.trim_end_matches('/').contains('/') {
        // A sibling's path (`report/junit.rs` in the line for `judge/`) or
        // one from the root: tried from each folder above, nearest first.
        let mut above = folder;
        while !above.is_empty() {
            above = above.rsplit_once('/').map_or("", |(parent, _)| parent);
            let found = within(above);
            if !found.is_empty() {
                return found;
            }
        }
    }
    let mut below = folder.to_owned();
    for _ in 0..4 {
        below = if below.is_empty() {
            "*".to_owned()
        } else {
            format!("{below}/*")
        };
        let found = within(&below);
        if !found.is_empty() {
            return found;
        }
    }
    BTreeSet::new()
}

/// Folders whose every entry (file or folder) the layout must name, and
/// folders one line covers whole (the self-tests: cargo finds each file,
/// and a list of them would only go stale).
const NAMED_ONE_BY_ONE: &[&str] = &["harness/src", "reference/src", "runners", "cases"];
const COVERED_BY_A_LINE: &[&str] = &["harness/tests"];

/// What is wrong with the layout `entries` read against the tracked
/// `files`: a name that is not in the tree (with the README's line), and
/// an entry of a [`NAMED_ONE_BY_ONE`] folder that nothing names.
fn layout_problems(entries: &[Entry], files: &[String]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut named: BTreeSet<String> = BTreeSet::new();
    for entry in entries {
        for path in &entry.paths {
            let found = expand(files, path);
            if found.is_empty() {
                problems.push(format!(
                    "README.md:{}: `{path}` is not in the tree",
                    entry.line
                ));
            }
            named.extend(found);
        }
        let folder = match entry.paths[0].strip_suffix('/') {
            Some(folder) => folder,
            None => folder(&entry.paths[0]),
        };
        for name in names_in(&entry.about) {
            if name.starts_with("target/") {
                continue; // what a run writes, not the tree
            }
            let found = resolve_name(files, &name, folder);
            if found.is_empty() {
                problems.push(format!(
                    "README.md:{}: `{name}` (in the line for `{}`) is not in the tree",
                    entry.line, entry.paths[0]
                ));
            }
            named.extend(found);
        }
    }
    for root in COVERED_BY_A_LINE {
        let line = format!("{root}/");
        if !entries.iter().any(|e| e.paths.contains(&line)) {
            problems.push(format!("README.md: the layout has no line for `{line}`"));
        }
    }
    problems.extend(unnamed(&named, files));
    problems
}

/// The entries of [`NAMED_ONE_BY_ONE`] folders that no layout name is or
/// is inside: naming a file in a folder names the folder, while the line
/// of the folder itself (or of one above it) names none of its entries.
fn unnamed(named: &BTreeSet<String>, files: &[String]) -> Vec<String> {
    let mut children: BTreeSet<String> = BTreeSet::new();
    for root in NAMED_ONE_BY_ONE {
        let prefix = format!("{root}/");
        for file in files.iter().filter_map(|f| f.strip_prefix(&prefix)) {
            let child = match file.split_once('/') {
                Some((dir, _)) => format!("{prefix}{dir}/"),
                None => format!("{prefix}{file}"),
            };
            children.insert(child);
        }
    }
    children
        .into_iter()
        .filter(|child| {
            !named
                .iter()
                .any(|n| n == child || n.starts_with(child.as_str()))
        })
        .map(|child| format!("README.md: `{child}` is in no line of the layout"))
        .collect()
}

#[test]
fn the_readmes_layout_is_the_tree() {
    let root = root();
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let entries = layout(&readme);
    assert!(entries.len() >= 20, "the layout section: {entries:?}");
    let problems = layout_problems(&entries, &tracked(&root));
    assert!(
        problems.is_empty(),
        "the README's layout (## Layout) and the tree differ:\n  {}",
        problems.join("\n  ")
    );
}

/// The layout check on a made-up README and tree: a stale entry, a stale
/// name in a description, a file no line names and a folder's own line
/// naming none of its entries are found; a name in a subfolder, a glob
/// and a name on a continuation line are read as names.
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
  lib.rs      the modules
  table/      the table: json.rs, and on the next line
              validate.rs and stale.rs
  report.rs   the page (html.rs)
harness/tests/  the self-tests
```
## After
```
not/layout/  ignored
```
";
    let entries = layout(readme);
    assert_eq!(entries.len(), 8, "{entries:?}");
    assert_eq!(entries[5].paths, ["harness/src/table/"]);
    assert_eq!(
        entries[5].about,
        "the table: json.rs, and on the next line validate.rs and stale.rs"
    );
    let files: Vec<String> = [
        "cases/seed.json",
        "runners/go/language.toml",
        "runners/go/main.go",
        "runners/demo.json",
        "harness/src/lib.rs",
        "harness/src/text.rs",
        "harness/src/table/json.rs",
        "harness/src/table/validate.rs",
        "harness/src/report.rs",
        "harness/src/report/html.rs",
        "harness/src/judge/mod.rs",
        "harness/tests/any.rs",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(
        layout_problems(&entries, &files),
        [
            "README.md:7: `runners/gone/` is not in the tree",
            "README.md:10: `stale.rs` (in the line for `harness/src/table/`) is not in the tree",
            "README.md: `harness/src/judge/` is in no line of the layout",
            "README.md: `harness/src/text.rs` is in no line of the layout",
            "README.md: `runners/demo.json` is in no line of the layout",
        ]
    );
    let without_tests: Vec<Entry> = entries.into_iter().filter(|e| e.line != 13).collect();
    assert!(layout_problems(&without_tests, &files)
        .contains(&"README.md: the layout has no line for `harness/tests/`".to_owned()));
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
    assert_eq!(
        names_in("Java: outbox.cli (Runner), pom.xml; src/, cmd/runner and state.rs."),
        ["pom.xml", "src/", "state.rs"]
    );
}
