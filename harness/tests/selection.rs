//! A filter that matches nothing says so, naming what exists, and a strict
//! run that executes no trial (or fewer than it selected) is not a pass.

use std::sync::Arc;

use libtest_mimic::{Arguments, Trial};
use parity::selection::{selected, shortfall, unmatched};
use parity::suite::{trials, Recorder, Suite};

mod common;

/// The trials of a suite whose one language is the fake `fake-ok`, as
/// `args` select them: the suite, the trials, how many are selected, and
/// where those run record their verdicts.
fn select(args: &Arguments) -> (Arc<Suite>, Vec<Trial>, usize, Recorder) {
    let mut suite = common::suite(parity::config::Settings::default().timeout);
    suite.set_languages([common::fake("fake-ok", "none", "none")]);
    let suite = Arc::new(suite);
    let recorder = Recorder::default();
    let trials = trials(Arc::clone(&suite), args, &recorder);
    let count = selected(args, &trials);
    (suite, trials, count, recorder)
}

/// Arguments selecting with `filter`, the inner run writing to a log named
/// for the filter's last part.
fn filtered(filter: &str) -> Arguments {
    let name = filter.rsplit('/').next().unwrap();
    let log = common::scratch(&format!("selection/{name}")).join("inner.log");
    let mut args = common::inner_args(&log, Vec::new());
    args.filter = Some(filter.into());
    args
}

/// A filter, or skips, that match nothing say so, the filter naming what
/// exists; libtest calls the empty run a pass, a strict run does not.
#[test]
fn arguments_that_match_nothing_say_so_and_the_filter_names_what_exists() {
    let args = filtered("patterns/enterprise/outbox/practice/golang");
    let (suite, trials, count, recorder) = select(&args);
    assert_eq!(count, 0);
    let message = unmatched(&args, &suite, count).expect("a line saying it");
    let filter = "the arguments `patterns/enterprise/outbox/practice/golang` match no trial";
    common::assert_holds(&message, &[filter, "the languages are fake-ok", "lost_ack"]);
    // libtest itself calls this a pass: 0 passed, all filtered out.
    let conclusion = libtest_mimic::run(&args, trials);
    assert!(!conclusion.has_failed());
    let ran = recorder.lock().unwrap().len();
    assert_eq!(ran, 0);
    let why = shortfall(true, count, ran).expect("strict: not a pass");
    assert!(why.contains("executed no trial"), "{why}");
    assert_eq!(shortfall(false, count, ran), None, "not strict: a pass");
    let args = Arguments {
        skip: vec!["practice".into()],
        list: true,
        ..Arguments::default()
    };
    let (suite, _, count, _) = select(&args);
    let message = unmatched(&args, &suite, count).unwrap();
    let skip = "the arguments `--skip practice` match no trial";
    assert!(message.starts_with(skip), "{message}");
}

/// Trials are named `<prefix>/<language>/<case>`: the filter naming one
/// selects it alone. A strict run that executes every trial it selected
/// is a pass, one that executed fewer is not.
#[test]
fn a_filter_that_matches_is_quiet_and_a_full_run_is_a_pass() {
    let args = filtered("patterns/enterprise/outbox/practice/fake-ok/lost_ack");
    let (suite, trials, count, recorder) = select(&args);
    assert_eq!(count, 1);
    assert_eq!(unmatched(&args, &suite, count), None);
    let conclusion = libtest_mimic::run(&args, trials);
    assert_eq!(conclusion.num_passed, 1);
    assert_eq!(conclusion.num_failed, 0);
    // The other cases, and the generated, protocol, demo, demo_config and
    // unit trials.
    let case_count = suite.cases.len() as u64;
    assert_eq!(conclusion.num_filtered_out, case_count - 1 + 5);
    assert_eq!(shortfall(true, count, recorder.lock().unwrap().len()), None);
    let why = shortfall(true, 25, 24).expect("not a pass");
    assert!(why.contains("executed 24 of the 25 trials"), "{why}");
}
