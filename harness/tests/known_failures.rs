//! `make known-failures` and the files a run reads or appends to (issue
//! 29): every one of them a FIFO or `/dev/zero` (case files and manifests
//! too), a language that never got ready, a list with a repeated key, a
//! symlinked list, and a case only a `PARITY_CASES` file has. The tool's
//! tests run [`known::update`], what the tool runs, on a scratch root whose
//! `cases` leads to the repository's table.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use parity::config::Settings;
use parity::judge::known_failures::{self, PLACEHOLDER};
use parity::report::results::State::{self, Pass, RunnerFault, WrongAnswer};
use parity::report::{fixture, known, results::Results};
use parity::table::{self, bless};
use parity::toolchain::manifest;

mod common;

use common::fake;

/// A root of its own for `name`: `cases` the repository's table, and an
/// empty `runners/fake`.
fn scratch_root(name: &str) -> PathBuf {
    let root = common::scratch(&format!("known/{name}"));
    std::fs::create_dir_all(root.join("runners/fake")).unwrap();
    std::os::unix::fs::symlink(parity::repo_root().join("cases"), root.join("cases")).unwrap();
    root
}

/// A results file in which `fake` ended each of `trials` in a state.
fn results(trials: &[(&str, State)]) -> Results {
    let row = |(case, state): &(&str, State)| {
        fixture::row(case, "", None, &[("fake", state.clone(), "why")])
    };
    fixture::report(&[("fake", "")], trials.iter().map(row).collect()).results
}

fn list_path(root: &Path) -> PathBuf {
    root.join(known_failures::path("fake"))
}

/// Asserts the list at `root` names exactly `cases`, each with the
/// placeholder reason.
fn assert_placeholders(root: &Path, cases: &[&str]) {
    let list: HashMap<String, String> = common::read_json(&list_path(root));
    let expected = cases.iter().map(|&c| (c.into(), PLACEHOLDER.into()));
    assert_eq!(list, expected.collect());
}

/// How a test reads one file of a run, its error as text.
type Reader<'a> = &'a dyn Fn(&Path) -> Result<(), String>;

/// A FIFO, or a link to `/dev/zero`, in place of any file a run reads or
/// appends to (a results file, the step summary, a known-failures list, a
/// case file found in a folder or named, the file `make bless` writes, a
/// manifest) is refused unopened, saying what it is: a regression fails at
/// the deadline, not hangs. A regular file is appended to.
#[test]
fn a_fifo_or_dev_zero_as_a_file_of_the_run_is_refused_unopened() {
    let root = scratch_root("fifo");
    for folder in ["fifo-cases", "zero-cases"] {
        std::fs::create_dir_all(root.join(folder)).unwrap();
    }
    common::within(Duration::from_secs(5), move || {
        let results = |path: &Path| Results::load(path).map(drop);
        let summary = |path: &Path| {
            let appended = parity::files::append_regular(path, "x", "a step summary");
            appended.map_err(|e| format!("{}: {e}", path.display()))
        };
        let names = HashSet::new();
        let list = |_: &Path| known_failures::load(&root, "fake", &names, false).map(drop);
        let load = |path: &Path| {
            let loaded = table::load(&[path.to_path_buf()]).map(drop);
            loaded.map_err(|errors| errors.iter().map(ToString::to_string).collect())
        };
        let in_folder = |path: &Path| load(path.parent().unwrap());
        let bless = |path: &Path| bless::bless_file(path, bless::Which::Missing).map(drop);
        let manifests = |_: &Path| manifest::read_all(&root).map(drop);
        let (fifo, zero) = ("a named pipe (FIFO)", "a character device (/dev/zero)");
        let (known, a_list) = ("runners/fake/known-failures.json", "a known-failures list");
        let rows: [(&str, &str, Reader, &str); 9] = [
            ("results.json", fifo, &results, "a results file"),
            ("summary.md", fifo, &summary, "a step summary"),
            (known, fifo, &list, a_list),
            (known, zero, &list, a_list),
            ("fifo-cases/pipe.json", fifo, &in_folder, "a case file"),
            ("fifo-cases/pipe.json", fifo, &load, "a case file"),
            ("zero-cases/zero.json", zero, &in_folder, "a case file"),
            ("fifo-cases/pipe.json", fifo, &bless, "a case file"),
            ("runners/fake/language.toml", fifo, &manifests, "a manifest"),
        ];
        for (file, kind, read, what) in rows {
            let path = root.join(file);
            let _ = std::fs::remove_file(&path);
            if kind == fifo {
                common::mkfifo(&path);
            } else {
                std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
            }
            let why = read(&path).unwrap_err();
            let said = format!("{file}: {kind}, not a regular file: {what} must be a regular file");
            assert!(why.contains(&said), "{file}: {why}");
        }
        let file = root.join("summary.md.txt");
        summary(&file).unwrap();
        summary(&file).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "xx");
    });
}

#[test]
fn a_list_with_a_repeated_key_is_refused_as_the_suite_refuses_it() {
    let root = scratch_root("repeated");
    let text = r#"{"lost_ack": "issue 1", "lost_ack": "issue 2"}"#;
    std::fs::write(list_path(&root), text).unwrap();
    let why = known::update(&root, "fake", &results(&[("batch_of_two", WrongAnswer)]));
    let why = why.unwrap_err();
    let repeated = "runners/fake/known-failures.json: not valid JSON: repeated key";
    assert!(why.starts_with(repeated), "{why}");
    assert_eq!(std::fs::read_to_string(list_path(&root)).unwrap(), text);
}

#[test]
fn a_symlinked_list_is_written_through_its_link() {
    let root = scratch_root("symlink");
    let real = root.join("lists/fake.json");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::write(&real, r#"{"lost_ack": "issue 1"}"#).unwrap();
    std::os::unix::fs::symlink("../../lists/fake.json", list_path(&root)).unwrap();
    let run = results(&[("lost_ack", Pass), ("batch_of_two", WrongAnswer)]);
    known::update(&root, "fake", &run).unwrap();
    assert!(list_path(&root).is_symlink(), "the link was replaced");
    assert_placeholders(&root, &["batch_of_two"]);
    // Emptied: the link stays, its file holds no entry.
    known::update(&root, "fake", &results(&[("batch_of_two", Pass)])).unwrap();
    assert!(list_path(&root).is_symlink(), "the link was removed");
    assert_placeholders(&root, &[]);
}

#[test]
fn a_case_only_parity_cases_has_is_left_out_of_the_list() {
    let root = scratch_root("extra");
    let run = results(&[("only_mine", WrongAnswer), ("lost_ack", RunnerFault)]);
    let said = known::update(&root, "fake", &run).unwrap();
    let left_out = "left out \"only_mine\": not a case of the repository's table (cases/)";
    common::assert_holds(&said, &[left_out]);
    assert_placeholders(&root, &["lost_ack"]);
    // The list names only the table's cases, so a plain run reads it once
    // the placeholder, which keeps it from being used, says why; the run's
    // advice does not name the other.
    let names: HashSet<&str> = HashSet::from(["lost_ack"]);
    assert!(known_failures::load(&root, "fake", &names, true).is_ok());
    let refused = known_failures::load(&root, "fake", &names, false).unwrap_err();
    common::assert_holds(&refused, &["`lost_ack` still has the placeholder reason"]);
    let advice = known::advice(&run, &HashMap::new(), &names);
    let advised = advice.contains("add    \"lost_ack\"") && !advice.contains("only_mine");
    assert!(advised, "{advice}");
}

/// A language whose build fails ends every trial in the same runner
/// fault; the tool refuses to list them (and the run's advice leaves them
/// out), and still lists a real failure of another language of the run.
#[test]
fn a_language_that_did_not_build_gets_no_list() {
    let mut suite = common::suite(Settings::default().timeout);
    let unbuilt = common::building("fake-unbuilt", "false");
    suite.set_languages([unbuilt, fake("fake", "wrong-result", "lost_ack")]);
    let dir = scratch_root("unbuilt");
    let args = common::inner_args(&dir.join("inner.log"), common::table_only());
    let inner = common::run_suite(suite, args);
    let run = inner.report().results;

    // Nor does the end of the run advise listing them.
    let table = inner.suite.cases.iter().map(|c| c.name.as_str()).collect();
    let advice = known::advice(&run, &HashMap::new(), &table);
    let advised = advice.contains("LANG=fake rewrites") && !advice.contains("fake-unbuilt");
    assert!(advised, "{advice}");

    std::fs::create_dir_all(dir.join("runners/fake-unbuilt")).unwrap();
    let why = known::update(&dir, "fake-unbuilt", &run).unwrap_err();
    let unbuilt = "the last run could not get fake-unbuilt ready (building fake-unbuilt \
                   failed): a failed build or toolchain probe is a fault of the language's setup";
    assert!(why.starts_with(unbuilt), "{why}");
    assert!(!dir.join(known_failures::path("fake-unbuilt")).exists());
    known::update(&dir, "fake", &run).unwrap();
    assert_placeholders(&dir, &["lost_ack"]);
}
