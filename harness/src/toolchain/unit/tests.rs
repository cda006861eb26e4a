//! Each tool's real output, captured from the ports' suites (a fault
//! planted where its description says so) and cut to the lines that
//! matter: `reports.json`, plain data as JSON-Schema-Test-Suite's.

use super::*;

/// What `counter` reads in `output`, handed over line by line.
fn read(counter: Counter, output: &str) -> Tally {
    counter.tally(output.lines().map(String::from))
}

/// One suite's output of `reports.json` and the tally it gives.
#[derive(serde::Deserialize)]
struct Suite {
    counter: Counter,
    output: Vec<String>,
    counts: [u64; 3],
    #[serde(default = "finished")]
    finished: bool,
    #[serde(default)]
    unreported: u64,
}

fn finished() -> bool {
    true
}

/// Each tool's output and the tally it gives: a suite proves itself only
/// when its tool's final report is there and says a test passed and none
/// failed or was skipped. A suite that ran no test, skipped every test, or
/// stopped early with status 0 proves nothing.
#[test]
fn only_a_finished_report_of_passes_proves_a_suite() {
    let table: serde_json::Value = serde_json::from_str(include_str!("reports.json")).unwrap();
    let suites: Vec<Suite> = serde_json::from_value(table["suites"].clone()).unwrap();
    assert!(suites.len() >= 26, "only {} suites", suites.len());
    for suite in suites {
        let [passed, failed, skipped] = suite.counts;
        let (finished, unreported) = (suite.finished, suite.unreported);
        let tally = Tally {
            passed,
            failed,
            skipped,
            finished,
            unreported,
        };
        let (counter, output) = (suite.counter, suite.output.join("\n"));
        let got = read(counter, &output);
        assert_eq!(got, tally, "{counter:?}: {output}");
        let proves = passed > 0 && failed + skipped + unreported == 0 && finished;
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
