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
    /// Whether the report proves the suite: it is there, a test passed,
    /// and none failed or was skipped.
    pub fn proves(&self) -> bool {
        self.finished && self.passed > 0 && self.failed == 0 && self.skipped == 0
    }
}

impl Counter {
    /// What the output (stdout, then stderr) says of the suite's tests.
    pub fn tally(self, output: &str) -> Tally {
        let lines = output.lines().map(str::trim_end);
        match self {
            Counter::Cargo => cargo(lines),
            Counter::GoVerbose => go_verbose(lines),
            Counter::Unittest => unittest(lines),
            Counter::NodeTap => node_tap(lines),
            Counter::PhpChecks => php_checks(lines),
            Counter::JUnitConsole => junit_console(lines),
        }
    }
}

/// cargo's: every test binary's `running N tests` answered by its own
/// `test result:` line (a test that exits the process stops it early).
fn cargo<'a>(lines: impl Iterator<Item = &'a str>) -> Tally {
    let mut tally = Tally::default();
    let mut announced = None;
    for line in lines {
        if let Some(n) = cargo_running(line) {
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
fn go_verbose<'a>(lines: impl Iterator<Item = &'a str>) -> Tally {
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

/// Python unittest's: the last `Ran N tests` and the status line after it.
fn unittest<'a>(lines: impl Iterator<Item = &'a str>) -> Tally {
    let lines: Vec<&str> = lines.collect();
    let Some(at) = lines.iter().rposition(|l| l.starts_with("Ran ")) else {
        return Tally::default();
    };
    let ran = lines[at].split_whitespace().nth(1).and_then(number);
    let status = lines[at + 1..].iter().find(|l| !l.is_empty());
    let status = status.copied().unwrap_or_default();
    let details = status
        .split_once(" (")
        .map_or("", |(_, d)| d.trim_end_matches(')'));
    let count = |names: &[&str]| -> u64 {
        let counts = details.split(", ").filter_map(|kv| kv.split_once('='));
        let counts = counts.filter(|(k, _)| names.contains(k));
        counts.filter_map(|(_, v)| number(v)).sum()
    };
    let failed = count(&["failures", "errors", "unexpected successes"]);
    let skipped = count(&["skipped", "expected failures"]);
    Tally {
        passed: ran.unwrap_or(0).saturating_sub(failed + skipped),
        failed,
        skipped,
        finished: ["OK", "FAILED", "NO TESTS RAN"]
            .iter()
            .any(|s| status.starts_with(s)),
        unreported: 0,
    }
}

/// node:test's TAP: the closing `# pass`, `# fail`, ... comments.
fn node_tap<'a>(lines: impl Iterator<Item = &'a str>) -> Tally {
    let mut tally = Tally::default();
    // A test's own output is a `# ` comment too: the summary,
    // last, wins.
    let mut summary = std::collections::HashMap::new();
    for line in lines {
        let Some((name, n)) = line.strip_prefix("# ").and_then(|l| l.split_once(' ')) else {
            continue;
        };
        if let Some(n) = number(n) {
            summary.insert(name, n);
        }
    }
    let count = |name| summary.get(name).copied().unwrap_or(0);
    tally.finished = summary.contains_key("pass");
    tally.passed = count("pass");
    tally.failed = count("fail") + count("cancelled");
    tally.skipped = count("skipped") + count("todo");
    tally
}

/// The PHP checks': each `ok`/`FAIL` line and the closing line.
fn php_checks<'a>(lines: impl Iterator<Item = &'a str>) -> Tally {
    let mut tally = Tally::default();
    for line in lines {
        tally.passed += u64::from(line.starts_with("ok "));
        tally.failed += u64::from(line.starts_with("FAIL "));
        tally.finished |= line == "all checks passed" || line.ends_with(" check(s) failed");
    }
    tally
}

/// The JUnit console launcher's final `[ N tests ... ]` counts.
fn junit_console<'a>(lines: impl Iterator<Item = &'a str>) -> Tally {
    let mut tally = Tally::default();
    for line in lines {
        let inside = line
            .trim()
            .strip_prefix('[')
            .and_then(|l| l.strip_suffix(']'));
        let words: Vec<&str> = inside.unwrap_or("").split_whitespace().collect();
        let [n, "tests", what] = words[..] else {
            continue;
        };
        let Some(n) = number(n) else { continue };
        match what {
            "successful" => (tally.passed, tally.finished) = (n, true),
            "failed" => tally.failed = n,
            "skipped" | "aborted" => tally.skipped += n,
            _ => {}
        }
    }
    tally
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
