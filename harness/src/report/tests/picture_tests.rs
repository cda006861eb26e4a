//! The pictures: drawn from the reference's trace, bounded in size.

use std::collections::BTreeMap;

use regex::Regex;

use super::super::picture;
use super::super::results::State;
use super::super::*;
use super::{lost_ack, message, row};

/// The picture is the reference's trace of SPEC.md's lost-ack story:
/// each row's fate in its pass, the consumer's side, the rows written
/// between passes in their column, and the idle pass at the end; a
/// restarted relay, idle passes to the millionth, and a scenario the
/// reference refuses (which gets its reason instead of a picture) are
/// labelled.
#[test]
fn the_picture_is_the_reference_trace_and_labels_restarts_idle_passes_and_refusals() {
    let draw = |scenario: &Scenario| picture::render("case", scenario);
    let mut long = lost_ack();
    long.passes = 1_000_000;
    long.restart_each_pass = true;
    let mut refused = lost_ack();
    refused.messages[1].id = 1;
    let (out, long, refused) = (draw(&lost_ack()), draw(&long), draw(&refused));
    let pass1 = out.find("<h4>pass 1").unwrap();
    let written = out.find("<h4>written after pass 1</h4>").unwrap();
    let pass2 = out.find("<h4>pass 2").unwrap();
    assert!(pass1 < written && written < pass2, "{out}");
    let (first_pass, second_pass) = (&out[pass1..written], &out[pass2..]);
    for (pass, text) in [
        (first_pass, "#1 order-1 OrderPlaced</span><span class=\"what\">attempt 1: ack lost (delivered)"),
        (first_pass, "#2 order-2 OrderPlaced</span><span class=\"what\">attempt 2: broker down"),
        (first_pass, "#3 order-1 OrderPaid</span><span class=\"what\">skipped: order-1 blocked"),
        (first_pass, "sent []</p><div class=\"consumer\"><h5>consumer</h5><ol class=\"rows\"><li class=\"c handled\">handled order-1 OrderPlaced</li></ol>"),
        (second_pass, "attempt 3: published</span><span class=\"dup\">consumer: duplicate dropped"),
        (second_pass, "#1 duplicate dropped"),
        (second_pass, "#4 order-1 OrderShipped</span><span class=\"what\">attempt 6: published"),
        (second_pass, "sent [1, 2, 3, 4]"),
        (second_pass, "<h4>pass 3</h4><p class=\"none\">outbox empty: nothing to send"),
        (&long, "pass 2 <span class=\"restart\">new relay</span>"),
        (&long, "<h4>passes 3–1000000</h4><p class=\"none\">outbox empty: nothing to send"),
        (&refused, "The reference refused the scenario: message 1: message id 1 is not greater than the last id 1"),
    ] {
        assert!(pass.contains(text), "{text} in {pass}");
    }
}

/// The case table's expectations were blessed from the reference, so the
/// picture's runs must send exactly what every case expects, the drawn
/// ones their ids, a summarised span of passes as many rows in all; this keeps the
/// picture's way of running a scenario equal to the runners'.
#[test]
fn the_picture_sends_what_every_table_case_expects() {
    let sent = Regex::new(r#"<p class="sent">sent \[([\d, ]*)\]</p>"#).unwrap();
    let span = Regex::new(
        r#"<h4>pass(?:es)? (\d+)(?:–(\d+))?</h4><p class="none">(?:not drawn: (\d+) more|outbox empty)"#,
    )
    .unwrap();
    let number = |m: Option<regex::Match>| m.map(|m| m.as_str().parse::<usize>().unwrap());
    let cases = crate::table::load(&[crate::repo_root().join("cases")]).expect("the table loads");
    for case in &cases {
        let page = picture::render(&case.name, &case.scenario);
        let ids = |c: regex::Captures| c[1].split(", ").filter_map(|id| id.parse().ok()).collect();
        let drawn: Vec<Vec<u64>> = sent.captures_iter(&page).map(ids).collect();
        let expected: Vec<Vec<u64>> = serde_json::from_value(case.expect["sent"].clone()).unwrap();
        assert_eq!(drawn, expected[..drawn.len()], "{}", case.name);
        // The runs before pass `pass`: a span counts passes, `sent` runs.
        let runs_before = |pass: usize| -> usize {
            (1..pass as u64)
                .map(|p| case.scenario.relays_in(p).len())
                .sum()
        };
        let mut next = drawn.len();
        for span in span.captures_iter(&page) {
            let first = number(span.get(1)).unwrap();
            let last = runs_before(number(span.get(2)).unwrap_or(first) + 1);
            assert_eq!(runs_before(first), next, "{}", case.name);
            let sent: usize = expected[next..last].iter().map(Vec::len).sum();
            assert_eq!(number(span.get(3)).unwrap_or(0), sent, "{}", case.name);
            next = last;
        }
        assert_eq!(next, expected.len(), "{}", case.name);
    }
    assert!(cases.len() >= 5, "only {} cases", cases.len());
}

#[test]
fn thirty_cases_in_five_languages_stay_well_under_a_megabyte() {
    let languages = ["rust", "go", "python", "php", "typescript"];
    let scenario = Scenario {
        batch_size: 4,
        messages: (1..=12)
            .map(|id| message(id, &format!("order-{}", id % 3), "OrderEvent", id / 6))
            .collect(),
        failures: BTreeMap::from([
            (1, Failure::LostAck),
            (3, Failure::Down),
            (7, Failure::LostAck),
        ]),
        passes: 8,
        ..Default::default()
    };
    let failure = "sent differs in pass 2\n".repeat(40);
    let failure = failure.as_str();
    let rows = (0..30)
        .map(|i| {
            let cells: Vec<_> = languages
                .iter()
                .map(|&l| match i % 7 == 0 && l == "php" {
                    true => (l, State::WrongAnswer, failure),
                    false => (l, State::Pass, ""),
                })
                .collect();
            row(&format!("case_{i}"), "", Some(scenario.clone()), &cells)
        })
        .collect();
    let page = render(&fixture::report(&languages.map(|l| (l, "")), rows));
    eprintln!("30 cases x 5 languages: {} bytes", page.len());
    assert!(page.len() < 400_000, "{} bytes", page.len());
    assert_eq!(page.matches("<td class=\"cell ").count(), 150);
}

/// The picture of a case ten times as long is the same picture, only its
/// counts larger: 12 columns of 40 rows, about 114 KB, whatever the case.
#[test]
fn the_picture_keeps_what_it_draws_not_passes_times_rows() {
    // One order blocked for `passes` passes over `rows` rows in one batch:
    // passes times rows events in all, the shape that made a 240 KB case
    // file cost 906 MB when the picture kept every event.
    let draw = |rows, passes| {
        let scenario = Scenario {
            batch_size: rows,
            messages: (1..=rows)
                .map(|id| message(id, "order-1", "E", 0))
                .collect(),
            failures: (1..=passes)
                .map(|attempt| (attempt, Failure::Down))
                .collect(),
            passes: passes + 1,
            ..Default::default()
        };
        let mut page = picture::render("case", &scenario);
        // The scenario line lists every failure of the script.
        page.split_off(page.find("<div class=\"picture\"").unwrap())
    };
    let (small, large) = (draw(300, 200), draw(3_000, 2_000));
    let numbers = Regex::new(r"\d+").unwrap();
    assert_eq!(
        numbers.replace_all(&small, "N"),
        numbers.replace_all(&large, "N")
    );
    assert!(large.len() < 150_000, "{} bytes", large.len());
    // The outbox and each of the 12 passes' batches.
    assert_eq!(large.matches("… and 2960 more rows").count(), 13);
    assert!(
        large.contains("<h4>passes 13–2001</h4><p class=\"none\">not drawn: 3000 more rows sent")
    );
}
