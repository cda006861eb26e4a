//! The reference's own checks of what the case table cannot see: the typed
//! refusal of an id that does not increase, the copy `unsent` returns, the
//! broker's failures one attempt at a time, and each member the practice's
//! limits added (the hash's vectors, the fetch's filters, the attempt
//! count, dead letters and parking, the consumer's clock), with the four
//! examples of SPEC.md played part by part.

use std::collections::HashMap;

use crate::{
    AttemptCap, Broker, DeadLetter, Failure, Fetch, FlakyBroker, IdempotentConsumer, Message,
    MessageId, OnExhausted, OutOfOrder, OutboxRelay, OutboxTable, Partition, PublishFailed,
    RelayOptions,
};

fn seeded_table() -> OutboxTable {
    let mut table = OutboxTable::new();
    table
        .add(Message::new(1, "order-1", "OrderPlaced"))
        .unwrap();
    table
        .add(Message::new(2, "order-2", "OrderPlaced"))
        .unwrap();
    table.add(Message::new(3, "order-1", "OrderPaid")).unwrap();
    table
}

fn broker(failures: &[(u64, Failure)]) -> FlakyBroker {
    let failures: HashMap<u64, Failure> = failures.iter().copied().collect();
    FlakyBroker::new(IdempotentConsumer::new(), failures)
}

fn ids(table: &OutboxTable) -> Vec<u64> {
    fetched(table, 10, Partition::default(), Fetch::Rows)
}

fn fetched(table: &OutboxTable, limit: usize, partition: Partition, fetch: Fetch) -> Vec<u64> {
    let batch = table.unsent(limit, partition, fetch);
    batch.iter().map(|m| m.id).collect()
}

fn table_of(rows: &[(MessageId, &str, &str)]) -> OutboxTable {
    let mut table = OutboxTable::new();
    for &(id, aggregate, event_type) in rows {
        table.add(Message::new(id, aggregate, event_type)).unwrap();
    }
    table
}

#[test]
fn unsent_is_a_copy_of_the_oldest_rows_in_insertion_order() {
    let mut table = seeded_table();
    table.mark_sent(1);
    let batch = table.unsent(1, Partition::default(), Fetch::Rows);
    table.mark_sent(2);
    assert_eq!(batch, [Message::new(2, "order-2", "OrderPlaced")]);
    assert_eq!(ids(&table), [3]);
    assert!(table.has_unsent());
    table.mark_sent(3);
    assert!(!table.has_unsent());
}

#[test]
fn add_refuses_an_id_that_does_not_increase_even_after_a_drain() {
    let mut table = seeded_table();
    let err = table
        .add(Message::new(3, "order-2", "OrderPaid"))
        .unwrap_err();
    assert_eq!(err, OutOfOrder { id: 3, last_id: 3 });
    assert_eq!(
        err.to_string(),
        "message id 3 is not greater than the last id 3"
    );
    assert_eq!(ids(&table), [1, 2, 3], "a refused row is not added");
    for id in 1..=3 {
        table.mark_sent(id);
    }
    assert!(table
        .add(Message::new(2, "order-2", "OrderShipped"))
        .is_err());
    table
        .add(Message::new(4, "order-2", "OrderShipped"))
        .unwrap();
    assert_eq!(ids(&table), [4]);
}

#[test]
fn down_does_not_deliver_and_lost_ack_does() {
    let message = Message::new(1, "order-1", "OrderPlaced");
    let mut down = broker(&[(1, Failure::Down)]);
    let failed = down.publish(&message).unwrap_err();
    assert_eq!(
        failed,
        PublishFailed {
            failure: Failure::Down
        }
    );
    assert_eq!(failed.to_string(), "publish failed: broker down");
    assert!(down.consumer().journal().is_empty());

    let mut lost = broker(&[(1, Failure::LostAck)]);
    let failed = lost.publish(&message).unwrap_err();
    assert_eq!(failed.to_string(), "publish failed: ack lost");
    assert_eq!(lost.consumer().journal(), ["order-1 OrderPlaced"]);
}

#[test]
fn a_failure_blocks_its_order_for_the_rest_of_the_pass() {
    let mut table = seeded_table();
    let mut broker = broker(&[(1, Failure::Down)]);
    let mut relay = OutboxRelay::new(&mut table, &mut broker, 10);
    assert_eq!(
        relay.run_once(),
        [2],
        "order-1's OrderPaid must not overtake its OrderPlaced"
    );
    assert_eq!(relay.run_once(), [1, 3]);
    assert_eq!(
        broker.consumer().journal(),
        [
            "order-2 OrderPlaced",
            "order-1 OrderPlaced",
            "order-1 OrderPaid"
        ]
    );
}

#[test]
fn the_consumer_drops_a_repeat_by_id_and_counts_it() {
    let mut consumer = IdempotentConsumer::new();
    let placed = Message::new(7, "order-1", "OrderPlaced");
    consumer.handle(&placed);
    consumer.handle(&placed);
    consumer.handle(&Message::new(8, "order-1", "OrderPlaced"));
    assert_eq!(
        consumer.journal(),
        ["order-1 OrderPlaced", "order-1 OrderPlaced"]
    );
    assert_eq!(consumer.duplicates(), 1);
}

#[test]
fn fnv1a32_hashes_utf8_bytes_as_an_unsigned_number() {
    for (text, hash) in [
        ("", 0x811c_9dc5),
        ("a", 0xe40c_292c),
        ("foobar", 0xbf9c_f968),
        ("order-1", 0x2b7f_cd6d),
        ("order-2", 0x287f_c8b4),
        // UTF-8 bytes: hashing UTF-16 code units gives 0x537e7965.
        ("order-é", 0x5fd9_4d7a),
        // Over 2^31, not ASCII: a signed remainder by 3 is -2, no relay.
        ("заказ-1", 0xcba8_ad55),
        // Over 2^31: Java's `%` on an int gives 0 by 3, not 1.
        ("order-10", 0xd730_4967),
    ] {
        assert_eq!(Partition::fnv1a32(text), hash, "fnv1a32({text:?})");
    }
}

#[test]
fn a_partition_owns_the_orders_whose_hash_falls_on_its_index() {
    let of = |index, count| Partition { index, count };
    assert_eq!(Partition::default(), of(0, 1));
    assert!(["", "order-1", "заказ-1"]
        .iter()
        .all(|a| Partition::default().owns(a)));
    assert!(of(1, 2).owns("order-1") && of(0, 2).owns("order-2"));
    assert!(!of(0, 2).owns("order-1") && !of(1, 2).owns("order-2"));
    let owners = |aggregate| {
        (0..3)
            .filter(|&i| of(i, 3).owns(aggregate))
            .collect::<Vec<_>>()
    };
    assert_eq!(owners("order-é"), [1]);
    assert_eq!(owners("заказ-1"), [2]);
    assert_eq!(owners("order-10"), [1]);
}

#[test]
fn the_filters_come_before_the_limit() {
    let table = table_of(&[
        (1, "order-1", "OrderPlaced"),
        (2, "order-1", "OrderPaid"),
        (3, "order-2", "OrderPlaced"),
        (4, "order-1", "OrderShipped"),
        (5, "order-3", "OrderPlaced"),
        (6, "order-2", "OrderPaid"),
    ]);
    let whole = Partition::default();
    assert_eq!(fetched(&table, 2, whole, Fetch::Rows), [1, 2]);
    assert_eq!(fetched(&table, 10, whole, Fetch::Heads), [1, 3, 5]);
    assert_eq!(
        fetched(&table, 2, whole, Fetch::Heads),
        [1, 3],
        "heads' limit counts orders"
    );
    // order-1 and order-3 hash to relay 1 of 2, order-2 to relay 0.
    let second = Partition { index: 1, count: 2 };
    assert_eq!(
        fetched(&table, 2, second, Fetch::Rows),
        [1, 2],
        "other partitions' rows take no slot"
    );
    assert_eq!(fetched(&table, 10, second, Fetch::Heads), [1, 5]);
    let first = Partition { index: 0, count: 2 };
    assert_eq!(fetched(&table, 1, first, Fetch::Rows), [3]);
}

#[test]
fn a_parked_order_is_not_fetched_until_it_is_unparked() {
    let mut table = table_of(&[
        (1, "order-1", "OrderPlaced"),
        (2, "order-2", "OrderPlaced"),
        (3, "order-1", "OrderPaid"),
    ]);
    table.unpark("order-1");
    assert_eq!(ids(&table), [1, 2, 3], "unparking what is not parked");
    table.park("order-1");
    let whole = Partition::default();
    assert_eq!(
        fetched(&table, 1, whole, Fetch::Rows),
        [2],
        "a parked row takes no slot"
    );
    assert_eq!(fetched(&table, 10, whole, Fetch::Heads), [2]);
    table.mark_sent(2);
    assert!(table.has_unsent(), "a parked row is still unsent");
    table.unpark("order-1");
    assert_eq!(ids(&table), [1, 3]);
}

#[test]
fn failures_are_counted_per_row_and_never_reset() {
    let mut table = seeded_table();
    assert_eq!(table.mark_failed(1), 1);
    assert_eq!(table.mark_failed(3), 1);
    assert_eq!(table.mark_failed(1), 2);
    assert_eq!(ids(&table), [1, 2, 3], "a failure leaves the row unsent");
    let letter = table.dead_letter(1);
    let placed = Message::new(1, "order-1", "OrderPlaced");
    let expected = DeadLetter {
        message: placed,
        attempts: 2,
    };
    assert_eq!(letter, expected);
    assert_eq!(table.dead_letters(), [expected]);
    assert_eq!(ids(&table), [2, 3], "a dead letter is not unsent");
    assert_eq!(table.mark_failed(3), 2);
    table.mark_sent(2);
    table.mark_sent(3);
    assert!(!table.has_unsent(), "dead letters are no work");
    assert_eq!(table.dead_letters().len(), 1);
}

fn cap(max_attempts: u64, on_exhausted: OnExhausted) -> Option<AttemptCap> {
    Some(AttemptCap {
        max_attempts,
        on_exhausted,
    })
}

/// SPEC's example: `max_attempts: 2`, Down on attempts 1 and 3.
#[test]
fn the_cap_releases_an_order_after_its_dead_letter() {
    let mut table = seeded_table();
    let mut broker = broker(&[(1, Failure::Down), (3, Failure::Down)]);
    let mut runs = Vec::new();
    for _ in 0..3 {
        let mut dead = Vec::new();
        let mut alert = |letter: &DeadLetter| dead.push(letter.message.id);
        let options = RelayOptions {
            cap: cap(2, OnExhausted::Release),
            alert: Some(&mut alert),
            ..RelayOptions::default()
        };
        let sent = OutboxRelay::with_options(&mut table, &mut broker, 10, options).run_once();
        runs.push((sent, dead));
    }
    let expected = [(vec![2], vec![]), (vec![], vec![1]), (vec![3], vec![])];
    assert_eq!(runs, expected, "(sent, dead-lettered) per run");
    assert_eq!(table.dead_letters()[0].attempts, 2);
    let journal = broker.consumer().journal();
    assert_eq!(journal, ["order-2 OrderPlaced", "order-1 OrderPaid"]);
    assert_eq!(broker.consumer().duplicates(), 0);
}

#[test]
fn park_holds_the_order_and_a_lost_ack_dead_letter_was_delivered() {
    let mut table = seeded_table();
    let mut broker = broker(&[(1, Failure::LostAck)]);
    let mut alerts = Vec::new();
    let mut alert = |letter: &DeadLetter| alerts.push(letter.clone());
    let options = RelayOptions {
        cap: cap(1, OnExhausted::Park),
        alert: Some(&mut alert),
        ..RelayOptions::default()
    };
    let mut relay = OutboxRelay::with_options(&mut table, &mut broker, 10, options);
    assert_eq!(relay.run_once(), [2]);
    assert_eq!(relay.run_once(), [], "order-1 is parked");
    assert_eq!(alerts.len(), 1);
    assert_eq!(alerts[0].message.id, 1);
    assert_eq!(table.dead_letters(), alerts);
    table.unpark("order-1");
    let mut relay = OutboxRelay::new(&mut table, &mut broker, 10);
    assert_eq!(relay.run_once(), [3], "the dead letter is not retried");
    let journal = broker.consumer().journal();
    let delivered = [
        "order-1 OrderPlaced",
        "order-2 OrderPlaced",
        "order-1 OrderPaid",
    ];
    assert_eq!(journal, delivered, "a dead letter means unconfirmed");
}

#[test]
fn without_a_cap_a_failing_row_is_retried_forever() {
    let mut table = table_of(&[(1, "order-1", "OrderPlaced")]);
    let failures: Vec<(u64, Failure)> = (1..=5).map(|n| (n, Failure::Down)).collect();
    let mut broker = broker(&failures);
    let mut relay = OutboxRelay::new(&mut table, &mut broker, 10);
    for _ in 0..5 {
        assert_eq!(relay.run_once(), []);
    }
    assert_eq!(relay.run_once(), [1]);
    assert!(table.dead_letters().is_empty());
}

/// SPEC's example: `relays: 2`, two passes, nothing fails.
#[test]
fn two_relays_split_the_orders_by_hash() {
    let mut table = table_of(&[
        (1, "order-1", "OrderPlaced"),
        (2, "order-2", "OrderPlaced"),
        (3, "order-1", "OrderPaid"),
        (4, "order-2", "OrderPaid"),
    ]);
    let mut broker = broker(&[]);
    let mut sent = Vec::new();
    for _ in 0..2 {
        for index in 0..2 {
            let options = RelayOptions {
                partition: Partition { index, count: 2 },
                ..RelayOptions::default()
            };
            let mut relay = OutboxRelay::with_options(&mut table, &mut broker, 10, options);
            sent.push(relay.run_once());
        }
    }
    let runs: [&[MessageId]; 4] = [&[2, 4], &[1, 3], &[], &[]];
    assert_eq!(sent, runs);
    let journal = broker.consumer().journal();
    assert_eq!(journal[0], "order-2 OrderPlaced");
    assert_eq!(journal[3], "order-1 OrderPaid");
}

/// SPEC's example: batch 3, `fetch: "heads"`, Down on attempts 1 and 2.
#[test]
fn heads_let_other_orders_past_a_blocked_one() {
    let mut table = table_of(&[
        (1, "order-1", "OrderPlaced"),
        (2, "order-1", "OrderPaid"),
        (3, "order-1", "OrderShipped"),
        (4, "order-2", "OrderPlaced"),
    ]);
    let mut broker = broker(&[(1, Failure::Down), (2, Failure::Down)]);
    let options = RelayOptions {
        fetch: Fetch::Heads,
        ..RelayOptions::default()
    };
    let mut relay = OutboxRelay::with_options(&mut table, &mut broker, 3, options);
    let sent: Vec<Vec<MessageId>> = (0..3).map(|_| relay.run_once()).collect();
    let runs: [&[MessageId]; 3] = [&[], &[1, 4], &[2]];
    assert_eq!(sent, runs);
}

#[test]
fn the_consumer_forgets_an_id_retention_passes_after_applying_it() {
    let placed = Message::new(1, "order-1", "OrderPlaced");
    let mut consumer = IdempotentConsumer::with_retention(Some(3));
    consumer.tick();
    consumer.handle(&placed); // applied at pass 1
    consumer.tick();
    consumer.handle(&placed); // dropped at pass 2, not a new window
    consumer.tick();
    consumer.handle(&placed); // dropped at pass 3 = 1 + 3 - 1
    assert_eq!(consumer.duplicates(), 2);
    consumer.tick();
    consumer.handle(&placed); // forgotten at pass 4: applied again
    assert_eq!(consumer.journal(), ["order-1 OrderPlaced"; 2]);
    consumer.tick();
    consumer.handle(&placed); // remembered from pass 4
    assert_eq!(consumer.duplicates(), 3);

    let mut forever = IdempotentConsumer::new();
    forever.handle(&placed);
    for _ in 0..1000 {
        forever.tick();
    }
    forever.handle(&placed);
    assert_eq!(forever.duplicates(), 1, "new() keeps ids forever");
    let mut none = IdempotentConsumer::with_retention(None);
    none.handle(&placed);
    none.tick();
    none.handle(&placed);
    assert_eq!(none.duplicates(), 1);
}

/// SPEC's example: `retention: 1`, LostAck on attempt 1, two passes.
#[test]
fn a_retention_shorter_than_the_redelivery_applies_it_twice() {
    let mut table = seeded_table();
    let failures = HashMap::from([(1, Failure::LostAck)]);
    let consumer = IdempotentConsumer::with_retention(Some(1));
    let mut broker = FlakyBroker::new(consumer, failures);
    let mut sent = Vec::new();
    for _ in 0..2 {
        broker.consumer_mut().tick();
        sent.push(OutboxRelay::new(&mut table, &mut broker, 10).run_once());
    }
    let runs: [&[MessageId]; 2] = [&[2], &[1, 3]];
    assert_eq!(sent, runs);
    let journal = [
        "order-1 OrderPlaced",
        "order-2 OrderPlaced",
        "order-1 OrderPlaced",
        "order-1 OrderPaid",
    ];
    assert_eq!(broker.consumer().journal(), journal);
    assert_eq!(broker.consumer().duplicates(), 0);
}
