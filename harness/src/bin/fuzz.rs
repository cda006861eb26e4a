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
use parity::session::Runner;
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
    let root = parity::repo_root();
    let suite = match Suite::from_env() {
        Ok(suite) => suite,
        Err(e) => {
            eprintln!("fuzz: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut languages: Vec<&Language> = Vec::new();
    for language in &suite.languages {
        if !options.only.is_empty() && !options.only.contains(&language.name) {
            continue;
        }
        match suite.prepare(language) {
            Ok(()) => languages.push(language),
            Err(why @ NotReady::Missing { .. }) if !suite.settings.strict => {
                eprintln!("fuzz: skipping {}: {why}", language.name)
            }
            Err(why) => {
                eprintln!("fuzz: {why}");
                return ExitCode::FAILURE;
            }
        }
    }
    let names: Vec<&str> = languages.iter().map(|l| l.name.as_str()).collect();
    eprintln!(
        "fuzz: seed {}, languages: {}",
        options.seed,
        names.join(", ")
    );

    let runners: Vec<_> = languages.iter().map(|l| suite.runner(l)).collect();
    let started = Instant::now();
    let progress_in_place = std::io::stderr().is_terminal();
    let mut done: u64 = 0;
    let mut batch_number: u64 = 0;
    let mut findings: Vec<(String, Finding)> = Vec::new();
    let mut failed_scenarios: u64 = 0;
    // Per language, its runner's first fault: no more scenarios after it.
    let mut faulted: Vec<Option<String>> = vec![None; languages.len()];
    // The next batch is drawn while the runners work on this one.
    let draw = |number: u64, size: usize| {
        let seed = options
            .seed
            .wrapping_add(number.wrapping_mul(1_000_000_007));
        let cases = differential::cases(seed, size);
        let requests = cases.as_deref().map(Request::cases).unwrap_or_default();
        (seed, cases, requests)
    };
    let batch_size = |done: u64| {
        let left = options
            .count
            .map_or(options.batch, |count| count.saturating_sub(done));
        let out_of_time = options
            .budget
            .is_some_and(|budget| started.elapsed() >= budget);
        if out_of_time {
            0
        } else {
            left.min(options.batch) as usize
        }
    };
    let mut next = Some(draw(0, batch_size(0)));
    while let Some((seed, cases, requests)) = next.take() {
        let cases = match cases {
            Ok(cases) if cases.is_empty() => break,
            Ok(cases) => cases,
            Err(why) => {
                eprintln!("\nfuzz: {why}");
                return ExitCode::FAILURE;
            }
        };
        batch_number += 1;
        let size = cases.len() / 2;
        let upcoming = batch_size(done + size as u64);
        let (checked, drawn) = std::thread::scope(|scope| {
            let drawing = (upcoming > 0).then(|| scope.spawn(|| draw(batch_number, upcoming)));
            let handles: Vec<_> = runners
                .iter()
                .zip(&faulted)
                .map(|(runner, faulted)| {
                    scope.spawn(|| {
                        if faulted.is_some() {
                            differential::Checked::default()
                        } else {
                            differential::check_all(runner, &cases, &requests)
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
        });
        next = drawn;
        let mut bad: Vec<usize> = checked
            .iter()
            .flat_map(|c| &c.problems)
            .map(|p| p.index)
            .collect();
        bad.sort_unstable();
        bad.dedup();
        failed_scenarios += bad.len() as u64;
        for ((language, runner), (checked, faulted)) in languages
            .iter()
            .zip(&runners)
            .zip(checked.into_iter().zip(faulted.iter_mut()))
        {
            // A runner fault is the runner's: reported, never shrunk nor
            // saved, and the runner is given no more scenarios.
            let fault = checked
                .problems
                .iter()
                .find(|p| p.fault)
                .map(|p| format!("on scenario {} of seed {seed}: {}", p.index, p.text))
                .or_else(|| {
                    checked
                        .runner_fault
                        .map(|why| format!("after its last answer (seed {seed}): {why}"))
                });
            if let Some(fault) = fault {
                eprintln!(
                    "\nfuzz: the {} runner faulted; it gets no more scenarios",
                    language.name
                );
                *faulted = Some(fault);
            }
            let already = findings.iter().any(|(name, _)| *name == language.name);
            let wrong = checked.problems.into_iter().find(|p| !p.fault);
            if let (false, Some(problem)) = (already, wrong) {
                eprintln!(
                    "\nfuzz: {} failed scenario {} of seed {seed}; shrinking…",
                    language.name, problem.index
                );
                findings.push((
                    language.name.clone(),
                    differential::shrink(runner as &dyn Runner, seed, problem.index, problem.text),
                ));
            }
        }
        done += size as u64;
        let rate = done as f64 / started.elapsed().as_secs_f64();
        let line = format!("{done} scenarios, {rate:.0}/s, {failed_scenarios} failed");
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

    for (language, finding) in &findings {
        println!("{}", finding.report(language));
    }
    for (language, fault) in languages.iter().zip(&faulted) {
        if let Some(fault) = fault {
            println!(
                "The {} runner faulted {fault}\n(a runner fault, not a wrong result: not shrunk, not saved)\n",
                language.name
            );
        }
    }
    if options.save {
        if let Err(e) = save(
            &root.join("cases/regressions.json"),
            &findings,
            &suite.cases,
        ) {
            eprintln!("fuzz: {e}");
            return ExitCode::FAILURE;
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    let runner_faults = faulted.iter().filter(|f| f.is_some()).count();
    let faults = if runner_faults == 0 {
        String::new()
    } else {
        format!(", {runner_faults} runner(s) faulted")
    };
    println!(
        "fuzz: {done} scenarios cross-checked in {} languages in {elapsed:.1} s ({:.0}/s, seed {}): {} passed, {failed_scenarios} failed{faults}",
        languages.len(),
        done as f64 / elapsed,
        options.seed,
        done - failed_scenarios
    );
    if findings.is_empty() && faulted.iter().all(Option::is_none) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
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
        let name = &finding.shrunk.name;
        if !finding.reference_is_right {
            eprintln!("fuzz: not saving {name}: the reference is wrong there too");
        } else {
            let case = finding.shrunk.clone();
            new.push((
                Draft {
                    case,
                    has_expect: true,
                },
                language,
            ));
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
