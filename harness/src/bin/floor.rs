//! `make floor` (and `make bench`'s side-by-side figure): the work of a
//! warm `make test` without the harness, to measure its overhead against.
//! Every language of the harness's own list (so the two cannot drift), each
//! process it would start, started here directly, all at once: the runner
//! over the whole table, the generated scenarios and the protocol's
//! refusals, the demo on its two configs, the demo on each bad
//! config, and the unit suite. Nothing is judged; answers are only counted
//! and exit codes checked, so a floor that did less work is caught. The
//! preparation (probes, builds, writing the configs) is done first and not
//! timed: those are the harness's overhead as much as its checks.
//!
//! Prints the wall time in seconds on stdout (`--runs N`: N times, one
//! line each).

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use parity::exec::{self, Stdin};
use parity::judge::demo::BAD_CONFIG_EXIT;
use parity::protocol::{self, Request};
use parity::suite::executor::DEMO_CONFIG;
use parity::suite::{Executor, Suite};

/// How long any one process may take: far more than any does, so only a
/// hang meets it (its group is then killed, and the run is a failure).
const DEADLINE: Duration = Duration::from_secs(1800);

/// What is kept of a process's output: enough for the runner's answers to
/// the whole table, which are counted.
const KEEP: usize = 256 * 1024 * 1024;

/// One process to start: the command the harness would start, its stdin,
/// how many answer lines it must print (`None`: any) and the exit code it
/// must give.
type Job = (exec::Command, Stdin, Option<usize>, i32);

/// `make floor`: the processes of a warm `make test` started directly;
/// prints the wall time in seconds.
#[derive(clap::Parser)]
struct Options {
    /// How many times to run the work, one line each.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    runs: u64,
}

fn main() -> ExitCode {
    let Options { runs } = clap::Parser::parse();
    let timed = jobs().and_then(|jobs| {
        (0..runs).try_for_each(|_| {
            let started = Instant::now();
            let problems = run(&jobs);
            let elapsed = started.elapsed().as_secs_f64();
            if !problems.is_empty() {
                let problems = problems.join("\n  ");
                return Err(format!("the work was not done:\n  {problems}"));
            }
            println!("{elapsed:.3}");
            Ok(())
        })
    });
    parity::end("floor", 1, timed.map(|()| ExitCode::SUCCESS))
}

/// Every process a warm `make test` starts for the ports, ready to start.
fn jobs() -> Result<Vec<Job>, String> {
    let executor = Executor::new(std::sync::Arc::new(Suite::from_env()?));
    let suite = &executor.suite;
    let generated = (suite.generated_cases(suite.reference())).map_err(str::to_owned)?;
    let mut all = Request::cases(suite.cases.iter().chain(generated));
    all.extend(protocol::refusal_requests());
    let count = all.len();
    let requests = Request::input(&all);
    let fixtures = executor.fixtures()?;
    let mut jobs: Vec<Job> = Vec::new();
    // Every language, as make test's: one that is not ready is an error.
    for ready in suite.ready_languages("floor", &[], |_| false)? {
        let runner = suite.runner(ready).command;
        jobs.push((runner, Stdin::Bytes(requests.clone()), Some(count), 0));
        for config in [Path::new(DEMO_CONFIG), &fixtures.second] {
            jobs.push((executor.demo_command(ready, config), Stdin::Null, None, 0));
        }
        for config in &fixtures.bad {
            let demo = executor.demo_command(ready, config);
            jobs.push((demo, Stdin::Null, None, BAD_CONFIG_EXIT));
        }
        jobs.push((executor.unit_command(ready), Stdin::Null, None, 0));
    }
    for (command, ..) in &mut jobs {
        (command.deadline, command.keep) = (DEADLINE, KEEP);
    }
    Ok(jobs)
}

/// Starts every job at once and waits for all; what went wrong, if any.
fn run(jobs: &[Job]) -> Vec<String> {
    let done = exec::side_by_side(jobs, start_and_wait);
    done.into_iter().filter_map(Result::err).collect()
}

/// Runs a job through [`exec::run`], as the harness runs it (its own
/// group, a deadline, bounded output); `Err` says what went wrong.
fn start_and_wait((command, stdin, lines, code): &Job) -> Result<(), String> {
    let shown = command.argv.join(" ");
    let output = exec::run(command, stdin.clone());
    let output = output.map_err(|e| format!("`{shown}` could not start: {e}"))?;
    let exited = output.status.and_then(|s| s.code());
    if exited != Some(*code) {
        return Err(format!("`{shown}` exited {exited:?}, not {code}"));
    }
    let cut = || format!("`{shown}` printed more than {KEEP} bytes");
    let stdout = output.stdout.whole().ok_or_else(cut)?;
    let printed = stdout.iter().filter(|&&b| b == b'\n').count();
    match lines {
        Some(want) if *want != printed => {
            Err(format!("`{shown}` printed {printed} lines, not {want}"))
        }
        _ => Ok(()),
    }
}
