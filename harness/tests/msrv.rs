//! The workspace's `rust-version` must be true: no locked package that a
//! member builds may need a newer Rust than the member declares. Cargo
//! itself only notices when someone builds with that old a compiler, and
//! CI pins a newer one, so without this test a dependency update can make
//! the declared version false without anyone seeing it.

use std::collections::{BTreeSet, HashMap};
use std::process::Command;

use serde_json::Value;

/// A Rust version as cargo writes it (`1.89`, `1.85.0`), padded to three
/// parts so that `1.85` and `1.85.0` compare equal.
fn parse_version(text: &str) -> Result<[u64; 3], String> {
    let mut parts = [0; 3];
    let mut count = 0;
    for (slot, part) in parts.iter_mut().zip(text.split('.')) {
        *slot = part
            .parse()
            .map_err(|_| format!("`{text}` is not a Rust version"))?;
        count += 1;
    }
    if count == 0 || text.split('.').count() > 3 {
        return Err(format!("`{text}` is not a Rust version"));
    }
    Ok(parts)
}

/// `cargo metadata` of the workspace, with the lockfile as it is committed.
fn metadata() -> Value {
    let root = parity::repo_root();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(&cargo)
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(&root)
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{cargo} metadata`: {e}"));
    assert!(
        output.status.success(),
        "`cargo metadata --format-version 1 --locked` failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON")
}

/// The packages of `cargo metadata` by id, and what each one depends on.
struct Graph<'a> {
    packages: HashMap<&'a str, &'a Value>,
    deps: HashMap<&'a str, Vec<&'a str>>,
}

impl<'a> Graph<'a> {
    fn of(metadata: &'a Value) -> Self {
        let packages = metadata["packages"]
            .as_array()
            .expect("packages")
            .iter()
            .map(|p| (p["id"].as_str().expect("package id"), p))
            .collect();
        let deps = metadata["resolve"]["nodes"]
            .as_array()
            .expect("resolve.nodes (cargo metadata without --no-deps)")
            .iter()
            .map(|node| {
                let id = node["id"].as_str().expect("node id");
                let deps = node["deps"]
                    .as_array()
                    .expect("node deps")
                    .iter()
                    .map(|d| d["pkg"].as_str().expect("dep pkg"))
                    .collect();
                (id, deps)
            })
            .collect();
        Graph { packages, deps }
    }

    /// Every package building `root` builds, `root` included.
    fn reachable(&self, root: &'a str) -> BTreeSet<&'a str> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![root];
        while let Some(id) = todo.pop() {
            if seen.insert(id) {
                todo.extend(self.deps.get(id).into_iter().flatten());
            }
        }
        seen
    }
}

/// What the checks found: members or packages whose rust-version cannot
/// be read, and packages needing a newer Rust, kept with the version they
/// need so the newest can be listed first.
#[derive(Default)]
struct Findings {
    problems: Vec<String>,
    late: Vec<([u64; 3], String)>,
}

impl Findings {
    /// Checks one workspace member and everything it builds; its line for
    /// the list of members checked, or `None` when its own rust-version is
    /// missing or unreadable (a problem then).
    fn member(&mut self, graph: &Graph, member: &Value) -> Option<String> {
        let name = member["name"].as_str().expect("name");
        let Some(declared) = member["rust_version"].as_str() else {
            self.problems.push(format!(
                "{name} declares no rust-version (it should inherit the workspace's)"
            ));
            return None;
        };
        let declared_parts = match parse_version(declared) {
            Ok(v) => v,
            Err(e) => {
                self.problems.push(format!("{name}: {e}"));
                return None;
            }
        };
        for id in graph.reachable(member["id"].as_str().expect("id")) {
            self.package(graph.packages[id], name, declared, declared_parts);
        }
        Some(format!("{name} (rust-version {declared})"))
    }

    /// One package the member `name` builds, against the Rust `name`
    /// declares (`declared`, read as `declared_parts`).
    fn package(&mut self, package: &Value, name: &str, declared: &str, declared_parts: [u64; 3]) {
        let Some(needs) = package["rust_version"].as_str() else {
            return;
        };
        match parse_version(needs) {
            Ok(v) if v > declared_parts => self.late.push((
                v,
                format!(
                    "{} {} needs Rust {needs}, but {name} (which builds it) declares rust-version = \"{declared}\"",
                    package["name"].as_str().expect("name"),
                    package["version"].as_str().expect("version"),
                ),
            )),
            Ok(_) => {}
            Err(e) => self.problems.push(format!(
                "{}: rust-version {e}",
                package["name"].as_str().expect("name")
            )),
        }
    }

    /// The members checked when nothing was found, else every problem, one
    /// line each, the packages that need the newest Rust first.
    fn verdict(self, found: Vec<String>) -> Result<Vec<String>, Vec<String>> {
        let Findings {
            mut problems,
            mut late,
        } = self;
        late.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        problems.extend(late.into_iter().map(|(_, line)| line));
        if problems.is_empty() {
            Ok(found)
        } else {
            Err(problems)
        }
    }
}

/// Checks every package a workspace member builds (its dependencies of
/// every kind, dev-dependencies included, since `cargo test` builds them
/// too) against the Rust version that member declares. Returns the members
/// checked, or the problems, one line each, the packages that need the
/// newest Rust first.
fn checks(metadata: &Value) -> Result<Vec<String>, Vec<String>> {
    let graph = Graph::of(metadata);
    let mut findings = Findings::default();
    let found = metadata["workspace_members"]
        .as_array()
        .expect("workspace_members")
        .iter()
        .filter_map(|member| {
            let member = graph.packages[member.as_str().expect("member id")];
            findings.member(&graph, member)
        })
        .collect();
    findings.verdict(found)
}

#[test]
fn no_locked_package_needs_a_newer_rust_than_the_workspace_declares() {
    match checks(&metadata()) {
        Ok(members) => assert!(
            members.len() >= 3,
            "expected the three workspace members, checked: {members:?}"
        ),
        Err(problems) => panic!(
            "the declared rust-version is not enough for the locked dependencies \
             (raise rust-version in Cargo.toml's [workspace.package]; .ci/setup and \
             the workflow's msrv job read it from there):\n  {}",
            problems.join("\n  ")
        ),
    }
}

#[test]
fn versions_compare_by_number_not_by_text() {
    assert_eq!(parse_version("1.85"), parse_version("1.85.0"));
    assert!(parse_version("1.100").unwrap() > parse_version("1.89.0").unwrap());
    assert!(parse_version("1.9").unwrap() < parse_version("1.89").unwrap());
    assert!(parse_version("1.x").is_err());
    assert!(parse_version("").is_err());
    assert!(parse_version("1.2.3.4").is_err());
}

/// `checks` on a made-up graph: a member reaching two packages that need a
/// newer Rust (through a dev-dependency too), one with an unreadable
/// version, and a member declaring none; the newest need is listed first.
#[test]
fn checks_name_every_package_that_needs_a_newer_rust() {
    let package = |id: &str, rust: Option<&str>| serde_json::json!({"id": id, "name": id, "version": "1.0.0", "rust_version": rust});
    let node = |id: &str, deps: &[&str]| {
        let deps: Vec<Value> = deps.iter().map(|d| serde_json::json!({"pkg": d})).collect();
        serde_json::json!({"id": id, "deps": deps})
    };
    let metadata = serde_json::json!({
        "packages": [
            package("app", Some("1.80")), package("old", Some("1.70")),
            package("new", Some("1.85.1")), package("newest", Some("1.90")),
            package("odd", Some("one")), package("bare", None),
        ],
        "resolve": {"nodes": [
            node("app", &["old", "new"]), node("old", &["newest", "odd"]),
            node("new", &[]), node("newest", &[]), node("odd", &[]), node("bare", &["new"]),
        ]},
        "workspace_members": ["app", "bare"],
    });
    assert_eq!(
        checks(&metadata),
        Err(vec![
            "odd: rust-version `one` is not a Rust version".to_owned(),
            "bare declares no rust-version (it should inherit the workspace's)".to_owned(),
            "newest 1.0.0 needs Rust 1.90, but app (which builds it) declares rust-version = \"1.80\"".to_owned(),
            "new 1.0.0 needs Rust 1.85.1, but app (which builds it) declares rust-version = \"1.80\"".to_owned(),
        ])
    );
    let mut fine = metadata.clone();
    fine["workspace_members"] = serde_json::json!(["old"]);
    fine["packages"][1]["rust_version"] = "1.95".into();
    assert_eq!(
        checks(&fine),
        Err(vec![
            "odd: rust-version `one` is not a Rust version".to_owned()
        ])
    );
    fine["packages"][4]["rust_version"] = "1.0".into();
    assert_eq!(
        checks(&fine),
        Ok(vec!["old (rust-version 1.95)".to_owned()])
    );
}
