//! What a unit suite's tool says in its final report: a suite that exits 0
//! proves nothing unless that report says at least one test ran and passed,
//! none failed and none was skipped. A suite that ran nothing (a test file
//! renamed), skipped everything (`@unittest.skip`, `@Disabled`,
//! `#[ignore]`) or stopped before its tool could report (a test that calls
//! `exit(0)`) exits 0 all the same.

/// The test tools the ports use, each with its own final report.
/// A manifest names its counter (`unit.counter = "go-verbose"`): the
/// command line is not sniffed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Counter {
    /// `cargo test`: each test binary's `running N tests`, answered by its
    /// own `test result:` line (a binary that exits early prints none).
    Cargo,
    /// `go test -v`: its top-level `--- PASS:` / `--- FAIL:` lines, every
    /// `--- SKIP:`, and a package's `ok` / `FAIL` / `?` line as the end
    /// (a package without tests says `[no test files]`).
    GoVerbose,
    /// Python's unittest: `Ran N tests`, then `OK` or `FAILED` with its
    /// counts in brackets (`OK (skipped=8)`).
    Unittest,
    /// node:test with the TAP reporter (`--test-reporter=tap`, with or
    /// without `--test`): the closing `# pass`, `# fail`, `# cancelled`,
    /// `# skipped` and `# todo` lines.
    NodeTap,
    /// The PHP port's runner (`runners/php/tests/run.php`): an `ok ` or
    /// `FAIL ` line per check, and a closing `all checks passed` or
    /// `N check(s) failed`, which a script that exits early never prints.
    PhpChecks,
    /// The JUnit Platform console launcher: its closing `[ N tests
    /// successful ]`, `failed`, `skipped` and `aborted` lines (not `found`:
    /// a disabled test is found).
    #[serde(rename = "junit-console")]
    JUnitConsole,
}

/// What a suite's output says of its tests, by its tool's final report; the
/// unit trial's failure keeps it, so the message can say what was missing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(test, derive(serde::Deserialize), serde(default, deny_unknown_fields))]
pub struct Tally {
    /// Tests that ran and passed.
    pub passed: u64,
    /// Tests that failed (or errored, or were cancelled).
    pub failed: u64,
    /// Tests found and not run as a pass: skipped, ignored, disabled,
    /// aborted, todo, expected failures. Each hides what it would check.
    pub skipped: u64,
    /// Whether the tool's final report is there: a suite that stopped early
    /// lacks it, and then the counts are what it printed before.
    pub finished: bool,
    /// Tests a cargo test binary announced (`running N tests`) and never
    /// reported on: the binary ended without its `test result:` line.
    pub unreported: u64,
}

impl Tally {
    /// Whether the report proves the suite: it is there, at least
    /// `at_least` tests (and one) passed, and none failed or was skipped.
    pub fn proves(&self, at_least: u64) -> bool {
        self.finished && self.passed >= at_least.max(1) && self.failed == 0 && self.skipped == 0
    }
}

impl Counter {
    /// What the output says of the suite's tests, read line by line as it
    /// comes (stdout's and stderr's lines, each stream in order): the whole
    /// of it, where only its head and tail are kept, so a skip between two
    /// chatty tests is counted too.
    pub fn tally(self, lines: impl Iterator<Item = String>) -> Tally {
        match self {
            Counter::Cargo => cargo(lines),
            Counter::GoVerbose => go_verbose(lines),
            Counter::Unittest => unittest(lines),
            Counter::NodeTap => node_tap(lines),
            Counter::PhpChecks => php_checks(lines),
            Counter::JUnitConsole => named(lines.filter_map(|l| junit_console(&l)), "successful"),
        }
    }
}

/// cargo's: every test binary's `running N tests` answered by its own
/// `test result:` line (a test that exits the process stops it early).
fn cargo(lines: impl Iterator<Item = String>) -> Tally {
    let mut tally = Tally::default();
    let mut announced = None;
    for line in lines {
        if let Some(n) = cargo_running(&line) {
            tally.unreported += announced.replace(n).unwrap_or(0);
        } else if let Some(result) = line.strip_prefix("test result: ") {
            announced = None;
            tally.finished = true;
            tally.passed += cargo_count(result, "passed");
            tally.failed += cargo_count(result, "failed");
            tally.skipped += cargo_count(result, "ignored");
        }
    }
    tally.unreported += announced.unwrap_or(0);
    tally.finished &= tally.unreported == 0;
    tally
}

/// `go test -v`'s: the top-level tests' `--- PASS`/`--- FAIL`, every
/// `--- SKIP`, and the package's closing line.
fn go_verbose(lines: impl Iterator<Item = String>) -> Tally {
    let mut tally = Tally::default();
    for line in lines {
        // Subtests are indented: only a skip among them counts,
        // their passes are their parent's.
        let top = !line.starts_with(char::is_whitespace);
        match line.trim_start().split_once(": ") {
            Some(("--- PASS", _)) if top => tally.passed += 1,
            Some(("--- FAIL", _)) if top => tally.failed += 1,
            Some(("--- SKIP", _)) => tally.skipped += 1,
            _ => {}
        }
        tally.finished |=
            line.starts_with("ok ") || line.starts_with("FAIL") || line.starts_with("? ");
    }
    tally
}

/// Python unittest's: the last `Ran N tests` and the status line after it,
/// whose brackets name the counts (`FAILED (failures=1, skipped=2)`).
fn unittest(lines: impl Iterator<Item = String>) -> Tally {
    let (mut ran, mut status) = (None, String::new());
    for line in lines {
        if let Some(rest) = line.strip_prefix("Ran ") {
            ran = Some(rest.split_whitespace().next().and_then(number).unwrap_or(0));
            status.clear();
        } else if ran.is_some() && status.is_empty() {
            status = line;
        }
    }
    let Some(ran) = ran else {
        return Tally::default();
    };
    let details = status
        .split_once(" (")
        .map_or("", |(_, d)| d.trim_end_matches(')'));
    let counts = details.split(", ").filter_map(|kv| kv.split_once('='));
    let tally = named(
        counts.filter_map(|(k, v)| Some((k.to_owned(), number(v)?))),
        "",
    );
    Tally {
        passed: ran.saturating_sub(tally.failed + tally.skipped),
        finished: ["OK", "FAILED", "NO TESTS RAN"]
            .iter()
            .any(|s| status.starts_with(s)),
        ..tally
    }
}

/// node:test's TAP: the closing `# pass 7` comments, and every `ok` or
/// `not ok` line at any depth that carries a `# SKIP` or `# TODO`
/// directive: a skipped suite (`describe.skip`) is one such line, and its
/// tests are in no closing count.
fn node_tap(lines: impl Iterator<Item = String>) -> Tally {
    let mut directives = 0;
    let counts = lines.filter_map(|line| {
        let line = line.trim_start();
        let point = line.strip_prefix("not ").unwrap_or(line).starts_with("ok ");
        let directive = line.rsplit_once(" # ").map(|(_, d)| d.to_ascii_uppercase());
        if point && directive.is_some_and(|d| d.starts_with("SKIP") || d.starts_with("TODO")) {
            directives += 1;
        }
        let (name, n) = line.strip_prefix("# ")?.split_once(' ')?;
        Some((name.to_owned(), number(n)?))
    });
    let tally = named(counts, "pass");
    Tally {
        skipped: tally.skipped.max(directives),
        ..tally
    }
}

/// The names tools give the counts of tests that failed (or errored, or
/// were cancelled), and of tests found and not run as a pass: one list for
/// every tool that names its counts, so a name cannot count as a failure
/// for one tool and be overlooked for another.
const FAILED: [&str; 6] = [
    "fail",
    "failed",
    "cancelled",
    "failures",
    "errors",
    "unexpected successes",
];
const SKIPPED: [&str; 4] = ["skipped", "todo", "aborted", "expected failures"];

/// The tally of a tool's named counts. A test's own output can print a
/// line like the summary's: the summary, last, wins. The count named
/// `passed` is the passes, and its presence the finished report. Only the
/// names above are kept, so a flood of others costs no memory.
fn named(counts: impl Iterator<Item = (String, u64)>, passed: &str) -> Tally {
    let known: Vec<&str> = FAILED
        .iter()
        .chain(&SKIPPED)
        .chain([&passed])
        .copied()
        .collect();
    let last: std::collections::HashMap<String, u64> = counts
        .filter(|(name, _)| known.contains(&name.as_str()))
        .collect();
    let sum = |names: &[&str]| names.iter().filter_map(|&name| last.get(name)).sum();
    Tally {
        passed: last.get(passed).copied().unwrap_or(0),
        failed: sum(&FAILED),
        skipped: sum(&SKIPPED),
        finished: last.contains_key(passed),
        unreported: 0,
    }
}

/// The PHP checks': each `ok`/`FAIL` line and the closing line.
fn php_checks(lines: impl Iterator<Item = String>) -> Tally {
    let mut tally = Tally::default();
    for line in lines {
        tally.passed += u64::from(line.starts_with("ok "));
        tally.failed += u64::from(line.starts_with("FAIL "));
        tally.finished |= line == "all checks passed" || line.ends_with(" check(s) failed");
    }
    tally
}

/// The JUnit console launcher's closing `[ 39 tests successful ]`: the
/// count and its name (never a `containers` line).
fn junit_console(line: &str) -> Option<(String, u64)> {
    let inside = line.trim().strip_prefix('[')?.strip_suffix(']')?;
    let words: Vec<&str> = inside.split_whitespace().collect();
    let [n, "tests", what] = words[..] else {
        return None;
    };
    Some((what.to_owned(), number(n)?))
}

/// A count as the tool printed it. A port's output is not trusted: read as
/// a `u32` and widened, no count the bounded output can hold overflows a
/// sum (the harness would panic).
fn number(text: &str) -> Option<u64> {
    text.parse::<u32>().ok().map(u64::from)
}

/// `running 9 tests` (or `1 test`): how many tests a cargo test binary is
/// about to run.
fn cargo_running(line: &str) -> Option<u64> {
    let rest = line.strip_prefix("running ")?.trim_end_matches('s');
    number(rest.strip_suffix(" test")?)
}

/// One count of a `test result:` line (`ok. 9 passed; 0 failed; 1 ignored; ...`).
fn cargo_count(result: &str, name: &str) -> u64 {
    let counts = result.split(';').filter_map(|part| part.strip_suffix(name));
    counts
        .filter_map(|n| number(n.split_whitespace().last()?))
        .sum()
}

#[cfg(test)]
mod tests;
