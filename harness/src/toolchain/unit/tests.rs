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
    tally: Tally,
}

/// Each tool's output and the tally it gives: a suite proves itself only
/// when its tool's final report is there and says a test passed and none
/// failed or was skipped. A suite that ran no test, skipped every test, or
/// stopped early with status 0 proves nothing. And a suite's output is the
/// port's, not the harness's: for every counter, output without a report
/// is no tally, and counts near 2^64 must not overflow the sums (a panic
/// in the harness) and prove nothing.
#[test]
fn only_a_finished_report_of_passes_proves_a_suite() {
    let table: serde_json::Value = serde_json::from_str(include_str!("reports.json")).unwrap();
    let suites: Vec<Suite> = serde_json::from_value(table["suites"].clone()).unwrap();
    let max = u64::MAX;
    let overflow = format!(
        "running {max} tests\ntest result: ok. {max} passed; {max} failed; {max} ignored\n\
         running 1 test\ntest result: ok. {max} passed; {max} failed; {max} ignored\n\
         Ran {max} tests in 0.001s\n\nFAILED (failures={max}, errors={max}, skipped={max})\n\
         # pass {max}\n# fail {max}\n# cancelled {max}\n# skipped {max}\n# todo {max}\n\
         [ {max} tests successful ]\n[ {max} tests skipped ]\n[ {max} tests aborted ]\n"
    );
    let mut counters = Vec::new();
    for suite in suites {
        let (counter, output, tally) = (suite.counter, suite.output.join("\n"), suite.tally);
        let got = read(counter, &output);
        assert_eq!(got, tally, "{counter:?}: {output}");
        let clean = tally.failed + tally.skipped + tally.unreported == 0;
        let proves = tally.passed > 0 && clean && tally.finished;
        assert_eq!(got.proves(1), proves, "{counter:?}: {output}");
        assert_eq!(read(counter, "nothing"), Tally::default(), "{counter:?}");
        assert!(!read(counter, &overflow).proves(1), "{counter:?}");
        counters.extend((!counters.contains(&counter)).then_some(counter));
    }
    assert_eq!(counters.len(), 6, "a suite of each counter: {counters:?}");
}
