//! Bugs planted in copies of real ports: the differential run finds one
//! and shrinks it to a minimal case, and the table's cases and the
//! generated scenarios find each bug the old sizes missed.

use std::time::Duration;

use parity::config::Settings;
use parity::differential::{cases, check_all, judge_all, shrink, Checked, Draw};
use parity::fault::{After, FaultKind};
use parity::protocol::{Reply, Request};
use parity::session::Session;
use parity::suite::{Port, Suite};
use parity::toolchain::manifest::{BuildStep, Manifest};
use parity::toolchain::NotReady;
use serde::Deserialize;

mod common;

/// A session of the fake runner with `fault` on every scenario.
fn runner(fault: &str) -> Session {
    common::session(fault, fault, "*", Duration::from_secs(10))
}

/// What `runner` gets wrong in 500 scenarios of `seed`.
fn checked(runner: &Session, seed: u64) -> Checked {
    let cases = cases(seed, 500, Draw::ALL).expect("the reference runs every scenario");
    check_all(runner, &cases, &Request::cases(&cases))
}

#[test]
fn a_correct_runner_agrees_on_every_scenario() {
    assert_eq!(checked(&runner("none"), 99), Checked::default());
}

/// A bug of `differential.json`: `planted` put right after `anchor` in a
/// port's `file` (below `runners/`), and the table's cases that then fail.
#[derive(Deserialize)]
struct Bug {
    file: String,
    anchor: String,
    planted: String,
    #[serde(default)]
    fails: Vec<String>,
}

#[test]
fn a_relay_that_does_not_block_is_found_and_shrunk_to_at_most_three_messages() {
    let seed = 1;
    let no_block = common::fixture("differential.json", "no_block");
    let Some(buggy) = planted(&common::suite(Duration::from_secs(30)), &no_block) else {
        return;
    };
    let checked = checked(&buggy, seed);
    let problem = take!(checked.problems.first(), Some(problem) => problem.clone());
    assert!(!problem.fault, "a wrong result, not a fault: {problem:?}");
    assert_eq!(checked.runner_fault, None);
    let finding = shrink(&buggy, (seed, Draw::ALL), problem.index, problem.text);
    let report = finding.report("go");
    assert!(finding.shrunk.scenario.messages.len() <= 3, "{report}");
    assert_eq!(finding.reference_broken, None);
    common::assert_holds(&report, &["As a ready case", "\"name\": \"regression_s1_"]);
    println!("{report}");
}

/// Asked to shrink a fault anyway (the budget and the generated trial's
/// "never shrunk" are pinned in reliability.rs), the shrinker gives up at
/// the first: one session for one scenario pair (two starts: the second
/// case gets a fresh runner, as any case after a fault does), never another.
#[test]
fn the_shrinker_gives_up_on_a_runner_that_cannot_start() {
    let pids = common::scratch("differential/cannot-start-pids").join("pids");
    let mut broken = runner("cannot-start");
    broken.command.argv = common::counting(&pids, broken.command.argv);
    let finding = shrink(&broken, (5, Draw::ALL), 0, "the runner faulted".into());
    assert_eq!(finding.index, 0);
    let starts = common::pids_in(&pids).len();
    assert!(
        starts <= 2,
        "the shrinker started a runner that cannot start {starts} times"
    );
}

#[test]
fn a_fault_after_the_last_answer_is_the_runners_not_a_scenarios() {
    let checked = checked(&runner("exit-after"), 6);
    assert_eq!(checked.problems, [], "every scenario was answered right");
    let fault = take!(&checked.runner_fault, Some(fault) => fault);
    let after = take!(&fault.kind, FaultKind::AfterLastAnswer(after) => after);
    take!(after, After::Exited { status: Some(status) } if status.code() == Some(4));
    common::assert_holds(&fault.to_string(), &["after answering every case"]);
}

/// The runner of a copy of a port with `bug` planted in it; the port's
/// build steps (always run) and runner use the copy. `None` (said on
/// stderr) when the port's toolchain is missing, as in `make test`, unless
/// `PARITY_STRICT` is set.
fn planted(suite: &Suite, bug: &Bug) -> Option<Session> {
    let (name, anchor) = (bug.file.replace(['/', '.'], "-"), &bug.anchor);
    let (language, file) = bug.file.split_once('/').unwrap();
    let folder = format!("runners/{language}");
    let copy = common::scratch(&format!("differential/{name}"));
    let port = copy.join("port");
    duct::cmd!("cp", "-r", suite.root.join(&folder), &port)
        .run()
        .unwrap();
    let text = std::fs::read_to_string(port.join(file)).unwrap();
    let (before, after) = text.split_once(anchor).expect("the anchor is in the port");
    let planted = format!("{before}{anchor}{}{after}", bug.planted);
    std::fs::write(port.join(file), planted).unwrap();
    let work = parity::config::work_dir(&suite.root, language);
    let [work, copy, port] = [&work, &copy, &port].map(|path| path.to_str().unwrap());
    let moved = |argv: &[String]| -> Vec<String> {
        let moved = |arg: &String| arg.replace(work, copy).replace(&folder, port);
        argv.iter().map(moved).collect()
    };
    let manifest = &suite.port(language).unwrap().manifest;
    let build = manifest
        .build
        .iter()
        .map(|step| BuildStep::always(moved(&step.run)));
    let port = Port::from(Manifest {
        name,
        runner: moved(&manifest.runner),
        build: build.collect(),
        ..manifest.clone()
    });
    match suite.ready(&port) {
        Ok(port) => Some(suite.runner(port)),
        Err(why @ NotReady::Missing { .. }) if !Settings::from_env().unwrap().strict => {
            eprintln!("skipped: {why}");
            None
        }
        Err(why) => panic!("{why}"),
    }
}

/// Bugs of real ports that passed every trial while the table's cases had
/// at most 5 rows and the generated scenarios 10 (issue 38): each bug of
/// `differential.json`'s `port_bugs` fails its new cases, and only them
/// (the others pass: the table could not see the bug before them), and the
/// `generated` trial's scenarios.
#[test]
fn bugs_planted_in_ports_fail_the_new_cases_and_the_generated_scenarios() {
    let suite = common::suite(Duration::from_secs(30));
    let generated = suite.generated_cases(suite.reference()).unwrap();
    for bug in common::fixture::<Vec<Bug>>("differential.json", "port_bugs") {
        let Some(runner) = planted(&suite, &bug) else {
            continue;
        };
        let replies = runner.run(&Request::cases(suite.cases.iter().chain(generated)));
        let (table, scenarios) = replies.split_at(suite.cases.len());
        let failed: Vec<&str> = (suite.cases.iter().zip(table))
            .filter(|(case, reply)| **reply != Reply::Answer(case.expect.clone()))
            .map(|(case, _)| &*case.name)
            .collect();
        assert_eq!(failed, bug.fails, "{} with {:?}", bug.file, bug.planted);
        let wrong = judge_all(&suite.contract, generated, scenarios)
            .iter()
            .any(|p| !p.fault);
        assert!(wrong, "{}: every generated scenario passes", bug.file);
    }
}
