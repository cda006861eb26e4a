//! Loading the case table cannot hang, exhaust memory or blame a file on
//! itself: each real file is read once, a symlink loop is named instead of
//! followed, a case file has a size cap, and a huge object loads in linear
//! time. What is not a regular file is refused unopened: known_failures.rs,
//! beside the run's other files.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use parity::table::{self as case, validate, Case, CaseError};

mod common;

use common::{good_file, GOOD_CASE};

/// `case::load(sources)`, failing the test instead of hanging.
fn load_within(seconds: u64, sources: Vec<PathBuf>) -> Result<Vec<Case>, Vec<String>> {
    common::within(Duration::from_secs(seconds), move || {
        case::load(&sources).map_err(|errors| errors.iter().map(ToString::to_string).collect())
    })
}

#[test]
fn a_symlink_loop_is_named_and_not_followed() {
    let dir = common::scratch("loading/symlink-loop");
    good_file(&dir, "a.json");
    std::os::unix::fs::symlink(".", dir.join("here")).unwrap();
    std::os::unix::fs::symlink(".", dir.join("again")).unwrap();
    let errors = load_within(10, vec![dir.clone()]).unwrap_err();
    let named = |link| {
        let (link, dir) = (dir.join(link), dir.display());
        let followed = "a folder it is in, so it is not followed";
        format!(
            "{}: a symlink loop: it leads back to {dir}, {followed}",
            link.display()
        )
    };
    assert_eq!(errors, ["again", "here"].map(named));
}

#[test]
fn each_real_file_is_read_once() {
    let dir = common::scratch("loading/read-once");
    let file = good_file(&dir, "a.json");
    std::os::unix::fs::symlink("a.json", dir.join("b.json")).unwrap();
    std::fs::create_dir(dir.join("sub")).unwrap();
    std::os::unix::fs::symlink("../a.json", dir.join("sub/c.json")).unwrap();
    // The same file listed twice, by a folder and by name, and by two links.
    let cases = load_within(10, vec![file.clone(), dir.clone(), file]).expect("no self-conflict");
    assert_eq!(cases.len(), 1);
    assert_eq!(cases[0].name, "good");
}

#[test]
fn a_case_file_over_the_size_cap_is_refused_unread() {
    let dir = common::scratch("loading/size-cap");
    let big = dir.join("big.json");
    // Sparse: 64 MiB and one byte on disk cost nothing.
    let file = std::fs::File::create(&big).unwrap();
    file.set_len(64 * 1024 * 1024 + 1).unwrap();
    drop(file);
    assert_eq!(
        load_within(10, vec![big.clone()]).unwrap_err(),
        [format!(
            "{}: is 67108865 bytes, over the limit of 67108864 bytes (64 MiB) for a case file: split it",
            big.display()
        )]
    );
}

#[test]
fn a_hundred_thousand_keys_load_in_linear_time() {
    let keys: Vec<String> = (1..=100_000).map(|n| format!(r#""{n}": "down""#)).collect();
    let failures = format!(r#""failures": {{{}}}"#, keys.join(", "));
    let case = GOOD_CASE.replacen(r#""failures": {"1": "down"}"#, &failures, 1);
    let text = format!(r#"{{"cases": [{case}]}}"#);
    assert!(text.len() > 1_500_000);
    // A deadline tells linear (about a second in a debug build) from
    // quadratic (74 s): no tighter wall-clock bound, which a busy machine
    // would break. The speed itself is a figure, not an assertion.
    let (took, cases, errors) = common::within(Duration::from_secs(20), move || {
        let started = Instant::now();
        let mut errors: Vec<CaseError> = Vec::new();
        let contract = parity::contract::Contract::repo().unwrap();
        let (file, _) = validate::parse(&contract, Path::new("big.json"), &text, &mut errors, true);
        let cases = file.cases;
        (started.elapsed(), cases.len(), errors.len())
    });
    // The expect no longer matches so many failures; only the time matters here.
    assert_eq!((cases, errors), (1, 0));
    println!("100,000 keys: {took:?}");
}
