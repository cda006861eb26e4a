//! A run of the suite as a [`Report`]: the case table gives the rows (the
//! seed cases first) and their pictures, the trials' records the results.
//! The suite collects the rest (the commit, the toolchains) once and hands
//! it in as data.

use std::time::SystemTime;

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
pub fn report(
    run: RunRecord,
    cases: &[Case],
    records: &[Recorded],
    code: Vec<code::Part>,
) -> Report {
    let rows = rows(cases);
    let ids: Vec<RowId> = rows.iter().map(|row| row.id.clone()).collect();
    Report {
        results: Results::new(run, &ids, records),
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
        SEED_CASES
            .iter()
            .position(|name| in_seed_file && *name == case.name)
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
