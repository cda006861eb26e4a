//! The workspace's `rust-version` must be true: no locked package that a
//! member builds may need a newer Rust than the members declare. Cargo
//! itself only notices when someone builds with that old a compiler, and
//! CI pins a newer one, so without this test a dependency update can make
//! the declared version false without anyone seeing it.

use serde_json::Value;

mod common;

/// A Rust version as cargo writes it (`1.89`, `1.85.0`), padded to three
/// parts so that `1.85` and `1.85.0` compare equal.
fn parse_version(text: &str) -> Result<Vec<u64>, String> {
    let parts: Result<Vec<u64>, _> = text.split('.').map(str::parse).collect();
    match parts {
        Ok(mut parts) if parts.len() <= 3 => {
            parts.resize(3, 0);
            Ok(parts)
        }
        _ => Err(format!("`{text}` is not a Rust version")),
    }
}

/// `cargo metadata` of the workspace, with the lockfile as it is committed:
/// its `packages` are every package a member builds (dependencies of every
/// kind, dev-dependencies included, since `cargo test` builds them too).
fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let args = ["metadata", "--format-version", "1", "--locked"];
    let output = duct::cmd(&cargo, args).dir(parity::repo_root()).read();
    let output = output.unwrap_or_else(|e| panic!("`{cargo} {}`: {e}", args.join(" ")));
    serde_json::from_str(&output).expect("cargo metadata prints JSON")
}

/// Every problem of `metadata`, one line each, the packages that need the
/// newest Rust first: a member without the workspace's `rust-version`, a
/// version that cannot be read, a package needing more than `declared`.
fn checks(metadata: &Value, declared: &str) -> Vec<String> {
    let floor = parse_version(declared).expect("the workspace's rust-version");
    let (mut problems, mut late) = (Vec::new(), Vec::new());
    let members = metadata["workspace_members"].as_array().expect("members");
    for package in metadata["packages"].as_array().expect("packages") {
        let name = package["name"].as_str().expect("name");
        let rust = package["rust_version"].as_str();
        if members.contains(&package["id"]) && rust != Some(declared) {
            let inherits = format!("{name} does not inherit the workspace's rust-version");
            problems.push(inherits);
        }
        let version = package["version"].as_str().expect("version");
        match rust.map(parse_version) {
            Some(Ok(needs)) if needs > floor => {
                let rust = rust.unwrap_or_default();
                let declares = format!("the workspace declares rust-version = \"{declared}\"");
                let line = format!("{name} {version} needs Rust {rust}, but {declares}");
                late.push((needs, line));
            }
            Some(Err(e)) => problems.push(format!("{name}: rust-version {e}")),
            _ => {}
        }
    }
    late.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    problems.extend(late.into_iter().map(|(_, line)| line));
    problems
}

/// And make setup's Rust floor (the reference's manifest) is that
/// rust-version: the two cannot drift apart.
#[test]
fn no_locked_package_needs_a_newer_rust_than_the_workspace_declares() {
    let root = parity::repo_root();
    let text = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let cargo: toml::Table = toml::from_str(&text).unwrap();
    let declared = cargo["workspace"]["package"]["rust-version"].as_str();
    let declared = declared.unwrap();
    let manifests = parity::toolchain::manifest::read_all(&root).unwrap();
    let rust = manifests.iter().find(|m| m.name == "rust").unwrap();
    let floor = rust.setup.versions.iter().find(|v| v.tool == "Rust");
    assert_eq!(floor.map(|v| v.at_least.as_str()), Some(declared));
    let metadata = metadata();
    assert!(metadata["workspace_members"].as_array().unwrap().len() >= 3);
    let problems = checks(&metadata, declared);
    common::assert_none(
        &problems,
        "the declared rust-version is not enough for the locked dependencies (raise rust-version in \
         Cargo.toml's [workspace.package]; .ci/setup and the workflow's msrv job read it from there)",
    );
}

/// Versions compare by number, not by text; and `checks` on a made-up
/// graph (`msrv.json`) names every package that needs a newer Rust,
/// newest first.
#[test]
fn checks_name_every_package_that_needs_a_newer_rust() {
    assert_eq!(parse_version("1.85"), parse_version("1.85.0"));
    assert!(parse_version("1.100").unwrap() > parse_version("1.89.0").unwrap());
    assert!(parse_version("1.9").unwrap() < parse_version("1.89").unwrap());
    for bad in ["1.x", "", "1.2.3.4"] {
        assert!(parse_version(bad).is_err(), "{bad}");
    }
    let metadata: Value = common::fixture("msrv.json", "metadata");
    let declared: String = common::fixture("msrv.json", "declared");
    let problems: Vec<String> = common::fixture("msrv.json", "problems");
    assert_eq!(checks(&metadata, &declared), problems);
}
