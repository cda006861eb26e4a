//! A JUnit XML report of a parity run (`PARITY_JUNIT=path`), for CI
//! dashboards, drawn from the run's record: one test suite per language,
//! one test case per trial, the failure text included. Whatever a runner
//! printed, the file is valid XML: the characters XML forbids are shown
//! escaped (see [`for_xml`]).

use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::results::{Outcome, Results, TrialResult};
use crate::config::trial_name;
use crate::judge::emit::known_failure;
use crate::text::for_xml;

/// A trial's status: a failure's summary as its message, its text as its
/// description; a known failure says so.
fn status(trial: &TrialResult) -> TestCaseStatus {
    let summary = trial.summary.clone().unwrap_or_default();
    let text = trial.text.clone().unwrap_or_else(|| summary.clone());
    let (mut status, message) = match trial.verdict {
        Outcome::Pass => return TestCaseStatus::success(),
        Outcome::Fail => {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            status.set_description(for_xml(&text));
            (status, summary)
        }
        Outcome::Ignored => (TestCaseStatus::skipped(), text),
        Outcome::KnownFailure => (TestCaseStatus::skipped(), known_failure(&text)),
    };
    status.set_message(for_xml(&message));
    status
}

/// The report as XML text.
pub fn report(results: &Results) -> String {
    let mut report = Report::new("parity");
    let mut total = Duration::ZERO;
    for language in results.run.languages() {
        let mut suite = TestSuite::new(for_xml(language));
        for trial in results.trials.iter().filter(|t| t.language == language) {
            let name = for_xml(&trial_name(language, trial.row.name()));
            let mut case = TestCase::new(name, status(trial));
            case.set_classname(for_xml(&format!("parity.{language}")));
            let time = Duration::from_millis(trial.time_ms);
            case.set_time(time);
            total += time;
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    report.set_time(total);
    report
        .to_string()
        .expect("a report of plain strings serializes")
}
