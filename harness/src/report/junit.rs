//! A JUnit XML report of a parity run (`PARITY_JUNIT=path`), for CI
//! dashboards: one test suite per language, one test case per trial, the
//! failure text included. Whatever a runner printed, the file is valid
//! XML: the characters XML forbids are shown escaped (see [`for_xml`]).

use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::trial::Recorded;
use crate::judge::emit::{self, Emitter};
use crate::judge::Reason;
use crate::text::for_xml;

/// A trial's status in the JUnit file: the summary as the failure's
/// message, the full text as its description; whatever a runner printed,
/// the text is fit for XML (see [`for_xml`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Junit;

impl Emitter for Junit {
    type Output = TestCaseStatus;

    fn pass(&self) -> TestCaseStatus {
        TestCaseStatus::success()
    }

    fn failure(&self, reason: &Reason) -> TestCaseStatus {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status.set_message(for_xml(&emit::summary(reason)));
        status.set_description(for_xml(&emit::text(reason)));
        status
    }

    fn ignored(&self, why: &str) -> TestCaseStatus {
        let mut status = TestCaseStatus::skipped();
        status.set_message(for_xml(why));
        status
    }

    fn known_failure(&self, why: &str) -> TestCaseStatus {
        let mut status = TestCaseStatus::skipped();
        status.set_message(for_xml(&emit::known_failure(why)));
        status
    }
}

/// The report as XML text.
pub fn report(records: &[Recorded]) -> String {
    let mut report = Report::new("parity");
    let mut languages: Vec<&str> = Vec::new();
    for record in records {
        if !languages.contains(&record.id.language.as_str()) {
            languages.push(&record.id.language);
        }
    }
    let mut total = Duration::ZERO;
    for language in languages {
        let mut suite = TestSuite::new(for_xml(language));
        for record in records.iter().filter(|r| r.id.language == language) {
            let status = Junit.verdict(&record.verdict);
            let mut case = TestCase::new(for_xml(&record.id.name()), status);
            case.set_classname(for_xml(&format!("parity.{language}")));
            case.set_time(record.time);
            total += record.time;
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    report.set_time(total);
    report
        .to_string()
        .expect("a report of plain strings serializes")
}
