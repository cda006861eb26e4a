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
//! line each); `FLOOR_VERBOSE=1` also prints each process's on stderr.

use std::io::{Read, Write};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use parity::protocol::{self, Request};
use parity::suite::Suite;
use parity::table::Case;

/// One process to start: its command line, its stdin, and how many answer
/// lines it must print (`None`: any) and the exit code it must give.
struct Job {
    argv: Vec<String>,
    input: Vec<u8>,
    lines: Option<usize>,
    code: i32,
}

fn main() -> ExitCode {
    let runs = match std::env::args().skip(1).collect::<Vec<_>>().as_slice() {
        [] => 1,
        [flag, n] if flag == "--runs" => match n.parse::<usize>() {
            Ok(n) if n >= 1 => n,
            _ => return usage(),
        },
        _ => return usage(),
    };
    let jobs = match jobs() {
        Ok(jobs) => jobs,
        Err(why) => {
            eprintln!("floor: {why}");
            return ExitCode::FAILURE;
        }
    };
    for _ in 0..runs {
        let started = Instant::now();
        let problems = run(&jobs);
        let elapsed = started.elapsed();
        if !problems.is_empty() {
            eprintln!("floor: the work was not done:\n  {}", problems.join("\n  "));
            return ExitCode::FAILURE;
        }
        println!("{:.3}", elapsed.as_secs_f64());
    }
    ExitCode::SUCCESS
}

fn usage() -> ExitCode {
    eprintln!("usage: floor [--runs N]");
    ExitCode::from(2)
}

/// Every process a warm `make test` starts for the ports, ready to start.
fn jobs() -> Result<Vec<Job>, String> {
    let suite = Suite::from_env()?;
    let generated = suite.generated_cases().map_err(str::to_owned)?;
    let table: Vec<&Case> = suite.cases.iter().chain(generated).collect();
    let mut requests = String::new();
    let mut all = Request::cases(table.iter().copied());
    all.extend(protocol::refusal_requests());
    let count = all.len();
    for request in all {
        requests.push_str(&request.line);
        requests.push('\n');
    }
    let fixtures = suite.fixtures()?;
    let mut jobs = Vec::new();
    for port in &suite.ports {
        let ready = suite
            .ready(port)
            .map_err(|why| format!("{}: {why}", port.name()))?;
        let with = |argv: &[String], arg: &str| {
            let mut argv = argv.to_vec();
            argv.push(arg.to_owned());
            argv
        };
        jobs.push(Job {
            argv: ready.runner.clone(),
            input: requests.clone().into_bytes(),
            lines: Some(count),
            code: 0,
        });
        for config in [&suite.demo.config, &fixtures.second] {
            jobs.push(Job {
                argv: with(&ready.demo, &config.to_string_lossy()),
                input: Vec::new(),
                lines: None,
                code: 0,
            });
        }
        for config in &fixtures.bad {
            jobs.push(Job {
                argv: with(&ready.demo, &config.path.to_string_lossy()),
                input: Vec::new(),
                lines: None,
                code: parity::judge::demo::BAD_CONFIG_EXIT,
            });
        }
        jobs.push(Job {
            argv: ready.unit.clone(),
            input: Vec::new(),
            lines: None,
            code: 0,
        });
    }
    std::env::set_current_dir(&suite.root).map_err(|e| e.to_string())?;
    Ok(jobs)
}

/// Starts every job at once and waits for all; what went wrong, if any.
fn run(jobs: &[Job]) -> Vec<String> {
    std::thread::scope(|scope| {
        let running: Vec<_> = jobs.iter().map(|job| scope.spawn(|| one(job))).collect();
        running
            .into_iter()
            .filter_map(|thread| {
                thread
                    .join()
                    .unwrap_or_else(|_| Some("a thread panicked".into()))
            })
            .collect()
    })
}

fn one(job: &Job) -> Option<String> {
    let started = Instant::now();
    let problem = start_and_wait(job);
    if std::env::var_os("FLOOR_VERBOSE").is_some() {
        eprintln!(
            "{:>7.3} s  {}",
            started.elapsed().as_secs_f64(),
            job.argv.join(" ")
        );
    }
    problem
}

fn start_and_wait(job: &Job) -> Option<String> {
    let shown = job.argv.join(" ");
    let mut child = match Command::new(&job.argv[0])
        .args(&job.argv[1..])
        .stdin(if job.input.is_empty() {
            Stdio::null()
        } else {
            Stdio::piped()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => return Some(format!("`{shown}` could not start: {e}")),
    };
    let stdin = child.stdin.take();
    let input = &job.input;
    let mut stderr = child.stderr.take();
    let (stdout, status) = std::thread::scope(|scope| {
        scope.spawn(move || {
            if let Some(mut stdin) = stdin {
                let _ = stdin.write_all(input);
            }
        });
        scope.spawn(move || {
            let mut sink = Vec::new();
            if let Some(stderr) = stderr.as_mut() {
                let _ = stderr.read_to_end(&mut sink);
            }
        });
        let mut stdout = Vec::new();
        if let Some(mut out) = child.stdout.take() {
            let _ = out.read_to_end(&mut stdout);
        }
        (stdout, child.wait())
    });
    let code = status.ok().and_then(|s| s.code());
    if code != Some(job.code) {
        return Some(format!("`{shown}` exited {code:?}, not {}", job.code));
    }
    let lines = stdout.iter().filter(|&&b| b == b'\n').count();
    match job.lines {
        Some(want) if want != lines => Some(format!("`{shown}` printed {lines} lines, not {want}")),
        _ => None,
    }
}
