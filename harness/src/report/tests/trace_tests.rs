//! The observing broker and the traced pass: every row of a batch reported,
//! in order, and nothing the relay or the consumer does changed by it.

use outbox::{Failure, FlakyBroker, IdempotentConsumer, Message, OutboxRelay, OutboxTable};

use super::super::trace::{traced_run, with_held_back, Attempt, Event, ObservedBroker};

fn table(rows: &[(u64, &str, &str)]) -> OutboxTable {
    let mut table = OutboxTable::new();
    for &(id, aggregate, event_type) in rows {
        table.add(Message::new(id, aggregate, event_type)).unwrap();
    }
    table
}

/// (attempt, id, failure, duplicate) or (held, id) as text, so a whole pass
/// reads as one line in an assertion.
fn story(events: &[Event]) -> Vec<String> {
    let one = |Event { message, attempt }: &Event| match attempt {
        Some(a) => format!(
            "{}:#{} {}{}",
            a.number,
            message.id,
            a.failure.map_or("Published".into(), |f| format!("{f:?}")),
            if a.duplicate_dropped { " dup" } else { "" }
        ),
        None => format!("held #{}", message.id),
    };
    events.iter().map(one).collect()
}

/// Every row of a batch is reported in order (an attempt, numbered as the
/// broker's script counts them, or held back), and observing changes
/// nothing the relay or the consumer does: the same sends, journal and
/// duplicates as the plain broker's, pass by pass.
#[test]
fn every_row_is_reported_in_order_and_observing_changes_nothing() {
    let rows = [
        (1, "order-1", "OrderPlaced"),
        (2, "order-2", "OrderPlaced"),
        (3, "order-1", "OrderPaid"),
        (4, "order-2", "OrderPaid"),
    ];
    let failures = [(1, Failure::LostAck), (2, Failure::Down)];
    let (mut plain_table, mut seen_table) = (table(&rows), table(&rows));
    let broker = || FlakyBroker::new(IdempotentConsumer::new(), failures.into_iter().collect());
    let (mut plain, mut seen) = (broker(), ObservedBroker::new(broker()));
    let mut passes = Vec::new();
    for _ in 0..4 {
        let expected = OutboxRelay::new(&mut plain_table, &mut plain, 3).run_once();
        let batch_of_three = crate::table::Scenario {
            batch_size: 3,
            ..Default::default()
        };
        let (run, events) = traced_run(&mut seen_table, &mut seen, &batch_of_three, 0);
        let sent = run.sent;
        assert_eq!(sent, expected);
        passes.push(format!("{sent:?} {}", story(&events).join(", ")));
    }
    assert_eq!(
        passes,
        [
            "[] 1:#1 LostAck, 2:#2 Down, held #3",
            "[1, 2, 3] 3:#1 Published dup, 4:#2 Published, 5:#3 Published",
            "[4] 6:#4 Published",
            "[] ",
        ]
    );
    let consumer = seen.broker.consumer();
    assert_eq!(consumer.journal(), plain.consumer().journal());
    assert_eq!(
        (consumer.duplicates(), plain.consumer().duplicates()),
        (1, 1)
    );
}

#[test]
fn a_row_without_an_attempt_was_held_back_and_stray_attempts_stay() {
    let rows = [
        Message::new(1, "order-1", "A"),
        Message::new(2, "order-1", "B"),
        Message::new(3, "order-2", "A"),
    ];
    let attempt = |number, message: &Message, failure| Event {
        message: message.clone(),
        attempt: Some(Attempt {
            number,
            failure,
            duplicate_dropped: false,
            reapplied: false,
        }),
    };
    // A batch cut to its first two rows: #2 had no attempt, and the attempt
    // for #3, beyond the batch, is not lost.
    let attempts = vec![
        attempt(1, &rows[0], Some(Failure::Down)),
        attempt(2, &rows[2], None),
    ];
    let events = with_held_back(&rows[..2], attempts);
    assert_eq!(story(&events), ["1:#1 Down", "held #2", "2:#3 Published"]);
}
