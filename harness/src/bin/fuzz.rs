//! `make fuzz`: many generated scenarios through every available language,
//! checked against the reference and the properties, with progress and a
//! summary line. A failure is shrunk and printed as a ready case; `--save`
//! appends the ones the reference gets right to `cases/regressions.json`.
//!
//! Usage: `fuzz [--seed N] [--count N] [--seconds S] [--batch N] [--save]
//! [--no-features] [--language NAME]...` (a count, a time budget, or both:
//! it stops at the first reached; every available language unless some
//! are named).

use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::builder::{ArgPredicate, NonEmptyStringValueParser};
use clap::value_parser;
use parity::differential::{self, Checked, Draw, Finding};
use parity::protocol::Request;
use parity::session::Session;
use parity::suite::Suite;
use parity::table::{bless, Case};
use parity::toolchain::NotReady;

/// `make fuzz`: generated scenarios through every available language (or
/// those named), checked against the reference; a count, a time budget or
/// both (the first reached stops it), 20,000 scenarios when neither is given.
#[derive(clap::Parser)]
struct Options {
    /// The run's seed: the same seed draws the same scenarios.
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
    /// How many scenarios to check (20,000 unless --seconds is given).
    #[arg(
        long,
        value_name = "N",
        default_value = "20000",
        default_value_if("seconds", ArgPredicate::IsPresent, None)
    )]
    count: Option<u64>,
    /// How many seconds to check for.
    #[arg(long, value_name = "S")]
    seconds: Option<u64>,
    /// Scenarios drawn and sent at once.
    #[arg(long, value_name = "N", default_value_t = 4000, value_parser = value_parser!(u64).range(1..))]
    batch: u64,
    /// Append the shrunk failures the reference gets right to
    /// cases/regressions.json.
    #[arg(long)]
    save: bool,
    /// Draw no field of the optional features (for the rate they cost).
    #[arg(long)]
    no_features: bool,
    /// A language to run (repeatable).
    #[arg(long = "language", value_name = "NAME", value_parser = NonEmptyStringValueParser::new())]
    only: Vec<String>,
}

fn main() -> ExitCode {
    parity::end("fuzz", 1, run(&clap::Parser::parse()))
}

/// One language through the run: its runner, its first wrong result
/// (shrunk), and its runner's first fault, after which it gets no more
/// scenarios.
struct Lane {
    name: String,
    runner: Session,
    finding: Option<Finding>,
    fault: Option<String>,
}

/// The run: fails (with why) only when it could not check, not when a
/// language is wrong; that is the exit code.
fn run(options: &Options) -> Result<ExitCode, String> {
    let suite = Suite::from_env()?;
    // A missing toolchain is skipped unless the run is strict, as in make
    // test; any other failure to get ready is the run's.
    let missing =
        |why: &NotReady| matches!(why, NotReady::Missing { .. }) && !suite.settings.strict;
    let mut lanes: Vec<Lane> = (suite.ready_languages("fuzz", &options.only, missing)?)
        .into_iter()
        .map(|language| Lane {
            name: language.name.clone(),
            runner: suite.runner(language),
            finding: None,
            fault: None,
        })
        .collect();
    let names: Vec<&str> = lanes.iter().map(|l| l.name.as_str()).collect();
    let seed = options.seed;
    eprintln!("fuzz: seed {seed}, languages: {}", names.join(", "));

    let started = Instant::now();
    let (done, failed, rows, largest) = fuzz(options, started, &mut lanes)?;
    for lane in &lanes {
        if let Some(finding) = &lane.finding {
            println!("{}", finding.report(&lane.name));
        }
        if let Some(fault) = &lane.fault {
            println!(
                "The {} runner faulted {fault}\n(a runner fault, not a wrong result: not shrunk, not saved)\n",
                lane.name
            );
        }
    }
    if options.save {
        save(&suite, &lanes)?;
    }
    // The summary line on stdout, the one `make bench` keeps.
    let elapsed = started.elapsed().as_secs_f64();
    let faults = match lanes.iter().filter(|l| l.fault.is_some()).count() {
        0 => String::new(),
        n => format!(", {n} runner(s) faulted"),
    };
    let (languages, rate, passed) = (lanes.len(), done as f64 / elapsed, done - failed);
    let rows = rows as f64 / elapsed;
    println!(
        "fuzz: {done} scenarios cross-checked in {languages} languages in {elapsed:.1} s ({rate:.0}/s, {rows:.0} rows/s, seed {seed}): {passed} passed, {failed} failed{faults}",
    );
    let [rows, orders, run, batch, passes] = largest;
    println!("fuzz: the largest drawn: {rows} rows, {orders} orders, one message failing {run} times in a row, a batch of {batch}, {passes} passes");
    let clean = lanes
        .iter()
        .all(|l| l.finding.is_none() && l.fault.is_none());
    Ok(ExitCode::from(u8::from(!clean)))
}

/// One batch of scenario pairs: its seed, the cases and their requests,
/// made once for every runner (and drawn ahead, while the runners work on
/// the batch before), and each scenario's sizes.
type Batch = (u64, Vec<Case>, Vec<Request>, Vec<[u64; 5]>);

impl Options {
    /// Draws batch `number` (its seed derived from the run's, so a run is
    /// repeatable batch by batch) of `size` scenarios.
    fn draw(&self, number: u64, size: usize) -> Result<Batch, String> {
        let seed = self.seed.wrapping_add(number.wrapping_mul(1_000_000_007));
        let cases = differential::cases(seed, size, self.drawn())?;
        let requests = Request::cases(&cases);
        let sizes = (cases.iter().step_by(2)).map(|c| differential::sizes(&c.scenario));
        let sizes = sizes.collect();
        Ok((seed, cases, requests, sizes))
    }

    /// What the run draws.
    fn drawn(&self) -> Draw {
        Draw {
            features: !self.no_features,
            ..Draw::ALL
        }
    }

    /// The next batch's size after `done` scenarios: 0 once the count or
    /// the time budget (counted from `started`) is reached.
    fn size(&self, done: u64, started: Instant) -> usize {
        if (self.seconds).is_some_and(|s| started.elapsed() >= Duration::from_secs(s)) {
            return 0;
        }
        let left = (self.count).map_or(self.batch, |count| count.saturating_sub(done));
        left.min(self.batch) as usize
    }
}

/// The batch loop: each batch checked by every runner not yet faulted, each
/// in its own thread, while the next is drawn in another; then recorded,
/// until the options say stop. Returns the scenarios checked, how many of
/// them some language failed (each counted once), the rows drawn and the
/// largest sizes drawn.
fn fuzz(options: &Options, started: Instant, lanes: &mut [Lane]) -> Result<Totals, String> {
    let progress_in_place = std::io::stderr().is_terminal();
    let (mut done, mut failed, mut rows, mut largest) = (0, 0, 0, [0; 5]);
    let mut next = options.draw(0, options.size(0, started));
    for number in 1.. {
        // Any message goes past the progress line.
        let (seed, cases, requests, sizes) = next.inspect_err(|_| eprintln!())?;
        if cases.is_empty() {
            break;
        }
        for size in sizes {
            rows += size[0];
            largest = std::array::from_fn(|axis| largest[axis].max(size[axis]));
        }
        done += cases.len() as u64 / 2;
        let upcoming = options.size(done, started);
        let checked;
        let (cases, requests) = (&cases, &requests);
        (checked, next) = std::thread::scope(|scope| {
            let drawing = scope.spawn(|| options.draw(number, upcoming));
            let checking: Vec<_> = (lanes.iter())
                .map(|lane| {
                    scope.spawn(move || match lane.fault {
                        Some(_) => Checked::default(),
                        None => differential::check_all(&lane.runner, cases, requests),
                    })
                })
                .collect();
            let checked = (checking.into_iter())
                .map(|h| h.join().expect("a checking thread does not panic"))
                .collect();
            let drawn = drawing.join().expect("the drawing thread does not panic");
            (checked, drawn)
        });
        failed += record(lanes, checked, (seed, options.drawn()));
        let rate = done as f64 / started.elapsed().as_secs_f64();
        let line = format!("{done} scenarios, {rate:.0}/s, {failed} failed");
        if progress_in_place {
            eprint!("\r  {line}   ");
        } else {
            eprintln!("  {line}");
        }
        let _ = std::io::stderr().flush();
    }
    if progress_in_place {
        eprintln!();
    }
    Ok((done, failed, rows, largest))
}

/// What [`fuzz`] returns.
type Totals = (u64, u64, u64, [u64; 5]);

/// Adds one batch's results (drawn under `seed`) to the lanes: each
/// runner's first fault, each language's first wrong result shrunk. A
/// runner fault is the runner's: reported, never shrunk nor saved. Returns
/// how many scenarios some language failed.
fn record(lanes: &mut [Lane], checked: Vec<Checked>, (seed, drawn): (u64, Draw)) -> u64 {
    let bad: HashSet<usize> = (checked.iter())
        .flat_map(|c| &c.problems)
        .map(|p| p.index)
        .collect();
    for (lane, checked) in lanes.iter_mut().zip(checked) {
        let fault = (checked.problems.iter().find(|p| p.fault))
            .map(|p| format!("on scenario {} of seed {seed}: {}", p.index, p.text))
            .or_else(|| {
                (checked.runner_fault.as_ref())
                    .map(|why| format!("after its last answer (seed {seed}): {why}"))
            });
        if fault.is_some() {
            eprintln!(
                "\nfuzz: the {} runner faulted; it gets no more scenarios",
                lane.name
            );
            lane.fault = fault;
        }
        let wrong = checked.problems.into_iter().find(|p| !p.fault);
        if let (None, Some(problem)) = (&lane.finding, wrong) {
            eprintln!(
                "\nfuzz: {} failed scenario {} of seed {seed}; shrinking…",
                lane.name, problem.index
            );
            let drawn = (seed, drawn);
            let finding = differential::shrink(&lane.runner, drawn, problem.index, problem.text);
            lane.finding = Some(finding);
        }
    }
    bad.len() as u64
}

/// Appends to `cases/regressions.json` the shrunk cases whose `expect` the
/// reference can be trusted for, leaving the rest of the file as it is (not
/// made at all when none is). A name already in the table (in any case
/// file: a saved case may have been moved to another) is not saved again,
/// or the table would then be refused for a repeated name.
fn save(suite: &Suite, lanes: &[Lane]) -> Result<(), String> {
    let path = &suite.root.join("cases/regressions.json");
    let mut trusted = Vec::new();
    for lane in lanes {
        match &lane.finding {
            Some(finding) if finding.reference_broken.is_some() => {
                let name = &finding.shrunk.name;
                eprintln!("fuzz: not saving {name}: the reference is wrong there too");
            }
            Some(finding) => trusted.push((&lane.name, finding)),
            None => {}
        }
    }
    let specs: Vec<_> = trusted.iter().map(|(_, f)| f.shrunk.spec(true)).collect();
    let already = bless::append_new(path, &specs, &suite.cases)?;
    for ((language, finding), there) in trusted.into_iter().zip(already) {
        let name = &finding.shrunk.name;
        match there {
            Some(there) => eprintln!("fuzz: {name} is already in {}", there.display()),
            None => eprintln!(
                "fuzz: saved {name} (found in {language}) to {}",
                path.display()
            ),
        }
    }
    Ok(())
}
