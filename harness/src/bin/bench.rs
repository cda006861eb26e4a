//! `make bench` (after `make fuzz`'s throughput line): what the suite and
//! each port cost.
//!
//! - the warm parity run's wall time, with and without the generated
//!   scenarios, beside the bare start-up time of each runtime, so the
//!   harness's own overhead is visible;
//! - relay scaling: each runner drains a table it builds itself (N messages
//!   over 100 orders, batch 100, a lost ack every 100 attempts) for N = 10^3
//!   to 10^6, checked against the reference's counts, in ns per message.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use outbox_runner::bench::{self, Bench};
use outbox_runner::protocol::BenchRequest;
use parity::exec::{self, Stdin};
use parity::suite::Suite;
use parity::toolchain::Language;
use serde_json::Value;

const SIZES: [u64; 4] = [1_000, 10_000, 100_000, 1_000_000];
/// Orders the messages are spread over.
const AGGREGATES: u64 = 100;
/// Rows per pass.
const BATCH: u64 = 100;
/// Every this many attempts loses its ack. The failure script has N / this
/// entries, looked up on every publish; at 10 it grows to 200,000 entries,
/// and in Go and TypeScript, whose maps scatter integer keys, each lookup
/// then misses the cache and dominates the cost per message.
const LOST_ACK_EVERY: u64 = 100;
/// Each size runs this many times; the best run is reported, the one least
/// disturbed by the rest of the machine (a VM's neighbours are noisy here).
const REPEATS: usize = 5;

fn main() -> ExitCode {
    let suite = match Suite::from_env() {
        Ok(suite) => suite,
        Err(e) => {
            eprintln!("bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    let languages: Vec<&Language> = suite
        .languages
        .iter()
        .filter(|language| match suite.prepare(language) {
            Ok(()) => true,
            Err(_) => {
                eprintln!("bench: skipping {}: not available", language.name);
                false
            }
        })
        .collect();

    println!("## Warm parity run (make parity), median of 5");
    let with = median_wall(&suite, 5, &[]);
    let without = median_wall(&suite, 5, &["--skip", "generated"]);
    println!(
        "  all trials:                      {:>6.2} s",
        with.as_secs_f64()
    );
    println!(
        "  without the generated scenarios: {:>6.2} s  (generated: {:.2}x)",
        without.as_secs_f64(),
        with.as_secs_f64() / without.as_secs_f64()
    );
    println!("\n## Bare start-up of each runner (empty input), median of 10");
    for language in &languages {
        let runner = suite.runner(language);
        let times: Vec<Duration> = (0..10)
            .map(|_| {
                let started = Instant::now();
                let _ = exec::run(&runner.command, Stdin::Bytes(Vec::new()));
                started.elapsed()
            })
            .collect();
        println!(
            "  {:<12} {:>6.1} ms",
            language.name,
            median(times).as_secs_f64() * 1000.0
        );
    }

    println!(
        "\n## Relay scaling: ns per message, best of {REPEATS} ({AGGREGATES} orders, batch {BATCH}, a lost ack every {LOST_ACK_EVERY} attempts)"
    );
    print!("  {:<12}", "language");
    for n in SIZES {
        print!(" {:>10}", format!("N={n}"));
    }
    println!("   10^6 / 10^4");
    let mut all_linear = true;
    for language in &languages {
        match scaling(&suite, language) {
            Ok(per_message) => {
                print!("  {:<12}", language.name);
                for ns in &per_message {
                    print!(" {ns:>10.0}");
                }
                let ratio = per_message[3] / per_message[1];
                let verdict = if ratio <= 1.5 { "ok" } else { "OVER 1.5x" };
                all_linear &= ratio <= 1.5;
                println!("   {ratio:.2}x {verdict}");
            }
            Err(e) => {
                all_linear = false;
                println!("  {:<12} failed: {e}", language.name);
            }
        }
    }
    if all_linear {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn median_wall(suite: &Suite, runs: usize, skip: &[&str]) -> Duration {
    let argv: Vec<String> = [
        "cargo",
        "test",
        "--quiet",
        "--release",
        "--package",
        "parity",
        "--test",
        "parity",
        "--",
        "--quiet",
    ]
    .iter()
    .chain(skip)
    .map(|s| (*s).to_owned())
    .collect();
    let command = exec::Command {
        label: "the parity run".to_owned(),
        argv,
        dir: suite.root.clone(),
        deadline: Duration::from_secs(1800),
        keep: 4096,
    };
    let _ = exec::run(&command, Stdin::Null);
    let times = (0..runs)
        .map(|_| {
            let started = Instant::now();
            let _ = exec::run(&command, Stdin::Null);
            started.elapsed()
        })
        .collect();
    median(times)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// ns per message for each size, after checking the counts against the
/// reference's.
fn scaling(suite: &Suite, language: &Language) -> Result<Vec<f64>, String> {
    let mut runner = suite.runner(language).command;
    runner.deadline = Duration::from_secs(1800);
    let benches: Vec<Bench> = SIZES
        .iter()
        .map(|&n| Bench {
            messages: n,
            aggregates: AGGREGATES,
            batch_size: BATCH,
            lost_ack_every: LOST_ACK_EVERY,
        })
        .collect();
    let mut input = String::new();
    for _ in 0..REPEATS {
        for bench in &benches {
            input.push_str(&BenchRequest::new(&format!("bench-{}", bench.messages), bench).line());
            input.push('\n');
        }
    }
    let output = exec::run(&runner, Stdin::Bytes(input.into_bytes())).map_err(|e| e.to_string())?;
    if !output.success() {
        return Err(format!("{}: {}", output.describe(), output.stderr.text()));
    }
    let stdout = output.stdout.text();
    let answers: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).map_err(|e| format!("{e}: {line}")))
        .collect::<Result<_, _>>()?;
    if answers.len() != SIZES.len() * REPEATS {
        return Err(format!(
            "{} answers for {} requests",
            answers.len(),
            SIZES.len() * REPEATS
        ));
    }
    let expected: Vec<bench::Report> = benches.iter().map(bench::run).collect();
    let mut per_size: Vec<Vec<f64>> = vec![Vec::new(); SIZES.len()];
    for (i, answer) in answers.iter().enumerate() {
        let n = SIZES[i % SIZES.len()];
        let expected = &expected[i % SIZES.len()];
        for (field, want) in [
            ("sent", expected.sent),
            ("duplicates", expected.duplicates),
            ("passes", expected.passes),
        ] {
            if answer[field].as_u64() != Some(want) {
                return Err(format!(
                    "N={n}: {field} is {}, the reference says {want}",
                    answer[field]
                ));
            }
        }
        let elapsed = answer["elapsed_ns"]
            .as_f64()
            .ok_or_else(|| format!("no elapsed_ns in {answer}"))?;
        per_size[i % SIZES.len()].push(elapsed / n as f64);
    }
    Ok(per_size
        .into_iter()
        .map(|values| values.into_iter().fold(f64::INFINITY, f64::min))
        .collect())
}
