//! A run of the suite as a [`Report`]: the recorded verdicts become the
//! matrix's cells, the case table its rows and pictures, and the machine
//! says the date, the commit and the toolchains.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use libtest_mimic::Arguments;

use super::{Cell, Report, Row, Toolchain};
use crate::config::Kind;
use crate::exec::{self, Stdin};
use crate::judge::emit::{self, Emitter};
use crate::judge::Reason;
use crate::suite::junit::Recorded;
use crate::suite::Suite;
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

/// The report of a run: one row per case and per trial of each language
/// (`generated`, `demo`, `demo_config`, `unit`), one column per language.
/// `args` are the run's libtest arguments: the page says which trials they
/// chose.
pub fn from_run(suite: &Suite, records: &[Recorded], args: &Arguments) -> Report {
    let mut cells: BTreeMap<(String, String), Cell> = BTreeMap::new();
    for record in records {
        let cell = Page.verdict(&record.verdict);
        cells.insert((record.row.clone(), record.language.clone()), cell);
    }
    let mut row = |name: &str, description: String, scenario, seed| Row {
        name: name.to_owned(),
        description,
        seed,
        scenario,
        cells: suite
            .languages
            .iter()
            .filter_map(|l| {
                let cell = cells.remove(&(name.to_owned(), l.name.clone()))?;
                Some((l.name.clone(), cell))
            })
            .collect(),
    };
    // The seed cases first, in the practice's order, then the rest by file
    // and order in the file (the table's own order; the sort is stable).
    let seed_rank = |case: &crate::table::Case| {
        let in_seed_file = case.file.ends_with(SEED_FILE);
        SEED_CASES
            .iter()
            .position(|name| in_seed_file && *name == case.name)
    };
    let mut cases: Vec<&crate::table::Case> = suite.cases.iter().collect();
    cases.sort_by_key(|case| seed_rank(case).unwrap_or(SEED_CASES.len()));
    let mut rows: Vec<Row> = cases
        .into_iter()
        .map(|case| {
            row(
                &case.name,
                case.description.clone(),
                Some(case.scenario.clone()),
                seed_rank(case).is_some(),
            )
        })
        .collect();
    for kind in Kind::REPORT_ROWS {
        rows.push(row(kind.name(), kind.description(), None, false));
    }
    Report {
        date: utc_now(),
        selection: selection(args),
        commit: commit(suite),
        toolchains: suite
            .languages
            .iter()
            .map(|language| Toolchain {
                name: language.name.clone(),
                version: suite
                    .resolved(language)
                    .and_then(|ready| ready.version)
                    .unwrap_or_else(|| first_line_of(suite, &language.probe)),
            })
            .collect(),
        languages: suite.languages.iter().map(|l| l.name.clone()).collect(),
        rows,
        code: super::code::parts(&suite.manifests, &suite.root),
        base: None,
    }
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

/// The arguments that chose trials (the filter, `--skip`, `--exact`,
/// `--ignored`), as libtest takes them; empty when every trial ran.
fn selection(args: &Arguments) -> String {
    let mut words: Vec<String> = args.filter.iter().cloned().collect();
    for skip in &args.skip {
        words.push(format!("--skip {skip}"));
    }
    if args.exact {
        words.push("--exact".to_owned());
    }
    if args.ignored {
        words.push("--ignored".to_owned());
    }
    words.join(" ")
}

fn first_line_of(suite: &Suite, argv: &[String]) -> String {
    let command = exec::Command {
        label: format!("`{}`", argv.join(" ")),
        argv: argv.to_vec(),
        dir: suite.root.clone(),
        deadline: Duration::from_secs(30),
        keep: 4096,
    };
    match exec::run(&command, Stdin::Null) {
        Ok(output) if output.success() => output
            .stdout
            .text()
            .lines()
            .next()
            .unwrap_or("(printed nothing)")
            .to_owned(),
        Ok(output) => format!("not available ({})", output.describe()),
        Err(e) => format!("not available ({e})"),
    }
}

fn commit(suite: &Suite) -> String {
    let git = |args: &[&str]| {
        let mut argv = vec!["git".to_owned()];
        argv.extend(args.iter().map(|a| (*a).to_owned()));
        first_line_of(suite, &argv)
    };
    let hash = git(&["rev-parse", "--short=12", "HEAD"]);
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]);
    if dirty == "(printed nothing)" {
        hash
    } else {
        format!("{hash}-dirty")
    }
}

/// Now, as `YYYY-MM-DD HH:MM UTC`.
fn utc_now() -> String {
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
