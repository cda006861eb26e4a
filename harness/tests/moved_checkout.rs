//! A checkout that was copied or moved, with a `target/` cargo does not
//! rebuild, tests and writes its own tree: the harness finds its root when
//! it runs. Simulated without copying `target/`: this build's `bless` run
//! in a small tree elsewhere (the workspace's `Cargo.toml` and `cases/`).

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

mod common;

/// A copy of the parts of this checkout `bless` reads, outside it, in a
/// folder of its own for each `name`.
fn moved_tree(name: &str) -> PathBuf {
    let root = parity::repo_root();
    let tree = std::env::temp_dir().join(format!("parity-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tree);
    std::fs::create_dir_all(&tree).unwrap();
    // As getcwd names it, which the messages print.
    let tree = tree.canonicalize().unwrap();
    let copy = duct::cmd!("cp", "-r", "Cargo.toml", "cases", &tree);
    copy.dir(&root)
        .run()
        .expect("a copy of the workspace's table");
    tree
}

/// `make new-case NAME=<name>` as a binary started in `dir`, with cargo's
/// run-time `CARGO_MANIFEST_DIR` as given (none: started directly).
fn new_case(name: &str, dir: &Path, manifest_dir: Option<&Path>) -> Output {
    let mut command = common::bless();
    command
        .args(["--new", name])
        .current_dir(dir)
        .env_remove("PARITY_CASES")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_MANIFEST_DIR");
    if let Some(manifest_dir) = manifest_dir {
        command.env("CARGO_MANIFEST_DIR", manifest_dir);
    }
    common::output(command, Duration::from_secs(60))
}

#[test]
fn a_moved_checkout_reads_and_writes_its_own_tree_and_none_fails_clearly() {
    let original = parity::repo_root().join("cases/edges.json");
    let before = std::fs::read(&original).unwrap();
    let tree = moved_tree("moved");
    let text = |out: &Output| String::from_utf8_lossy(&out.stderr).into_owned();

    // From a folder inside the tree (make bench's way); cargo's variable
    // from a folder in no checkout is passed over.
    let out = new_case("moved_case", &tree.join("cases"), Some(Path::new("/")));
    assert!(out.status.success(), "{}", text(&out));
    let edges = std::fs::read_to_string(tree.join("cases/edges.json")).unwrap();
    assert!(edges.contains("\"moved_case\""), "{edges}");
    // Started by cargo in the tree, from anywhere: the tree's table is the
    // one read (its new case is still a template, so it refuses another).
    let out = new_case("second_case", Path::new("/"), Some(&tree.join("harness")));
    let expected = format!(
        "{}: case `moved_case`",
        tree.join("cases/edges.json").display()
    );
    assert!(text(&out).contains(&expected), "{}", text(&out));
    assert_eq!(
        std::fs::read(&original).unwrap(),
        before,
        "the original tree was written"
    );

    // In no checkout at all: a clear error, exit 2, no panic.
    let out = new_case("nowhere", Path::new("/"), None);
    let stderr = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("parity: not in a checkout of the practice: no folder above / "),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    std::fs::remove_dir_all(&tree).unwrap();
}

/// A copied checkout checks its cases with its own `cases/schema.json`,
/// read when the harness runs (issue 38, item 6): it was built in, and its
/// path kept absolute in cargo's dep-info, so an edit of the copy's schema
/// changed nothing there. Here the copy's schema allows a batch of 5 at
/// most, and its cases of a batch of 10 are refused.
#[test]
fn a_moved_checkout_checks_its_cases_with_its_own_schema() {
    let tree = moved_tree("moved-schema");
    let path = tree.join("cases/schema.json");
    let mut schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    schema["$defs"]["case"]["properties"]["batch_size"]["maximum"] = 5.into();
    std::fs::write(&path, schema.to_string()).unwrap();
    let mut check = common::bless();
    check
        .arg("--check")
        .current_dir(&tree)
        .env_remove("PARITY_CASES");
    check.env("CARGO_MANIFEST_DIR", tree.join("harness"));
    let out = common::output(check, Duration::from_secs(60));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    let refused = "case `all_in_one_pass`: field `batch_size`: must be from 1 to 5, not 10";
    common::assert_holds(&stderr, &[refused]);
    std::fs::remove_dir_all(&tree).unwrap();
}
