//! `make fuzz`: many generated scenarios through every available language,
//! checked against the reference and the properties, with progress and a
//! summary line. A failure is shrunk and printed as a ready case; `--save`
//! appends the ones the reference gets right to `cases/regressions.json`.
//!
//! Usage: `fuzz [--seed N] [--count N] [--seconds S] [--batch N] [--save]
//! [--language NAME]...` (a count, a time budget, or both: it stops at the
//! first reached; every available language unless some are named).

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use parity::differential::{self, Finding};
use parity::protocol::Request;
use parity::session::{Runner, Session};
use parity::suite::Suite;
use parity::table::{bless, Case, Draft};
use parity::toolchain::{Language, NotReady};

struct Options {
    seed: u64,
    count: Option<u64>,
    budget: Option<Duration>,
    batch: u64,
    save: bool,
    only: Vec<String>,
}

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        seed: 1,
        count: None,
        budget: None,
        batch: 4000,
        save: false,
        only: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .filter(|v| !v.is_empty())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "--seed" => options.seed = number(&value("--seed")?)?,
            "--count" => options.count = Some(number(&value("--count")?)?),
            "--seconds" => options.budget = Some(Duration::from_secs(number(&value("--seconds")?)?)),
            "--batch" => options.batch = number(&value("--batch")?)?.max(1),
            "--save" => options.save = true,
            "--language" => options.only.push(value("--language")?),
            other => return Err(format!("unknown argument {other:?}; usage: fuzz [--seed N] [--count N] [--seconds S] [--batch N] [--save] [--language NAME]...")),
        }
    }
    if options.count.is_none() && options.budget.is_none() {
        options.count = Some(20_000);
    }
    Ok(options)
}

fn number(text: &str) -> Result<u64, String> {
    text.parse()
        .map_err(|_| format!("{text:?} is not a whole number"))
}

fn main() -> ExitCode {
    let options = match parse_args() {
        Ok(options) => options,
        Err(e) => {
            eprintln!("fuzz: {e}");
            return ExitCode::from(2);
        }
    };
    run(&options).unwrap_or_else(|e| {
        eprintln!("fuzz: {e}");
        ExitCode::FAILURE
    })
}

/// The run: fails (with why) only when it could not check, not when a
/// language is wrong; that is the exit code.
fn run(options: &Options) -> Result<ExitCode, String> {
    let root = parity::repo_root();
    let suite = Suite::from_env()?;
    // A missing toolchain is skipped unless the run is strict, as in make
    // test; any other failure to get ready is the run's.
    let missing =
        |why: &NotReady| matches!(why, NotReady::Missing { .. }) && !suite.settings.strict;
    let languages = suite.ready_languages("fuzz", &options.only, missing)?;
    let names: Vec<&str> = languages.iter().map(|l| l.name.as_str()).collect();
    eprintln!(
        "fuzz: seed {}, languages: {}",
        options.seed,
        names.join(", ")
    );

    let runners: Vec<_> = languages.iter().map(|l| suite.runner(l)).collect();
    let plan = Plan {
        options,
        started: Instant::now(),
    };
    let tally = fuzz(&plan, &languages, &runners)?;

    print_findings(&tally, &languages);
    if options.save {
        save(
            &root.join("cases/regressions.json"),
            &tally.findings,
            &suite.cases,
        )?;
    }
    print_summary(&tally, languages.len(), options.seed, plan.started);
    Ok(
        if tally.findings.is_empty() && tally.faulted.iter().all(Option::is_none) {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        },
    )
}

/// One batch of scenario pairs and their requests, made once for every
/// runner (and drawn ahead, while the runners work on the batch before).
struct Batch {
    seed: u64,
    cases: Result<Vec<Case>, String>,
    requests: Vec<Request>,
}

/// How batches are drawn and when the run stops: the options' seed, count,
/// batch size and time budget, the budget counted from `started`.
struct Plan<'o> {
    options: &'o Options,
    started: Instant,
}

impl Plan<'_> {
    /// Draws batch `number` (its seed derived from the run's, so a run is
    /// repeatable batch by batch) of `size` scenarios.
    fn draw(&self, number: u64, size: usize) -> Batch {
        let seed = self
            .options
            .seed
            .wrapping_add(number.wrapping_mul(1_000_000_007));
        let cases = differential::cases(seed, size);
        let requests = cases.as_deref().map(Request::cases).unwrap_or_default();
        Batch {
            seed,
            cases,
            requests,
        }
    }

    /// The next batch's size after `done` scenarios: 0 once the count or
    /// the time budget is reached.
    fn size(&self, done: u64) -> usize {
        let left = self
            .options
            .count
            .map_or(self.options.batch, |count| count.saturating_sub(done));
        let out_of_time = self
            .options
            .budget
            .is_some_and(|budget| self.started.elapsed() >= budget);
        if out_of_time {
            0
        } else {
            left.min(self.options.batch) as usize
        }
    }
}

/// What the run has found so far, kept across batches for the progress
/// line, the report and the exit code.
struct Tally {
    done: u64,
    failed_scenarios: u64,
    /// Per language, its first wrong result, shrunk.
    findings: Vec<(String, Finding)>,
    /// Per language, its runner's first fault: no more scenarios after it.
    faulted: Vec<Option<String>>,
}

/// The batch loop: each batch checked by every runner at once while the
/// next is drawn, then recorded, until the plan says stop.
fn fuzz(plan: &Plan, languages: &[&Language], runners: &[Session]) -> Result<Tally, String> {
    let progress_in_place = std::io::stderr().is_terminal();
    let mut tally = Tally {
        done: 0,
        failed_scenarios: 0,
        findings: Vec::new(),
        faulted: vec![None; languages.len()],
    };
    let mut batch_number: u64 = 0;
    let mut next = Some(plan.draw(0, plan.size(0)));
    while let Some(Batch {
        seed,
        cases,
        requests,
    }) = next.take()
    {
        let cases = match cases {
            Ok(cases) if cases.is_empty() => break,
            Ok(cases) => cases,
            Err(why) => {
                // Past the progress line, as any message after it.
                eprintln!();
                return Err(why);
            }
        };
        batch_number += 1;
        let size = cases.len() / 2;
        let upcoming = plan.size(tally.done + size as u64);
        let ahead = (upcoming > 0).then_some(|| plan.draw(batch_number, upcoming));
        let checked;
        (checked, next) = check_batch(runners, &tally.faulted, &cases, &requests, ahead);
        tally.record(languages, runners, checked, seed);
        tally.done += size as u64;
        progress(&tally, plan.started, progress_in_place);
    }
    if progress_in_place {
        eprintln!();
    }
    Ok(tally)
}

/// Runs one batch through every runner not yet faulted, each in its own
/// thread, while `ahead` (if any) draws the next batch in another.
fn check_batch(
    runners: &[Session],
    faulted: &[Option<String>],
    cases: &[Case],
    requests: &[Request],
    ahead: Option<impl FnOnce() -> Batch + Send>,
) -> (Vec<differential::Checked>, Option<Batch>) {
    std::thread::scope(|scope| {
        let drawing = ahead.map(|draw| scope.spawn(draw));
        let handles: Vec<_> = runners
            .iter()
            .zip(faulted)
            .map(|(runner, faulted)| {
                scope.spawn(move || {
                    if faulted.is_some() {
                        differential::Checked::default()
                    } else {
                        differential::check_all(runner, cases, requests)
                    }
                })
            })
            .collect();
        let checked: Vec<differential::Checked> = handles
            .into_iter()
            .map(|h| h.join().expect("a checking thread does not panic"))
            .collect();
        (
            checked,
            drawing.map(|h| h.join().expect("the drawing thread does not panic")),
        )
    })
}

impl Tally {
    /// Adds one batch's results (drawn under `seed`): its failed scenarios
    /// counted once however many languages fail them, each runner's first
    /// fault, each language's first wrong result shrunk.
    fn record(
        &mut self,
        languages: &[&Language],
        runners: &[Session],
        checked: Vec<differential::Checked>,
        seed: u64,
    ) {
        let mut bad: Vec<usize> = checked
            .iter()
            .flat_map(|c| &c.problems)
            .map(|p| p.index)
            .collect();
        bad.sort_unstable();
        bad.dedup();
        self.failed_scenarios += bad.len() as u64;
        for ((language, runner), (checked, faulted)) in languages
            .iter()
            .zip(runners)
            .zip(checked.into_iter().zip(self.faulted.iter_mut()))
        {
            if let Some(fault) = fault_of(&checked, seed) {
                eprintln!(
                    "\nfuzz: the {} runner faulted; it gets no more scenarios",
                    language.name
                );
                *faulted = Some(fault);
            }
            let already = self.findings.iter().any(|(name, _)| *name == language.name);
            let wrong = checked.problems.into_iter().find(|p| !p.fault);
            if let (false, Some(problem)) = (already, wrong) {
                eprintln!(
                    "\nfuzz: {} failed scenario {} of seed {seed}; shrinking…",
                    language.name, problem.index
                );
                self.findings.push((
                    language.name.clone(),
                    differential::shrink(runner as &dyn Runner, seed, problem.index, problem.text),
                ));
            }
        }
    }
}

/// A runner's fault in one batch, worded for the report. A runner fault is
/// the runner's: reported, never shrunk nor saved, and the runner is given
/// no more scenarios.
fn fault_of(checked: &differential::Checked, seed: u64) -> Option<String> {
    checked
        .problems
        .iter()
        .find(|p| p.fault)
        .map(|p| format!("on scenario {} of seed {seed}: {}", p.index, p.text))
        .or_else(|| {
            checked
                .runner_fault
                .as_ref()
                .map(|why| format!("after its last answer (seed {seed}): {why}"))
        })
}

/// The progress line after a batch: rewritten in place on a terminal, one
/// line a batch in a log.
fn progress(tally: &Tally, started: Instant, in_place: bool) {
    let done = tally.done;
    let rate = done as f64 / started.elapsed().as_secs_f64();
    let line = format!(
        "{done} scenarios, {rate:.0}/s, {} failed",
        tally.failed_scenarios
    );
    if in_place {
        eprint!("\r  {line}   ");
    } else {
        eprintln!("  {line}");
    }
    let _ = std::io::stderr().flush();
}

/// Prints each language's shrunk finding as a ready case, then each
/// runner fault (which has none).
fn print_findings(tally: &Tally, languages: &[&Language]) {
    for (language, finding) in &tally.findings {
        println!("{}", finding.report(language));
    }
    for (language, fault) in languages.iter().zip(&tally.faulted) {
        if let Some(fault) = fault {
            println!(
                "The {} runner faulted {fault}\n(a runner fault, not a wrong result: not shrunk, not saved)\n",
                language.name
            );
        }
    }
}

/// The summary line on stdout, the one `make bench` keeps.
fn print_summary(tally: &Tally, languages: usize, seed: u64, started: Instant) {
    let Tally {
        done,
        failed_scenarios,
        ..
    } = *tally;
    let elapsed = started.elapsed().as_secs_f64();
    let runner_faults = tally.faulted.iter().filter(|f| f.is_some()).count();
    let faults = if runner_faults == 0 {
        String::new()
    } else {
        format!(", {runner_faults} runner(s) faulted")
    };
    println!(
        "fuzz: {done} scenarios cross-checked in {languages} languages in {elapsed:.1} s ({:.0}/s, seed {seed}): {} passed, {failed_scenarios} failed{faults}",
        done as f64 / elapsed,
        done - failed_scenarios
    );
}

/// Appends the shrunk cases whose `expect` the reference can be trusted for,
/// leaving the rest of the file as it is. A name already in the table (in
/// any case file: a saved case may have been moved to another) is not
/// saved again, or the table would then be refused for a repeated name.
fn save(
    path: &std::path::Path,
    findings: &[(String, Finding)],
    table: &[Case],
) -> Result<(), String> {
    let mut new: Vec<(Draft, &str)> = Vec::new();
    for (language, finding) in findings {
        if finding.reference_is_right {
            let case = finding.shrunk.clone();
            new.push((
                Draft {
                    case,
                    has_expect: true,
                },
                language,
            ));
        } else {
            let name = &finding.shrunk.name;
            eprintln!("fuzz: not saving {name}: the reference is wrong there too");
        }
    }
    if new.is_empty() {
        // Nothing to add: the file is left as it is (or not made at all).
        return Ok(());
    }
    let drafts: Vec<Draft> = new.iter().map(|(draft, _)| draft.clone()).collect();
    let already = bless::append_new(path, &drafts, table)?;
    for ((draft, language), there) in new.iter().zip(already) {
        let name = &draft.case.name;
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
