//! The contract is the checkout's `cases/schema.json`, read when the suite
//! loads: an outcome field no Rust code names is compared and shown (no
//! harness source knows `probe`), and a case property that belongs to a
//! feature makes a port that does not declare the feature show the case as
//! unsupported, never passed, and a strict run fail naming the language,
//! the case and the feature.

use std::path::{Path, PathBuf};

use parity::config::Settings;
use parity::judge::{emit, Verdict};
use parity::report::results::State;
use parity::suite::Suite;
use parity::toolchain::manifest::Manifest;
use serde_json::Value;

mod common;

use common::{assert_holds, fake, GOOD_CASE};

/// A checkout in a scratch folder: the repository's schema as `edit`
/// changes it, one case file of `cases`, and the reference's manifest.
fn checkout(name: &str, edit: impl FnOnce(&mut Value), cases: &[String]) -> PathBuf {
    let root = common::checkout(&format!("contract/{name}"));
    common::edit_json(&root.join("cases/schema.json"), edit);
    let file = format!(r#"{{"cases": [{}]}}"#, cases.join(", "));
    std::fs::write(root.join("cases/contract.json"), file).unwrap();
    root
}

/// The table's cases of the scratch checkout at `root` run through the
/// fake `language`, the run strict or not.
fn run(root: &Path, strict: bool, language: Manifest) -> common::Run {
    let settings = Settings {
        strict,
        ..Settings::default()
    };
    let suite = Suite::load(root, settings).unwrap();
    common::run_language(suite, language, common::table_only())
}

/// A field added to the outcome in the schema alone, `probe`, expected 1
/// and answered 2, fails naming it and both values on the terminal and in
/// the results file; answered 1, it passes.
#[test]
fn an_outcome_field_no_code_names_is_compared_and_shown() {
    let probe = |schema: &mut Value| {
        let outcome = &mut schema["$defs"]["outcome"]["properties"];
        outcome["probe"] = serde_json::json!({"type": "integer"});
    };
    let case = GOOD_CASE.replace(r#""duplicates": 0}"#, r#""duplicates": 0, "probe": 1}"#);
    let root = checkout("probe", probe, &[case]);
    let wrong = run(&root, false, fake("probe-2", "add:probe=2", "*"));
    let said = "probe: expected 1, actual 2";
    let failed = emit::text(common::failure(&wrong.verdicts(), "good"));
    assert_holds(&failed, &[said]);
    let trial = &wrong.report().results.trials[0];
    assert_holds(trial.text.as_deref().unwrap_or_default(), &[said]);
    let summary = trial.summary.as_deref().unwrap_or_default();
    assert_holds(summary, &["differs from expect at probe"]);
    let right = run(&root, false, fake("probe-1", "add:probe=1", "*"));
    assert_eq!(right.verdicts()["good"], Verdict::Pass);
}

/// A feature given to a core property in the schema (`restart_each_pass`
/// becomes `restarts`): a case that has the property, even at its default,
/// uses it. A port that declares it plays both cases; one that does not
/// shows that case as unsupported, and under strict fails it, named; a
/// manifest naming a feature the schema lacks is refused.
#[test]
fn a_port_that_does_not_declare_a_feature_shows_its_cases_unsupported() {
    let restarts = |schema: &mut Value| {
        let case = &mut schema["$defs"]["case"]["properties"];
        case["restart_each_pass"]["x-feature"] = "restarts".into();
    };
    let uses = GOOD_CASE.replace("\"good\"", "\"uses_restarts\"").replace(
        r#""passes": 2,"#,
        r#""passes": 2, "restart_each_pass": false,"#,
    );
    let root = checkout("feature", restarts, &[GOOD_CASE.to_owned(), uses]);
    let mut declares = fake("declares", "none", "none");
    declares.features = vec!["restarts".into()];
    let verdicts = run(&root, true, declares).verdicts();
    let played = verdicts.values().all(|v| *v == Verdict::Pass);
    assert!(played, "{verdicts:?}");
    let lacks = run(&root, false, fake("lacks", "none", "none"));
    let verdicts = lacks.verdicts();
    assert_eq!(verdicts["good"], Verdict::Pass);
    let unsupported = take!(&verdicts["uses_restarts"], Verdict::Unsupported(u) => u);
    assert_eq!(unsupported.feature, "restarts");
    let trials = lacks.report().results.trials;
    let states: Vec<State> = trials.into_iter().map(|t| t.state).collect();
    assert_eq!(states, [State::Pass, State::Unsupported]);
    let strict = run(&root, true, fake("lacks", "none", "none"));
    let said = "case `uses_restarts` uses the feature `restarts`, which lacks does not support";
    let failed = emit::text(common::failure(&strict.verdicts(), "uses_restarts"));
    assert_holds(&failed, &[said]);
    assert_eq!(strict.conclusion.num_failed, 1);

    let manifest = root.join("runners/rust/language.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let typo = text.replace("features = []", "features = [\"restart\"]");
    std::fs::write(&manifest, typo).unwrap();
    let refused = Suite::load(&root, Settings::default()).unwrap_err();
    let named = "runners/rust/language.toml: field `features`: \"restart\" is no feature";
    let known = "(its `x-feature`s: attempt_cap, heads, relays, restarts, retention)";
    assert_holds(&refused, &[named, known]);
}
