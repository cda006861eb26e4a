//! The observing broker and the traced pass: every row of a batch reported,
//! in order, and nothing the relay or the consumer does changed by it.

use std::collections::HashMap;

use outbox::{Failure, FlakyBroker, IdempotentConsumer, Message, OutboxRelay, OutboxTable};

use super::super::trace::{traced_pass, with_held_back, Event, ObservedBroker};

fn table(rows: &[(u64, &str, &str)]) -> OutboxTable {
    let mut table = OutboxTable::new();
    for &(id, aggregate, event_type) in rows {
        table.add(Message::new(id, aggregate, event_type)).unwrap();
    }
    table
}

fn observed(failures: &[(u64, Failure)]) -> ObservedBroker {
    let failures: HashMap<u64, Failure> = failures.iter().copied().collect();
    ObservedBroker::new(FlakyBroker::new(IdempotentConsumer::new(), failures))
}

/// (attempt, id, failure, duplicate) or (held, id) as text, so a whole pass
/// reads as one line in an assertion.
fn story(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .map(|event| match event {
            Event::Attempt {
                attempt,
                message,
                failure,
                duplicate_dropped,
            } => format!(
                "{attempt}:#{} {}{}",
                message.id,
                failure.map_or("Published".into(), |f| format!("{f:?}")),
                if *duplicate_dropped { " dup" } else { "" }
            ),
            Event::HeldBack { message } => format!("held #{}", message.id),
        })
        .collect()
}

#[test]
fn every_row_of_the_batch_is_reported_in_order() {
    let mut table = table(&[
        (1, "order-1", "OrderPlaced"),
        (2, "order-2", "OrderPlaced"),
        (3, "order-1", "OrderPaid"),
        (4, "order-2", "OrderPaid"),
    ]);
    let mut broker = observed(&[(1, Failure::LostAck), (2, Failure::Down)]);
    let (sent, first) = traced_pass(&mut table, &mut broker, 10);
    assert_eq!(sent, Vec::<u64>::new());
    assert_eq!(
        story(&first),
        ["1:#1 LostAck", "2:#2 Down", "held #3", "held #4"]
    );
    let (sent, second) = traced_pass(&mut table, &mut broker, 10);
    assert_eq!(sent, [1, 2, 3, 4]);
    assert_eq!(
        story(&second),
        [
            "3:#1 Published dup",
            "4:#2 Published",
            "5:#3 Published",
            "6:#4 Published",
        ]
    );
    let (sent, idle) = traced_pass(&mut table, &mut broker, 10);
    assert!(sent.is_empty() && idle.is_empty());
}

#[test]
fn observing_changes_nothing_the_relay_or_consumer_does() {
    let rows = [
        (1, "order-1", "A"),
        (2, "order-1", "B"),
        (3, "order-2", "A"),
    ];
    let failures = [(1, Failure::LostAck), (4, Failure::Down)];

    let mut plain_table = table(&rows);
    let mut plain = FlakyBroker::new(
        IdempotentConsumer::new(),
        failures.iter().copied().collect(),
    );
    let mut seen_table = table(&rows);
    let mut seen = observed(&failures);
    let mut events = Vec::new();
    for _ in 0..3 {
        let expected = OutboxRelay::new(&mut plain_table, &mut plain, 2).run_once();
        let (actual, pass) = traced_pass(&mut seen_table, &mut seen, 2);
        assert_eq!(actual, expected);
        events.extend(pass);
    }
    let broker = seen.broker();
    assert_eq!(broker.consumer().journal(), plain.consumer().journal());
    assert_eq!(
        broker.consumer().duplicates(),
        plain.consumer().duplicates()
    );
    let attempts: Vec<(u64, Option<Failure>)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Attempt {
                attempt, failure, ..
            } => Some((*attempt, *failure)),
            Event::HeldBack { .. } => None,
        })
        .collect();
    // The report's count is the one the broker's script is keyed by: the
    // attempts run 1, 2, 3, ... and fail exactly where the script says.
    let scripted = |n| failures.iter().find(|(at, _)| *at == n).map(|f| f.1);
    let expected: Vec<_> = (1..=attempts.len() as u64)
        .map(|n| (n, scripted(n)))
        .collect();
    assert_eq!(attempts, expected);
    let dropped = events
        .iter()
        .filter(|e| {
            matches!(
                e,
                Event::Attempt {
                    duplicate_dropped: true,
                    ..
                }
            )
        })
        .count();
    assert_eq!(dropped as u64, plain.consumer().duplicates());
}

#[test]
fn a_row_without_an_attempt_was_held_back_and_stray_attempts_stay() {
    let rows = [
        Message::new(1, "order-1", "A"),
        Message::new(2, "order-1", "B"),
        Message::new(3, "order-2", "A"),
    ];
    let attempt = |attempt, message: &Message, failure| Event::Attempt {
        attempt,
        message: message.clone(),
        failure,
        duplicate_dropped: false,
    };
    let events = with_held_back(
        &rows,
        vec![
            attempt(1, &rows[0], Some(Failure::Down)),
            attempt(2, &rows[2], None),
        ],
    );
    assert_eq!(story(&events), ["1:#1 Down", "held #2", "2:#3 Published"]);
    // A batch cut to its first row: the later attempt is not lost.
    let events = with_held_back(
        &rows[..1],
        vec![attempt(1, &rows[0], None), attempt(2, &rows[1], None)],
    );
    assert_eq!(story(&events), ["1:#1 Published", "2:#2 Published"]);
}
