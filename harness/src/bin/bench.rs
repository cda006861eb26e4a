//! `make bench` (after `make fuzz`'s throughput line): what the suite and
//! each port cost, measured in one run so the figures share the machine's
//! load (printed before and after):
//!
//! - warm `make test` (every trial) side by side with the floor (the same
//!   processes started directly, `target/release/floor`), runs interleaved;
//!   their ratio is the harness's overhead;
//! - each trial kind's CPU cost per language (less sensitive to a busy
//!   machine than wall time), and `make test T=.../<language>`;
//! - the bare start-up time of each runner.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use parity::config::{trial_name, Kind, PREFIX};
use parity::exec::{self, Stdin};
use parity::suite::{Port, Suite};

/// Runs of warm `make test` and of the floor, interleaved.
const SIDE_BY_SIDE: usize = 7;

fn main() -> ExitCode {
    let Ok(suite) = Suite::from_env().inspect_err(|e| eprintln!("bench: {e}")) else {
        return ExitCode::FAILURE;
    };
    // A bench measures what it can: any language not ready is skipped,
    // strict or not (so this cannot fail).
    let languages = (suite.ready_languages("bench", &[], |_| true)).unwrap_or_default();

    println!("load average before: {}", load());
    side_by_side(&suite);
    trial_costs(&suite, &languages);
    start_ups(&suite, &languages);
    println!("\nload average after: {}", load());
    ExitCode::SUCCESS
}

/// `make test` quietly, with `filter` (`T=…`, `ARGS=…`) as make variables.
fn make_test(suite: &Suite, filter: &[&str]) -> exec::Command {
    let mut argv = vec!["make", "-s", "--no-print-directory", "test"];
    argv.extend(filter);
    command(suite, &argv)
}

/// Warm `make test` and the floor, runs interleaved so both see the same
/// load, and their ratio: the harness's overhead.
fn side_by_side(suite: &Suite) {
    println!(
        "\n## Warm make test (every trial) and the floor, median of {SIDE_BY_SIDE}, interleaved"
    );
    let all = make_test(suite, &[]);
    let floor = command(suite, &["target/release/floor"]);
    let _ = exec::run(&all, Stdin::Null);
    let mut runs = [Vec::new(), Vec::new()];
    for _ in 0..SIDE_BY_SIDE {
        runs[0].push(measure(&all));
        runs[1].push(measure(&floor));
    }
    let [test, floor] = runs.each_ref().map(|runs| Cost::median(runs));
    for (label, runs, cost) in [("make test:", &runs[0], test), ("floor:", &runs[1], floor)] {
        let shown: Vec<String> = runs.iter().map(|c| format!("{:.2}", c.wall)).collect();
        let (wall, cpu, shown) = (cost.wall, cost.cpu, shown.join(" "));
        println!("  {label:<11}{wall:>6.2} s, CPU {cpu:>5.2} s  (runs: {shown})");
    }
    println!(
        "  overhead:  {:.2}x the floor's wall time, {:.2}x its CPU time",
        test.wall / floor.wall,
        test.cpu / floor.cpu
    );
}

/// The table of each trial kind's CPU cost per language, less what an
/// empty selection costs (the harness's own start), and each language's
/// whole wall time.
fn trial_costs(suite: &Suite, languages: &[&Port]) {
    println!("\n## CPU time of each trial kind, s (make test T=<trial> ARGS=--exact, user + sys of every process, median of 3, less an empty selection's); the last column: wall time of make test T=.../<language>");
    let empty = median_of(3, &make_test(suite, &["T=no-trial-has-this-name"])).cpu;
    println!("  (an empty selection: CPU {empty:.2} s)");
    print!("  {:<12}", "language");
    // The columns: `cases` is every case of the table, then the harness's
    // other [`Kind`]s of trial.
    for kind in std::iter::once("cases").chain(Kind::ALL.map(Kind::name)) {
        print!(" {kind:>11}");
    }
    println!(" {:>11}", "T=language");
    for language in languages {
        trial_row(suite, language, empty);
    }
}

/// One language's row of [`trial_costs`].
fn trial_row(suite: &Suite, language: &Port, empty: f64) {
    print!("  {:<12}", language.name);
    let every_case = format!("T={PREFIX}/{}/", language.name);
    let cases = [
        every_case.clone(),
        format!("ARGS={}", Kind::skip_all().join(" ")),
    ];
    let kinds = (Kind::ALL).map(|kind| {
        let trial = trial_name(&language.name, kind.name());
        [format!("T={trial}"), "ARGS=--exact".to_owned()]
    });
    for [filter, args] in std::iter::once(cases).chain(kinds) {
        let cost = median_of(3, &make_test(suite, &[&filter, &args])).cpu;
        print!(" {:>11.2}", (cost - empty).max(0.0));
    }
    let whole = make_test(suite, &[&every_case]);
    println!(" {:>11.2}", median_of(3, &whole).wall);
}

/// Each runner's bare start-up (empty input): the floor under every case.
fn start_ups(suite: &Suite, languages: &[&Port]) {
    println!("\n## Bare start-up of each runner (empty input), median of 10");
    for language in languages {
        let start_up = median_of(10, &suite.runner(language).command).wall;
        println!("  {:<12} {:>6.1} ms", language.name, start_up * 1000.0);
    }
}

/// A command from the repository root with a generous deadline.
fn command(suite: &Suite, argv: &[&str]) -> exec::Command {
    let owned = argv.iter().map(|s| (*s).to_owned()).collect();
    let deadline = Duration::from_secs(1800);
    exec::Command::new(argv.join(" "), owned, &suite.root, deadline)
}

/// What one run cost, in seconds (what is printed): its wall time, and the
/// CPU time (user + sys) of every process it started (each waited for, so
/// counted as a child).
#[derive(Debug, Clone, Copy)]
struct Cost {
    wall: f64,
    cpu: f64,
}

impl Cost {
    /// The median wall time and the median CPU time of `runs`.
    fn median(runs: &[Cost]) -> Cost {
        let median = |of: fn(&Cost) -> f64| {
            let mut times: Vec<f64> = runs.iter().map(of).collect();
            times.sort_by(f64::total_cmp);
            times[times.len() / 2]
        };
        Cost {
            wall: median(|c| c.wall),
            cpu: median(|c| c.cpu),
        }
    }
}

/// The median cost of `n` runs of `command`.
fn median_of(n: usize, command: &exec::Command) -> Cost {
    Cost::median(&Vec::from_iter((0..n).map(|_| measure(command))))
}

/// What one run (stdin empty) cost; a run that fails is reported, since
/// its time would be meaningless.
fn measure(command: &exec::Command) -> Cost {
    let before = children_cpu();
    let started = Instant::now();
    match exec::run(command, Stdin::Null) {
        Ok(output) if output.success() => {}
        Ok(output) => eprintln!(
            "bench: `{}` failed ({}):\n{}",
            command.label,
            output.describe(),
            parity::text::tail(&output.stdout.text(), 20)
        ),
        Err(e) => eprintln!("bench: `{}` could not start: {e}", command.label),
    }
    Cost {
        wall: started.elapsed().as_secs_f64(),
        cpu: children_cpu() - before,
    }
}

/// The user + sys time, in seconds, of this process's children that have ended (and
/// their own waited-for children), as the kernel counts it.
fn children_cpu() -> f64 {
    // SAFETY: getrusage only writes into the zeroed struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let time = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// The 1, 5 and 15 minute load averages, as the kernel reports them.
fn load() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_else(|_| "unknown".into());
    Vec::from_iter(text.split_whitespace().take(3)).join(" ")
}
