//! Adding a case takes a JSON edit and `make bless`: the reference fills in
//! `expect`, and the file is written in the one canonical layout, so in a
//! file already in it nothing else changes.

use std::path::PathBuf;

use parity::table as case;
use parity::table::bless::{bless_file, check, new_case, Which};

mod common;

use common::assert_holds;

/// A case file as an author leaves it: one case blessed, one without its
/// `expect`.
const WITHOUT_EXPECT: &str = include_str!("bless_without_expect.json");

/// A case file `name` holding `text`, alone in a fresh folder.
fn scratch(name: &str, text: &str) -> PathBuf {
    let path = common::scratch(&format!("bless/{name}")).join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// `make bless` fills in only a missing `expect`, leaving a wrong one to
/// `BLESS=all`, and a second run changes nothing.
#[test]
fn bless_writes_the_references_expect_and_changes_nothing_else() {
    let file = scratch("bless.json", WITHOUT_EXPECT);
    let names = |which| bless_file(&file, which).unwrap().0;
    let text = || std::fs::read_to_string(&file).unwrap();
    assert_eq!(names(Which::Missing), ["lost_ack_again"]);
    let blessed = text();
    // SPEC.md's table for the lost ack: [2], [1, 3]; journal in delivery order; one duplicate.
    let expect = r#"      "passes": 2,
      "expect": {
        "sent": [[2], [1, 3]],
        "journal": ["order-1 OrderPlaced", "order-2 OrderPlaced", "order-1 OrderPaid"],
        "duplicates": 1
      }
    }"#;
    let expected = WITHOUT_EXPECT.replace("      \"passes\": 2\n    }", expect);
    assert_eq!(blessed, expected);
    let cases = case::load(std::slice::from_ref(&file)).expect("the blessed file is valid");
    assert_eq!(cases[1].expect["duplicates"], 1);
    assert_eq!(names(Which::Missing), Vec::<String>::new());
    assert_eq!(text(), blessed, "a second bless changes nothing");

    let wrong = blessed.replace(r#""sent": [[1]]"#, r#""sent": [[]]"#);
    std::fs::write(&file, &wrong).unwrap();
    assert_eq!(names(Which::Missing), Vec::<String>::new());
    assert_eq!(text(), wrong);
    assert_eq!(names(Which::All), ["kept_as_it_is"]);
    assert_eq!(text(), blessed);
}

#[test]
fn new_case_starts_from_a_template_that_must_be_described_before_blessing() {
    let file = scratch("new.json", WITHOUT_EXPECT);
    let existing = case::load(&[parity::repo_root().join("cases")]).unwrap();
    let error = new_case(&file, "lost_ack", &existing).unwrap_err();
    assert_holds(&error, &["already in"]);
    for name in parity::config::reserved_names() {
        let reserved = format!(
            "the case name {name:?} is reserved for a trial of each language: pick another name"
        );
        assert_eq!(new_case(&file, name, &[]).unwrap_err(), reserved);
    }
    let error = new_case(&file, &"a".repeat(201), &[]).unwrap_err();
    assert!(error.contains("201 characters long"), "{error}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), WITHOUT_EXPECT);
    new_case(&file, "my_new_case", &existing).unwrap();
    let error = bless_file(&file, Which::Missing).unwrap_err();
    let todo = "case `my_new_case`: field `description`: still holds the template's TODO";
    assert_holds(&error, &[todo]);
    let todo = "TODO: what this case shows, in a sentence or two.";
    let described = std::fs::read_to_string(&file).unwrap();
    let described = described.replace(todo, "The template as it comes.");
    std::fs::write(&file, described).unwrap();
    let names = bless_file(&file, Which::Missing).unwrap().0;
    assert_eq!(names, ["lost_ack_again", "my_new_case"]);
}

/// One layout, written by the tools and checked by `make lint`: a file
/// laid out by hand is refused by `bless --check` and laid out by `make
/// bless`, even with nothing to bless; a canonical file with nothing to
/// bless is not written at all. `make new-case` keeps the author's
/// `$schema` as `make bless` does.
#[test]
fn bless_lays_out_a_hand_written_file_and_lint_checks_the_layout() {
    let own_schema = WITHOUT_EXPECT.replace("./schema.json", "../../cases/schema.json");
    let file = scratch("hand-laid-out.json", &own_schema);
    bless_file(&file, Which::Missing).unwrap();
    let canonical = std::fs::read_to_string(&file).unwrap();
    // As its author laid it out, four spaces a level deep.
    std::fs::write(&file, canonical.replace("\n  ", "\n    ")).unwrap();
    let layout =
        "not in the canonical layout (the one every tool writes): `make bless` lays it out";
    let refused = check(&file).unwrap_err();
    assert_eq!(refused, format!("{}: {layout}", file.display()));
    assert_eq!(bless_file(&file, Which::Missing).unwrap(), (vec![], true));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), canonical);
    check(&file).unwrap();
    assert_eq!(bless_file(&file, Which::All).unwrap(), (vec![], false));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), canonical);
    new_case(&file, "with_own_schema", &[]).unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let own = "{\n  \"$schema\": \"../../cases/schema.json\",\n";
    assert!(text.starts_with(own), "{text}");

    // A path with no file (the folder is fresh) is not created.
    let missing = file.with_file_name("missing.json");
    let done = bless_file(&missing, Which::Missing).unwrap();
    assert_eq!(done, Default::default());
    assert!(!missing.exists());
}

#[test]
fn a_failed_write_or_a_broken_file_leaves_the_old_file_byte_for_byte_and_says_so() {
    let file = scratch("failed-write.json", WITHOUT_EXPECT);
    // The temporary file's name taken by a folder: the write fails (even as
    // root, where a read-only folder would not stop it).
    let temporary = file.with_file_name(format!(".failed-write.json.{}.tmp", std::process::id()));
    std::fs::create_dir_all(&temporary).unwrap();
    let error = bless_file(&file, Which::Missing).unwrap_err();
    let unchanged = format!("{}: cannot write (the file is unchanged): ", file.display());
    assert!(error.starts_with(&unchanged), "{error}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), WITHOUT_EXPECT);
    let error = new_case(&file, "never_written", &[]).unwrap_err();
    assert_holds(&error, &["cannot write (the file is unchanged)"]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), WITHOUT_EXPECT);
    std::fs::remove_dir(&temporary).unwrap();

    // A path whose folder is a file: refused with the reason.
    let error = new_case(&file.join("inside.json"), "never_written", &[]).unwrap_err();
    assert!(error.contains("inside.json"), "{error}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), WITHOUT_EXPECT);

    // A broken file is left alone, its problems said.
    let broken = WITHOUT_EXPECT.replace(r#""batch_size": 10"#, r#""batch_size": 0"#);
    std::fs::write(&file, &broken).unwrap();
    let error = bless_file(&file, Which::Missing).unwrap_err();
    let problem = "case `lost_ack_again`: field `batch_size`: must be from 1";
    assert_holds(&error, &[problem]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), broken);
}
