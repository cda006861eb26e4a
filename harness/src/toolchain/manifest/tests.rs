//! The manifests of this repository load, resolve where the harness
//! builds, and a bad one is refused naming its file and field.

use super::*;

/// The known languages keep their places (another folder may come), the
/// reference first, each unit command naming its tool's counter and how
/// many tests it must pass (issue 38, item 4: any count passed); and
/// every placeholder is resolved, stamps included, under the target
/// folder.
#[test]
fn every_folder_is_a_language_built_under_the_target_folder() {
    let manifests = read_all(&crate::repo_root()).expect("the manifests load");
    let known = [
        ("rust", Counter::Cargo),
        ("go", Counter::GoVerbose),
        ("python", Counter::Unittest),
        ("php", Counter::PhpChecks),
        ("typescript", Counter::NodeTap),
        ("java", Counter::JUnitConsole),
    ];
    let kept: Vec<(&str, Option<Counter>)> = manifests
        .iter()
        .filter(|m| known.iter().any(|(name, _)| *name == m.name))
        .map(|m| {
            (
                m.name.as_str(),
                m.unit.counter.filter(|_| m.unit.at_least > 1),
            )
        })
        .collect();
    assert_eq!(kept, known.map(|(name, counter)| (name, Some(counter))));
    assert!(manifests[0].reference);
    assert!(manifests[1..].iter().all(|m| !m.reference));
    let target = crate::config::target_dir(&crate::repo_root());
    for manifest in &manifests {
        for stamp in manifest.build.iter().filter_map(|s| s.stamp.as_ref()) {
            assert!(Path::new(stamp).starts_with(&target), "{stamp}");
        }
        let all = format!("{manifest:?}");
        assert!(PLACEHOLDERS.iter().all(|p| !all.contains(p)), "{all}");
    }
    let go = manifests.iter().find(|m| m.name == "go").unwrap();
    let runner = format!("{}/parity/go/runner", target.display());
    assert_eq!(go.runner, [runner]);
    assert!(manifests[0].runner[0].starts_with(&*target.to_string_lossy()));
}

#[test]
fn an_unknown_placeholder_is_named() {
    let unknown = unknown_placeholder("{targte}/x");
    assert_eq!(unknown.as_deref(), Some("{targte}"));
    let shell = ["a{b c}", "${CARGO:-cargo} x", "awk '{print $2}'", "{ a; }"];
    for shell in shell.into_iter().chain(["{work}/runner"]) {
        assert_eq!(unknown_placeholder(shell), None, "{shell}");
    }
}

/// Where every error of Go's manifest starts.
const GO: &str = "runners/go/language.toml: ";

/// Loads the fresh scratch repository `scratch` whose only port, beside
/// the reference, is Go's manifest as `edit` makes it.
fn load_go(scratch: &Path, edit: impl Fn(&str) -> String) -> Result<Vec<Manifest>, String> {
    let repo = crate::repo_root();
    for name in ["rust", "go"] {
        let (from, to) = (
            repo.join(RUNNERS).join(name),
            scratch.join(RUNNERS).join(name),
        );
        std::fs::create_dir_all(&to).unwrap();
        let text = std::fs::read_to_string(from.join(FILE)).unwrap();
        let text = if name == "go" { edit(&text) } else { text };
        std::fs::write(to.join(FILE), text).unwrap();
    }
    read_all(scratch)
}

/// One mistake of `bad_manifests.json`: `from` replaced with `to`, and
/// what the error names.
#[derive(serde::Deserialize)]
struct Edit {
    from: String,
    to: String,
    names: String,
}

/// A copy of Go's manifest with one mistake each (`bad_manifests.json`,
/// plain data as JSON-Schema-Test-Suite's, each issue's row saying why):
/// the error names the file and the field.
#[test]
fn a_bad_manifest_names_its_file_and_field() {
    let table: serde_json::Value =
        serde_json::from_str(include_str!("bad_manifests.json")).unwrap();
    let edits: Vec<Edit> = serde_json::from_value(table["edits"].clone()).unwrap();
    for Edit { from, to, names } in edits {
        let error = load_go(&crate::config::scratch_dir("bad-manifests"), |text| {
            assert!(text.contains(&from), "{from}");
            text.replacen(&from, &to, 1)
        })
        .unwrap_err();
        assert!(error.starts_with(GO), "{error}");
        assert!(error.contains(&names), "{names}: {error}");
    }
}

/// Issue 29, item 12: a `[code]` path that leads outside the repository
/// through a symlink was read into the page CI uploads (the paths outside
/// it as written are rows of `bad_manifests.json`).
#[test]
fn a_code_path_outside_the_repository_is_refused() {
    let code = "message = [\"runners/go/message.go\"]";
    let scratch = crate::config::scratch_dir("manifest-code");
    load_go(&scratch, |text| {
        text.replace(code, "message = [\"runners/go/escape\"]")
    })
    .expect("a file not there yet shows as missing on the page");
    std::os::unix::fs::symlink("/etc/hostname", scratch.join("runners/go/escape")).unwrap();
    let error = read_all(&scratch).unwrap_err();
    let outside = "field `code.message`: \"runners/go/escape\" leads outside";
    assert!(error.starts_with(GO) && error.contains(outside), "{error}");
}
