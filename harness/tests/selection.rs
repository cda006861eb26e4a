//! A filter that matches nothing says so, naming what exists, and a strict
//! run that executes no trial (or fewer than it selected) is not a pass.

use std::sync::Arc;

use libtest_mimic::Arguments;
use parity::config::Settings;
use parity::selection::{selected, shortfall, unmatched};
use parity::suite::Recorder;
use parity::suite::{trials, Suite};

mod common;

fn suite() -> Suite {
    let mut suite = Suite::load(&parity::repo_root(), Settings::default()).unwrap();
    suite.set_languages([common::fake("fake-ok", "none", "none")]);
    suite
}

/// Arguments selecting with `filter`, the inner run writing to the log `name`.
fn filtered(filter: &str, name: &str) -> Arguments {
    let log = common::scratch(&format!("selection/{name}")).join("inner.log");
    Arguments {
        filter: Some(filter.into()),
        ..common::inner_args(&log, Vec::new())
    }
}

#[test]
fn a_filter_naming_no_language_matches_nothing_and_says_what_exists() {
    let suite = Arc::new(suite());
    let args = filtered("patterns/enterprise/outbox/practice/golang", "golang");
    let recorder = Recorder::default();
    let trials = trials(Arc::clone(&suite), &args, &recorder);
    let count = selected(&args, &trials);
    assert_eq!(count, 0);
    let message = unmatched(&args, &suite, count).expect("a line saying it");
    assert!(
        message
            .contains("the filter `patterns/enterprise/outbox/practice/golang` matches no trial"),
        "{message}"
    );
    assert!(message.contains("the languages are fake-ok"), "{message}");
    assert!(message.contains("lost_ack"), "{message}");
    // libtest itself calls this a pass: 0 passed, all filtered out.
    let conclusion = libtest_mimic::run(&args, trials);
    assert!(!conclusion.has_failed());
    let ran = recorder.lock().unwrap().len();
    assert_eq!(ran, 0);
    let why = shortfall(true, count, ran).expect("strict: not a pass");
    assert!(why.contains("executed no trial"), "{why}");
    assert_eq!(shortfall(false, count, ran), None, "not strict: a pass");
}

/// Trials are named `<prefix>/<language>/<case>`: the filter naming one
/// selects it alone.
#[test]
fn a_filter_that_matches_is_quiet_and_a_full_run_is_a_pass() {
    let suite = Arc::new(suite());
    let case_count = suite.cases.len() as u64;
    let args = filtered(
        "patterns/enterprise/outbox/practice/fake-ok/lost_ack",
        "lost-ack",
    );
    let recorder = Recorder::default();
    let trials = trials(Arc::clone(&suite), &args, &recorder);
    let count = selected(&args, &trials);
    assert_eq!(count, 1);
    assert_eq!(unmatched(&args, &suite, count), None);
    let conclusion = libtest_mimic::run(&args, trials);
    assert_eq!(conclusion.num_passed, 1);
    assert_eq!(conclusion.num_failed, 0);
    // The other cases, and the generated, protocol, demo, demo_config and
    // unit trials.
    assert_eq!(conclusion.num_filtered_out, case_count - 1 + 5);
    assert_eq!(shortfall(true, count, recorder.lock().unwrap().len()), None);
}

#[test]
fn a_strict_run_that_executed_fewer_than_it_selected_is_not_a_pass() {
    let why = shortfall(true, 25, 24).expect("not a pass");
    assert!(why.contains("executed 24 of the 25 trials"), "{why}");
    assert_eq!(shortfall(true, 25, 25), None);
}

#[test]
fn skips_that_leave_nothing_are_named() {
    let suite = Arc::new(suite());
    let args = Arguments {
        skip: vec!["practice".into()],
        list: true,
        ..Arguments::default()
    };
    let recorder = Recorder::default();
    let trials = trials(Arc::clone(&suite), &args, &recorder);
    let message = unmatched(&args, &suite, selected(&args, &trials)).unwrap();
    assert!(
        message.starts_with("--skip practice matches no trial"),
        "{message}"
    );
}
