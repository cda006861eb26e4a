//! A run of the suite as a [`Report`]: the case table gives the rows (the
//! seed cases first) and their pictures, the trials' records the results.
//! The suite collects the rest (the commit, the toolchains) once and hands
//! it in as data.

use super::results::{Results, RunRecord};
use super::trial::{Recorded, RowId};
use super::{code, Report, Row};
use crate::config::Kind;
use crate::table::Case;

/// The practice's five seed cases, in the order its text tells them: the
/// page starts with them.
pub const SEED_CASES: [&str; 5] = [
    "all_in_one_pass",
    "broker_down_first_attempt",
    "broker_down_third_attempt",
    "lost_ack",
    "batch_of_two",
];

/// The file the seed cases live in, relative to the repository root.
const SEED_FILE: &str = "cases/seed.json";

/// The report of a run: one row per case and per trial kind, one column
/// per language of `run`, each trial's result in its cell.
pub fn report(run: RunRecord, cases: &[Case], records: &[Recorded], code: code::Panel) -> Report {
    let rows = rows(cases);
    Report {
        results: Results::new(run, &rows, records),
        rows,
        code,
        base: None,
    }
}

/// The matrix's rows: the seed cases first, in the practice's order, then
/// the rest by file and order in the file (the table's own order; the sort
/// is stable), then each trial kind.
pub fn rows(cases: &[Case]) -> Vec<Row> {
    let seed_rank = |case: &Case| {
        let in_seed_file = case.file.ends_with(SEED_FILE);
        (SEED_CASES.iter()).position(|name| in_seed_file && *name == case.name)
    };
    let mut cases: Vec<&Case> = cases.iter().collect();
    cases.sort_by_key(|case| seed_rank(case).unwrap_or(SEED_CASES.len()));
    let cases = cases.into_iter().map(|case| Row {
        id: RowId::Case(case.name.clone()),
        description: case.description.clone(),
        seed: seed_rank(case).is_some(),
        scenario: Some(case.scenario.clone()),
    });
    let kinds = Kind::REPORT_ROWS.into_iter().map(|kind| Row {
        id: RowId::Kind(kind),
        description: kind.description(),
        seed: false,
        scenario: None,
    });
    cases.chain(kinds).collect()
}
