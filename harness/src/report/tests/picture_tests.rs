//! The pictures: drawn from the reference's trace, bounded in size.

use std::collections::BTreeMap;

use super::super::picture;
use super::super::results::{State, Toolchain};
use super::super::trace::simulate;
use super::super::*;
use super::{lost_ack, message, report, row};

#[test]
fn the_picture_is_the_reference_trace() {
    let run = simulate(&lost_ack()).unwrap();
    let sent: Vec<_> = run.passes.iter().map(|p| p.sent.clone()).collect();
    assert_eq!(sent, [vec![], vec![1, 2, 3, 4]]);
    assert_eq!(run.idle_passes, Some((3, 3)));
    assert_eq!(run.passes[0].events.kept.len(), 3);
    assert_eq!(run.passes[0].written_after.all, 1);

    let mut out = String::new();
    picture::render(&mut out, "case", &lost_ack());
    let pass1 = out.find("<h4>pass 1").unwrap();
    let written = out.find("<h4>written after pass 1</h4>").unwrap();
    let pass2 = out.find("<h4>pass 2").unwrap();
    assert!(pass1 < written && written < pass2, "{out}");
    let first_pass = &out[pass1..written];
    for text in [
        "#1 order-1 OrderPlaced</span><span class=\"what\">attempt 1: ack lost (delivered)",
        "#2 order-2 OrderPlaced</span><span class=\"what\">attempt 2: broker down",
        "#3 order-1 OrderPaid</span><span class=\"what\">skipped: order-1 blocked",
        "handled order-1 OrderPlaced",
        "sent []",
    ] {
        assert!(first_pass.contains(text), "{text} in {first_pass}");
    }
    // Broker down: never delivered, so the consumer did not handle it.
    assert!(!first_pass.contains("handled order-2"), "{first_pass}");
    let second_pass = &out[pass2..];
    assert!(second_pass
        .contains("attempt 3: published</span><span class=\"dup\">consumer: duplicate dropped"));
    assert!(second_pass.contains("#1 duplicate dropped"));
    assert!(second_pass
        .contains("#4 order-1 OrderShipped</span><span class=\"what\">attempt 6: published"));
    assert!(second_pass.contains("sent [1, 2, 3, 4]"));
}

#[test]
fn idle_and_restarted_passes_are_labelled() {
    let mut scenario = lost_ack();
    scenario.passes = 1_000_000;
    scenario.restart_each_pass = true;
    let run = simulate(&scenario).unwrap();
    assert_eq!(run.passes.len(), 2);
    assert_eq!(run.idle_passes, Some((3, 1_000_000)));
    let page = render(&report(vec![row("long", Some(scenario), &[])]));
    assert!(page.contains("pass 2 <span class=\"restart\">new relay</span>"));
    assert!(
        page.contains("<h4>passes 3–1000000</h4><p class=\"none\">outbox empty: nothing to send")
    );
}

#[test]
fn a_refused_scenario_says_why_instead_of_a_picture() {
    let mut scenario = lost_ack();
    scenario.messages[1].id = 1;
    let page = render(&report(vec![row("bad", Some(scenario), &[])]));
    assert!(page.contains(
        "The reference refused the scenario: message 1: message id 1 is not greater than the last id 1"
    ));
}

/// The case table's expectations were blessed from the reference, so the
/// picture's passes must send exactly what every case expects; this keeps
/// the picture's way of running a scenario equal to the runners'.
#[test]
fn the_picture_sends_what_every_table_case_expects() {
    let cases = crate::table::load(&[crate::repo_root().join("cases")]).expect("the table loads");
    for case in &cases {
        let run = simulate(&case.scenario).unwrap();
        let drawn: Vec<Vec<u64>> = run.passes.iter().map(|p| p.sent.clone()).collect();
        let expected = &case.expect.sent;
        assert_eq!(drawn, expected[..drawn.len()], "{}", case.name);
        let mut next = drawn.len();
        if let Some(undrawn) = run.undrawn {
            assert_eq!(undrawn.first as usize, next + 1, "{}", case.name);
            let range = next..undrawn.last as usize;
            let sent: usize = expected[range].iter().map(Vec::len).sum();
            assert_eq!(undrawn.sent, sent, "{}", case.name);
            next = undrawn.last as usize;
        }
        if let Some((first, last)) = run.idle_passes {
            assert_eq!((first as usize, last), (next + 1, case.scenario.passes));
            assert!(expected[next..].iter().all(Vec::is_empty), "{}", case.name);
            next = last as usize;
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
            row(&format!("case_{i}"), Some(scenario.clone()), &cells)
        })
        .collect();
    let mut report = report(rows);
    let toolchains = &mut report.results.run.toolchains;
    *toolchains = languages
        .map(|name| Toolchain {
            name: name.into(),
            version: String::new(),
        })
        .to_vec();
    let page = render(&report);
    eprintln!("30 cases x 5 languages: {} bytes", page.len());
    assert!(page.len() < 400_000, "{} bytes", page.len());
    assert_eq!(page.matches("<td class=\"cell ").count(), 150);

    // A huge case is summarised, not drawn row by row.
    let huge = Scenario {
        batch_size: 100_000,
        messages: (1..=10_000)
            .map(|id| message(id, "order-1", "E", 0))
            .collect(),
        failures: BTreeMap::new(),
        passes: 1_000_000,
        ..Default::default()
    };
    let page = render(&report_with(huge));
    assert!(page.len() < 100_000, "{} bytes", page.len());
    assert!(page.contains("… and 9960 more rows"));
}

/// One order blocked for `passes` passes over `rows` rows in one batch:
/// passes times rows events in all, the shape that made a 240 KB case
/// file cost 906 MB when the picture kept every event.
fn blocked_for(rows: u64, passes: u64) -> Scenario {
    Scenario {
        batch_size: rows,
        messages: (1..=rows)
            .map(|id| message(id, "order-1", "E", 0))
            .collect(),
        failures: (1..=passes)
            .map(|attempt| (attempt, Failure::Down))
            .collect(),
        passes: passes + 1,
        ..Default::default()
    }
}

#[test]
fn the_picture_keeps_what_it_draws_not_passes_times_rows() {
    let small = simulate(&blocked_for(300, 200)).unwrap();
    let large = simulate(&blocked_for(3_000, 2_000)).unwrap();
    // 12 passes of 40 events and at most 40 deliveries each, the outbox's
    // first 40 rows: the same however large the case.
    let bound = 12 * (40 + 40 + 40) + 40;
    assert!(small.kept() <= bound, "{}", small.kept());
    assert_eq!(large.kept(), small.kept());
    assert_eq!(large.passes.len(), 12);
    assert_eq!(large.passes[0].events.all, 3_000);
    assert_eq!(large.initial.all, 3_000);
    let undrawn = large.undrawn.expect("passes 13-2001 are summarised");
    assert_eq!(
        (undrawn.first, undrawn.last, undrawn.sent),
        (13, 2_001, 3_000)
    );
    let mut page = String::new();
    picture::render(&mut page, "case", &blocked_for(3_000, 2_000));
    assert!(page.contains("… and 2960 more rows"));
    assert!(
        page.contains("<h4>passes 13–2001</h4><p class=\"none\">not drawn: 3000 more rows sent")
    );
}

fn report_with(scenario: Scenario) -> Report {
    report(vec![row("huge", Some(scenario), &[])])
}
