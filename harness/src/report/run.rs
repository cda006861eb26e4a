//! A run of the suite as the rows of a [`super::Report`]: the recorded
//! verdicts become the matrix's cells, the case table its rows and
//! pictures. The suite collects the rest (the commit, the toolchains) once
//! and hands it in as data.

use std::collections::HashMap;
use std::time::SystemTime;

use super::trial::{Recorded, RowId, TrialId};
use super::{Cell, Row};
use crate::config::Kind;
use crate::judge::emit::{self, Emitter};
use crate::judge::Reason;
use crate::table::Case;
use crate::text::excerpt;

/// The most of one failure's text the page shows: a runner that floods
/// its stderr cannot push the page past its size.
const MAX_FAILURE_TEXT: usize = 20_000;

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

/// The matrix of a run: one row per case (the seed cases first) and per
/// trial kind, each trial's cell in its language's column (`languages`:
/// the columns, in order).
pub fn rows(cases: &[Case], languages: &[String], records: &[Recorded]) -> Vec<Row> {
    let mut cells: HashMap<&TrialId, Cell> = records
        .iter()
        .map(|record| (&record.id, Page.verdict(&record.verdict)))
        .collect();
    let mut row = |id: RowId, description: String, scenario, seed| Row {
        cells: languages
            .iter()
            .filter_map(|language| {
                let trial = TrialId {
                    language: language.clone(),
                    row: id.clone(),
                };
                Some((language.clone(), cells.remove(&trial)?))
            })
            .collect(),
        id,
        description,
        seed,
        scenario,
    };
    // The seed cases first, in the practice's order, then the rest by file
    // and order in the file (the table's own order; the sort is stable).
    let seed_rank = |case: &Case| {
        let in_seed_file = case.file.ends_with(SEED_FILE);
        SEED_CASES
            .iter()
            .position(|name| in_seed_file && *name == case.name)
    };
    let mut cases: Vec<&Case> = cases.iter().collect();
    cases.sort_by_key(|case| seed_rank(case).unwrap_or(SEED_CASES.len()));
    let mut rows: Vec<Row> = cases
        .into_iter()
        .map(|case| {
            row(
                RowId::Case(case.name.clone()),
                case.description.clone(),
                Some(case.scenario.clone()),
                seed_rank(case).is_some(),
            )
        })
        .collect();
    for kind in Kind::REPORT_ROWS {
        rows.push(row(RowId::Kind(kind), kind.description(), None, false));
    }
    rows
}

/// A trial's cell on the report page (and so in the results file and the
/// CI summary, which are made from the page's cells).
#[derive(Debug, Clone, Copy, Default)]
pub struct Page;

impl Emitter for Page {
    type Output = Cell;

    fn pass(&self) -> Cell {
        Cell::Pass
    }

    /// The summary first: the matrix cell shows the first line.
    fn failure(&self, reason: &Reason) -> Cell {
        let text = format!("{}\n\n{}", emit::summary(reason), emit::text(reason));
        Cell::Fail(reason.kind(), excerpt(&text, MAX_FAILURE_TEXT))
    }

    fn ignored(&self, why: &str) -> Cell {
        Cell::Ignored(why.to_owned())
    }

    fn known_failure(&self, why: &str) -> Cell {
        Cell::KnownFailure(why.to_owned())
    }
}

/// Now, as `YYYY-MM-DD HH:MM UTC`.
pub fn utc_now() -> String {
    let seconds = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60
    )
}

/// Howard Hinnant's days-to-civil conversion, proleptic Gregorian.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    #[test]
    fn days_become_dates() {
        assert_eq!(super::civil_from_days(0), (1970, 1, 1));
        assert_eq!(super::civil_from_days(20_787), (2026, 11, 30));
        assert_eq!(super::civil_from_days(11_016), (2000, 2, 29));
    }
}
