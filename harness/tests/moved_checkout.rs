//! A checkout that was copied or moved, with a `target/` cargo does not
//! rebuild, tests and writes its own tree: the harness finds its root when
//! it runs. Simulated without copying `target/`: this build's `bless` run
//! in a small tree elsewhere (the workspace's `Cargo.toml` and `cases/`).

use std::path::{Path, PathBuf};

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
    let copied = copy.dir(&root).run();
    copied.expect("a copy of the workspace's table");
    tree
}

/// The bless binary with `args` (`--new <name>` is `make new-case`),
/// started in `dir`, with cargo's run-time `CARGO_MANIFEST_DIR` as given
/// (none: started directly): its exit code and its stderr.
fn bless(args: &[&str], dir: &Path, manifest_dir: Option<&Path>) -> (Option<i32>, String) {
    let mut command = common::bless();
    command.args(args).current_dir(dir);
    for variable in ["PARITY_CASES", "CARGO_TARGET_DIR", "CARGO_MANIFEST_DIR"] {
        command.env_remove(variable);
    }
    if let Some(manifest_dir) = manifest_dir {
        command.env("CARGO_MANIFEST_DIR", manifest_dir);
    }
    common::ended(command)
}

/// From a folder inside the tree, or started by cargo in it from anywhere,
/// a moved checkout's binary reads and writes that tree, not the one it was
/// built in; in no checkout it fails clearly. And it checks its cases with
/// its own `cases/schema.json`, read when it runs (issue 38, item 6): it
/// was built in, and its path kept absolute in cargo's dep-info, so an edit
/// of the copy's schema changed nothing there. Here the copy's schema
/// allows a batch of 5 at most, and its cases of a batch of 10 are refused.
#[test]
fn a_moved_checkout_reads_writes_and_checks_by_its_own_tree_and_none_fails_clearly() {
    let original = parity::repo_root().join("cases/edges.json");
    let before = std::fs::read(&original).unwrap();
    let tree = moved_tree("moved");
    let (cases, harness) = (tree.join("cases"), tree.join("harness"));

    // From a folder inside the tree (make bench's way); cargo's variable
    // from a folder in no checkout is passed over.
    let (code, stderr) = bless(&["--new", "moved_case"], &cases, Some(Path::new("/")));
    assert_eq!(code, Some(0), "{stderr}");
    let edges = std::fs::read_to_string(cases.join("edges.json")).unwrap();
    assert!(edges.contains("\"moved_case\""), "{edges}");
    // Started by cargo in the tree, from anywhere: the tree's table is the
    // one read (its new case is still a template, so it refuses another).
    let (_, stderr) = bless(&["--new", "second_case"], Path::new("/"), Some(&harness));
    let expected = format!("{}: case `moved_case`", cases.join("edges.json").display());
    common::assert_holds(&stderr, &[&expected]);
    let after = std::fs::read(&original).unwrap();
    assert_eq!(after, before, "the original tree was written");

    // In no checkout at all: a clear error, exit 2, no panic.
    let (code, stderr) = bless(&["--new", "nowhere"], Path::new("/"), None);
    assert_eq!(code, Some(2), "{stderr}");
    let nowhere = "parity: not in a checkout of the practice: no folder above / ";
    assert!(stderr.starts_with(nowhere), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");

    // The copy's schema, edited.
    common::edit_json(&cases.join("schema.json"), |schema| {
        schema["$defs"]["case"]["properties"]["batch_size"]["maximum"] = 5.into();
    });
    let (code, stderr) = bless(&["--check"], &tree, Some(&harness));
    assert_ne!(code, Some(0), "{stderr}");
    let refused = "case `all_in_one_pass`: field `batch_size`: must be from 1 to 5, not 10";
    common::assert_holds(&stderr, &[refused]);
    std::fs::remove_dir_all(&tree).unwrap();
}
