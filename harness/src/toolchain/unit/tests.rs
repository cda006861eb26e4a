//! Each tool's real output, captured from the ports' suites (a fault
//! planted where the name says so) and cut to the lines that matter; cargo's
//! and the JUnit launcher's reports, each a fixed layout of counts, are
//! built from the counts by `binary` and `junit`.

use super::*;

/// One cargo test binary's report, as `cargo test --quiet` prints it: what
/// it runs, a mark per test, and its `test result:` line.
fn binary(passed: usize, ignored: usize) -> String {
    let (n, marks) = (passed + ignored, ".".repeat(passed) + &"i".repeat(ignored));
    let s = if n == 1 { "" } else { "s" };
    format!("\nrunning {n} test{s}\n{marks}\ntest result: ok. {passed} passed; 0 failed; {ignored} ignored; 0 measured; 0 filtered out; finished in 0.01s\n\n")
}

/// The JUnit console launcher's closing report, as it prints it: the
/// containers' counts (which are no tests) and the tests', each in its
/// order: found, skipped, started, aborted, successful, failed.
fn junit(containers: [u64; 6], tests: [u64; 6]) -> String {
    let mut report = "└─ JUnit Vintage ✔\n\nTest run finished after 512 ms\n".to_owned();
    for (what, counts) in [("containers", containers), ("tests", tests)] {
        let names = "found skipped started aborted successful failed".split(' ');
        for (name, n) in names.zip(counts) {
            report += &format!("[{n:>10} {:<22}]\n", format!("{what} {name}"));
        }
    }
    report
}

/// What `counter` reads in `output`, handed over line by line.
fn read(counter: Counter, output: &str) -> Tally {
    counter.tally(output.lines().map(String::from))
}

fn counts(passed: u64, failed: u64, skipped: u64) -> Tally {
    Tally {
        passed,
        failed,
        skipped,
        finished: true,
        unreported: 0,
    }
}

const GO: &str = "=== RUN   TestZeroValueConsumerIsReady
--- PASS: TestZeroValueConsumerIsReady (0.00s)
=== RUN   TestUnsentIsACopyInInsertionOrder
--- PASS: TestUnsentIsACopyInInsertionOrder (0.00s)
PASS
ok  \toutbox\t0.006s
?   \toutbox/cmd/demo\t[no test files]
";

const NODE: &str = "TAP version 13
# Subtest: c
ok 1 - c
  ---
  duration_ms: 0.071978
  ...
1..7
# tests 7
# suites 0
# pass 7
# fail 0
# cancelled 0
# skipped 0
# todo 0
# duration_ms 87.499854
";

const PHP_FAILED: &str = "ok   Failure has no backing value
ok   a scripted failure is Failure::Down itself
ok   a message the broker was down for is not delivered
FAIL planted
";

/// Each tool's output and the tally it gives: a suite proves itself only
/// when its tool's final report is there and says a test passed and none
/// failed or was skipped. A suite that ran no test, skipped every test, or
/// stopped early with status 0 (a fault planted as the comment says)
/// proves nothing.
#[test]
fn only_a_finished_report_of_passes_proves_a_suite() {
    let early = |tally: Tally, unreported| Tally {
        finished: false,
        unreported,
        ..tally
    };
    let ran = "----------------------------------------------------------------------\nRan";
    for (counter, output, tally) in [
        (Counter::Cargo, [binary(9, 0), binary(5, 0), binary(1, 0), binary(0, 0)].concat(), counts(15, 0, 0)),
        (Counter::GoVerbose, GO.to_owned(), counts(2, 0, 0)),
        (Counter::Unittest, format!("........\n{ran} 8 tests in 0.001s\n\nOK\n"), counts(8, 0, 0)),
        (Counter::Unittest, "Ran 1 test in 0.001s\n\nOK\n".to_owned(), counts(1, 0, 0)),
        (Counter::NodeTap, NODE.to_owned(), counts(7, 0, 0)),
        (Counter::PhpChecks, PHP_FAILED.replace("FAIL planted\n", "all checks passed\n"), counts(3, 0, 0)),
        (Counter::JUnitConsole, junit([9, 0, 9, 0, 9, 0], [39, 0, 39, 0, 39, 0]), counts(39, 0, 0)),
        // Suites that ran no test, as each tool says so.
        (Counter::Cargo, binary(0, 0), counts(0, 0, 0)),
        (Counter::GoVerbose, "?   \toutbox\t[no test files]\n?   \toutbox/cmd/demo\t[no test files]\n".to_owned(), counts(0, 0, 0)),
        (Counter::Unittest, format!("\n{ran} 0 tests in 0.000s\n\nNO TESTS RAN\n"), counts(0, 0, 0)),
        (Counter::NodeTap, "1..0\n# tests 0\n# pass 0\n".to_owned(), counts(0, 0, 0)),
        (Counter::PhpChecks, "all checks passed\n".to_owned(), counts(0, 0, 0)),
        (Counter::JUnitConsole, "[         0 tests found           ]\n[         0 tests successful      ]\n".to_owned(), counts(0, 0, 0)),
        // Every class of the Python suite under `@unittest.skip`: it exits 0.
        (Counter::Unittest, format!("ssssssss\n{ran} 8 tests in 0.000s\n\nOK (skipped=8)\n"), counts(0, 0, 8)),
        (Counter::Unittest, "Ran 4 tests in 0.001s\n\nFAILED (failures=1, errors=1, skipped=1, expected failures=1)\n".to_owned(), counts(0, 2, 2)),
        // Every Java test class under `@Disabled`: 17 found, so
        // `--fail-if-no-tests` holds, and it exits 0.
        (Counter::JUnitConsole, junit([9, 6, 3, 0, 3, 0], [17, 17, 0, 0, 0, 0]), counts(0, 0, 17)),
        // `#[ignore]` on every test of the three crates: each binary
        // reports, all ignored, and cargo exits 0; one ignored test among
        // passing ones hides what it checks all the same.
        (Counter::Cargo, [binary(0, 9), binary(0, 5), binary(0, 0)].concat(), counts(0, 0, 14)),
        (Counter::Cargo, [binary(9, 0), binary(5, 0), binary(0, 1), binary(0, 0)].concat(), counts(14, 0, 1)),
        // The reference's suite with a test that panics after 1.5 s and one
        // that calls `std::process::exit(0)` after 0.3 s: its binary never
        // reports, the next binaries run, and cargo exits 0; the last
        // binary stopping early is no different.
        (Counter::Cargo, format!("\nrunning 11 tests\n...\n{}{}", binary(5, 0), binary(0, 0)), early(counts(5, 0, 0), 11)),
        (Counter::Cargo, "\nrunning 2 tests\n.\n".to_owned(), early(counts(0, 0, 0), 2)),
        // The PHP checks with a failed check and then `exit(0)`: no closing line.
        (Counter::PhpChecks, PHP_FAILED.to_owned(), early(counts(3, 1, 0), 0)),
        (Counter::PhpChecks, format!("{PHP_FAILED}all checks passed\n"), counts(3, 1, 0)),
        // node:test's skip and todo, and Go's skip at the top and in a
        // subtest: neither checks anything.
        (Counter::NodeTap, "ok 1 - a # SKIP planted\nok 2 - b # TODO\nok 3 - c\n1..3\n# tests 3\n# suites 0\n# pass 1\n# fail 0\n# cancelled 0\n# skipped 1\n# todo 1\n# duration_ms 55.193996\n".to_owned(), counts(1, 0, 2)),
        // `describe.skip` around seven tests, one failing: the suite's own
        // `# SKIP`, none of its tests in the closing counts; a todo test in
        // a suite that ran, one level down.
        (Counter::NodeTap, NODE.replace("1..7", "# Subtest: planted\nok 2 - planted # SKIP\n  type: 'suite'\n1..2").replace("tests 7", "tests 1").replace("pass 7", "pass 1"), counts(1, 0, 1)),
        (Counter::NodeTap, NODE.replace("1..7", "    not ok 1 - later # TODO write it\nok 2 - a suite\n1..7"), counts(7, 0, 1)),
        (
            Counter::GoVerbose,
            "=== RUN   TestA\n    a_test.go:5: planted\n--- SKIP: TestA (0.00s)\n=== RUN   TestB\n=== RUN   TestB/sub\n    a_test.go:7: planted\n--- PASS: TestB (0.00s)\n    --- SKIP: TestB/sub (0.00s)\nPASS\nok  \tgs\t0.005s\n".to_owned(),
            counts(1, 0, 2),
        ),
    ] {
        let got = read(counter, &output);
        assert_eq!(got, tally, "{counter:?}: {output}");
        let proves = tally.passed > 0 && tally == counts(tally.passed, 0, 0);
        assert_eq!(got.proves(1), proves, "{counter:?}: {output}");
    }
}

/// A suite's output is the port's, not the harness's: output without a
/// report is no tally, and counts near 2^64 must not overflow the sums (a
/// panic in the harness) and prove nothing.
#[test]
fn no_report_and_counts_too_large_to_add_prove_nothing() {
    let max = u64::MAX;
    let output = format!(
        "running {max} tests\ntest result: ok. {max} passed; {max} failed; {max} ignored\n\
         running 1 test\ntest result: ok. {max} passed; {max} failed; {max} ignored\n\
         Ran {max} tests in 0.001s\n\nFAILED (failures={max}, errors={max}, skipped={max})\n\
         # pass {max}\n# fail {max}\n# cancelled {max}\n# skipped {max}\n# todo {max}\n\
         [ {max} tests successful ]\n[ {max} tests skipped ]\n[ {max} tests aborted ]\n"
    );
    for counter in [
        Counter::Cargo,
        Counter::GoVerbose,
        Counter::Unittest,
        Counter::NodeTap,
        Counter::PhpChecks,
        Counter::JUnitConsole,
    ] {
        assert_eq!(read(counter, "nothing"), Tally::default(), "{counter:?}");
        assert!(!read(counter, &output).proves(1), "{counter:?}");
    }
}
