//! The workspace's `rust-version` must be true: no locked package that a
//! member builds may need a newer Rust than the member declares. Cargo
//! itself only notices when someone builds with that old a compiler, and
//! CI pins a newer one, so without this test a dependency update can make
//! the declared version false without anyone seeing it.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
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
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
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

/// Checks every package a workspace member builds (its dependencies of
/// every kind, dev-dependencies included, since `cargo test` builds them
/// too) against the Rust version that member declares. Returns the members
/// checked, or the problems, one line each, the packages that need the
/// newest Rust first.
fn checks(metadata: &Value) -> Result<Vec<String>, Vec<String>> {
    let packages: HashMap<&str, &Value> = metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| (p["id"].as_str().expect("package id"), p))
        .collect();
    let deps: HashMap<&str, Vec<&str>> = metadata["resolve"]["nodes"]
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

    let mut problems = Vec::new();
    let mut late = Vec::new();
    let mut found = Vec::new();
    for member in metadata["workspace_members"]
        .as_array()
        .expect("workspace_members")
    {
        let member = &packages[member.as_str().expect("member id")];
        let name = member["name"].as_str().expect("name");
        let Some(declared) = member["rust_version"].as_str() else {
            problems.push(format!(
                "{name} declares no rust-version (it should inherit the workspace's)"
            ));
            continue;
        };
        let declared_parts = match parse_version(declared) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };

        let mut seen = BTreeSet::new();
        let mut todo = vec![member["id"].as_str().expect("id")];
        while let Some(id) = todo.pop() {
            if seen.insert(id) {
                todo.extend(deps.get(id).into_iter().flatten());
            }
        }
        for id in seen {
            let package = packages[id];
            let Some(needs) = package["rust_version"].as_str() else {
                continue;
            };
            match parse_version(needs) {
                Ok(v) if v > declared_parts => late.push((
                    v,
                    format!(
                        "{} {} needs Rust {needs}, but {name} (which builds it) declares rust-version = \"{declared}\"",
                        package["name"].as_str().expect("name"),
                        package["version"].as_str().expect("version"),
                    ),
                )),
                Ok(_) => {}
                Err(e) => problems.push(format!(
                    "{}: rust-version {e}",
                    package["name"].as_str().expect("name")
                )),
            }
        }
        found.push(format!("{name} (rust-version {declared})"));
    }
    late.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    problems.extend(late.into_iter().map(|(_, line)| line));
    if problems.is_empty() {
        Ok(found)
    } else {
        Err(problems)
    }
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
