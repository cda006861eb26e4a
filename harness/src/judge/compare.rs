//! Comparing a runner's outcome with the case's `expect`, field by field,
//! saying where each field first differs.

use std::fmt::{Debug, Write as _};

use crate::table::Outcome;

/// `Ok` when equal; otherwise the [`differences`] report.
pub fn compare(expected: &Outcome, actual: &Outcome) -> Result<(), String> {
    let report = differences(expected, actual);
    if report.is_empty() {
        Ok(())
    } else {
        Err(report)
    }
}

/// Expected and actual side by side per differing field, with the pass or
/// entry where they first differ; empty when they are equal.
pub fn differences(expected: &Outcome, actual: &Outcome) -> String {
    let mut report = String::new();
    list_field(&mut report, "sent", "pass", &expected.sent, &actual.sent);
    list_field(
        &mut report,
        "journal",
        "entry",
        &expected.journal,
        &actual.journal,
    );
    if expected.duplicates != actual.duplicates {
        let _ = writeln!(
            report,
            "duplicates: expected {}, actual {}",
            expected.duplicates, actual.duplicates
        );
    }
    report
}

fn list_field<T: Debug + PartialEq>(
    out: &mut String,
    field: &str,
    unit: &str,
    expected: &[T],
    actual: &[T],
) {
    let Some(at) =
        (0..expected.len().max(actual.len())).find(|&i| expected.get(i) != actual.get(i))
    else {
        return;
    };
    let _ = writeln!(
        out,
        "{field}: first differs at {unit} {} ({field}[{at}])",
        at + 1
    );
    let _ = writeln!(out, "  expected: {}", window(expected, at));
    let _ = writeln!(out, "  actual:   {}", window(actual, at));
}

/// The list around index `at`, short enough to read when the list is long
/// (or an entry is).
fn window<T: Debug>(items: &[T], at: usize) -> String {
    const CONTEXT: usize = 3;
    let start = at.saturating_sub(CONTEXT);
    let end = (at + CONTEXT + 1).min(items.len());
    // An entry a runner made huge is cut: a message quotes runner text
    // within a bound.
    let item = |item| crate::text::excerpt(&format!("{item:?}"), 300);
    let mut shown: Vec<String> = items
        .get(start..end)
        .unwrap_or_default()
        .iter()
        .map(item)
        .collect();
    if start == 0 && end >= items.len() {
        return format!("[{}]", shown.join(", "));
    }
    if start > 0 {
        shown.insert(0, "…".to_owned());
    }
    if end < items.len() {
        shown.push("…".to_owned());
    }
    format!("[{}] ({} in all)", shown.join(", "), items.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(sent: Vec<Vec<u64>>, journal: &[&str], duplicates: u64) -> Outcome {
        Outcome {
            sent,
            journal: journal.iter().map(|s| s.to_string()).collect(),
            duplicates,
            ..Outcome::default()
        }
    }

    #[test]
    fn says_where_each_field_first_differs() {
        let a = outcome(vec![vec![1], vec![]], &["x"], 0);
        assert_eq!(compare(&a, &a.clone()), Ok(()));
        let expected = outcome(vec![vec![2], vec![1, 3]], &["a", "b"], 1);
        let actual = outcome(vec![vec![2], vec![3]], &["a", "b"], 0);
        let report = compare(&expected, &actual).unwrap_err();
        assert_eq!(
            report,
            "sent: first differs at pass 2 (sent[1])\n  expected: [[2], [1, 3]]\n  actual:   [[2], [3]]\n\
             duplicates: expected 1, actual 0\n"
        );
    }

    #[test]
    fn a_long_list_shows_a_window() {
        let expected: Vec<Vec<u64>> = (0..100).map(|i| vec![i]).collect();
        let mut actual = expected.clone();
        actual[50] = vec![];
        let report = compare(&outcome(expected, &[], 0), &outcome(actual, &[], 0)).unwrap_err();
        assert!(report.contains("pass 51"), "{report}");
        assert!(
            report.contains("[…, [47], [48], [49], [], [51], [52], [53], …] (100 in all)"),
            "{report}"
        );
    }
}
