//! Reports made from a few lines, for the report's own tests: the unit
//! tests and the browser test (`harness/tests/report_browser.rs`) build
//! their pages with the same builder, so both check the record the suite
//! makes.

use std::collections::BTreeMap;

use super::results::{Outcome, Results, RunRecord, State, Toolchain, TrialResult, VERSION};
use super::trial::{RowId, TrialId};
use super::{Failure, Report, Row, Scenario};
use crate::config::LanguageId;

/// One language's cell: its state and what it says (its first line the
/// summary); not run is an ignored trial, a known failure one, the other
/// failures failed.
pub type Cell<'a> = (&'a str, State, &'a str);

/// Row `id` of the outbox: `written_after_pass` 0 is the start.
pub fn message(id: u64, aggregate: &str, event_type: &str, after: u64) -> crate::table::Row {
    crate::table::Row {
        written_after_pass: after,
        ..crate::table::Row::new(id, aggregate, event_type)
    }
}

/// SPEC.md's lost-ack story, with one row written after pass 1: the
/// pictures' common case.
pub fn lost_ack() -> Scenario {
    Scenario {
        batch_size: 10,
        messages: vec![
            message(1, "order-1", "OrderPlaced", 0),
            message(2, "order-2", "OrderPlaced", 0),
            message(3, "order-1", "OrderPaid", 0),
            message(4, "order-1", "OrderShipped", 1),
        ],
        failures: BTreeMap::from([(1, Failure::LostAck), (2, Failure::Down)]),
        passes: 3,
        ..Default::default()
    }
}

/// The row `name` (a trial kind's when a kind has that name, else a
/// case's) and its cells, in the columns' order.
pub fn row(
    name: &str,
    description: &str,
    scenario: Option<Scenario>,
    cells: &[Cell],
) -> (Row, Vec<TrialResult>) {
    let id = RowId::named(name, name);
    let trial = |(language, state, text): &Cell| {
        let verdict = match state {
            State::Pass => Outcome::Pass,
            State::NotRun | State::Unsupported => Outcome::Ignored,
            State::KnownFailure => Outcome::KnownFailure,
            _ => Outcome::Fail,
        };
        let text = (*state != State::Pass).then(|| text.to_string());
        let trial = TrialId {
            language: LanguageId::from(*language),
            row: id.clone(),
        };
        TrialResult::new(trial, verdict, state.clone(), text)
    };
    let trials = cells.iter().map(trial).collect();
    let row = Row {
        id,
        description: description.to_owned(),
        seed: false,
        scenario,
    };
    (row, trials)
}

/// A report with every state, one cell each (not run twice), plus a cell
/// not selected, in
/// columns rust and go, for the unit tests and the browser test alike:
/// go's wrong answer holds markup, its stale known failure a Markdown
/// column separator, batch_of_two's picture (a batch of one, a new relay
/// each pass) is wider than a window, and generated's description is one
/// long word, which must wrap.
pub fn every_state() -> Report {
    use State::*;
    let differs = "`lost_ack`: the result differs from expect\n  expected [2]\n  actual   [1, 2]: <order-1> & <order-2>\n";
    let crashed = "`batch_of_two`: runner fault: crashed";
    let stale = "known failure `generated` | passes now\nrefresh the list";
    let (harness, missing) = ("the reference failed", "the go toolchain is missing");
    let unsupported = "unsupported: case `batch_of_two` uses the feature `restarts`";
    let wide = Scenario {
        batch_size: 1,
        messages: (1..=12).map(|id| message(id, "order-1", "E", 0)).collect(),
        passes: 12,
        restart_each_pass: true,
        ..Default::default()
    };
    let lost = [("rust", Pass, ""), ("go", WrongAnswer, differs)];
    let batch = [
        ("rust", RunnerFault, crashed),
        ("go", Unsupported, unsupported),
    ];
    let generated = [
        ("rust", KnownFailure, "issue 3"),
        ("go", StaleKnownFailure, stale),
    ];
    let unit = [("rust", HarnessFault, harness), ("go", NotRun, missing)];
    let long = format!("Generated. {}", "unbroken".repeat(250));
    let toolchains = [("rust", "rustc 1.80.0"), ("go", "go1.22.2")];
    report(
        &toolchains,
        vec![
            row("lost_ack", "", Some(lost_ack()), &lost),
            row("batch_of_two", "", Some(wide), &batch),
            row("generated", &long, None, &generated),
            row("unit", "", None, &unit),
            row("demo", "", None, &[("rust", Pass, "")]),
        ],
    )
}

/// A report of `rows` with a column per (language, toolchain version), of
/// commit `4122aa5`, every trial selected, no code panel, no base.
pub fn report(toolchains: &[(&str, &str)], rows: Vec<(Row, Vec<TrialResult>)>) -> Report {
    let (rows, trials): (Vec<Row>, Vec<Vec<TrialResult>>) = rows.into_iter().unzip();
    let toolchains = toolchains.iter().map(|&(name, version)| Toolchain {
        name: name.to_owned(),
        version: version.to_owned(),
        features: Vec::new(),
    });
    Report {
        results: Results {
            version: VERSION,
            run: RunRecord {
                commit: "4122aa5".to_owned(),
                date: "2026-11-30T06:00:00Z".to_owned(),
                toolchains: toolchains.collect(),
                ..RunRecord::default()
            },
            trials: trials.concat(),
        },
        rows,
        ..Report::default()
    }
}
