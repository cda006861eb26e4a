//! How many tests a unit suite ran, by its tool's own count: a suite that
//! exits 0 having run nothing (a test file renamed, a `_test.go` removed)
//! must not pass.

/// The test tools the ports use, each with its own way of saying how many
/// tests ran.
/// A manifest names its counter (`unit.counter = "go-verbose"`): the
/// command line is not sniffed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Counter {
    /// `cargo test`: the sum of its `running N tests` lines.
    Cargo,
    /// `go test -v`: its top-level `--- PASS:` / `--- FAIL:` lines
    /// (a package without tests says `[no test files]`).
    GoVerbose,
    /// Python's unittest: `Ran N tests`.
    Unittest,
    /// node:test with the TAP reporter (`--test-reporter=tap`, with or
    /// without `--test`): `# tests N`.
    NodeTap,
    /// The PHP port's runner (`runners/php/tests/run.php`): one `ok ` line
    /// per check.
    PhpChecks,
    /// The JUnit Platform console launcher: its `[ N tests found ]` line.
    #[serde(rename = "junit-console")]
    JUnitConsole,
}

impl Counter {
    /// How many tests the output (stdout and stderr together) says ran;
    /// `None` when it says nothing the counter can read.
    pub fn count(self, output: &str) -> Option<u64> {
        let lines = output.lines().map(str::trim_end);
        match self {
            Counter::Cargo => lines
                .filter_map(|l| {
                    l.strip_prefix("running ")?
                        .strip_suffix(" tests")
                        .or_else(|| l.strip_prefix("running ")?.strip_suffix(" test"))?
                        .parse::<u64>()
                        .ok()
                })
                .reduce(|a, b| a + b),
            Counter::GoVerbose => {
                let mut seen = false;
                let mut count = 0;
                for line in lines {
                    if line.starts_with("--- PASS: ") || line.starts_with("--- FAIL: ") {
                        count += 1;
                    }
                    seen |= line.starts_with("ok ")
                        || line.starts_with("FAIL")
                        || line.starts_with("? ")
                        || line.starts_with("--- ");
                }
                seen.then_some(count)
            }
            Counter::Unittest => lines
                .filter_map(|l| {
                    let rest = l.strip_prefix("Ran ")?;
                    rest.split_whitespace().next()?.parse::<u64>().ok()
                })
                .next_back(),
            Counter::NodeTap => lines
                .filter_map(|l| l.strip_prefix("# tests ")?.trim().parse::<u64>().ok())
                .next_back(),
            Counter::PhpChecks => {
                let count = lines.filter(|l| l.starts_with("ok ")).count() as u64;
                Some(count)
            }
            Counter::JUnitConsole => lines
                .filter_map(|l| {
                    let inside = l.trim().strip_prefix('[')?.strip_suffix(']')?;
                    inside
                        .trim()
                        .strip_suffix("tests found")?
                        .trim()
                        .parse::<u64>()
                        .ok()
                })
                .next_back(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The outputs of suites that ran no test, as each tool prints them.
    #[test]
    fn an_empty_suite_counts_zero() {
        let cargo = "\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed\n\nrunning 0 tests\n";
        assert_eq!(Counter::Cargo.count(cargo), Some(0));
        let go = "?   \toutbox\t[no test files]\n?   \toutbox/cmd/demo\t[no test files]\n";
        assert_eq!(Counter::GoVerbose.count(go), Some(0));
        let python = "\n----------------------------------------------------------------------\nRan 0 tests in 0.000s\n\nNO TESTS RAN\n";
        assert_eq!(Counter::Unittest.count(python), Some(0));
        assert_eq!(
            Counter::NodeTap.count("1..0\n# tests 0\n# pass 0\n"),
            Some(0)
        );
        assert_eq!(Counter::PhpChecks.count("all checks passed\n"), Some(0));
        let junit = "[         0 containers found      ]\n[         0 tests found           ]\n";
        assert_eq!(Counter::JUnitConsole.count(junit), Some(0));
        let junit = junit.replace(" 0 tests found ", "22 tests found ");
        assert_eq!(Counter::JUnitConsole.count(&junit), Some(22));
        assert_eq!(Counter::Unittest.count("nothing"), None);
    }

    #[test]
    fn a_suite_that_ran_counts_its_tests() {
        let cargo = "running 7 tests\n.......\ntest result: ok.\n\nrunning 1 test\n.\n";
        assert_eq!(Counter::Cargo.count(cargo), Some(8));
        let go = "=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n    --- PASS: TestB/sub (0.00s)\n--- PASS: TestB (0.00s)\nPASS\nok  \toutbox\t0.01s\n";
        assert_eq!(Counter::GoVerbose.count(go), Some(2));
        assert_eq!(
            Counter::Unittest.count("Ran 6 tests in 0.001s\n\nOK\n"),
            Some(6)
        );
        assert_eq!(Counter::Unittest.count("Ran 1 test in 0.001s\n"), Some(1));
        assert_eq!(
            Counter::NodeTap.count("1..5\n# tests 5\n# suites 0\n"),
            Some(5)
        );
        assert_eq!(
            Counter::PhpChecks.count("ok   a\nok   b\nall checks passed\n"),
            Some(2)
        );
    }
}
