//! The reference's own checks of what the case table cannot see: the typed
//! refusal of an id that does not increase, the copy `unsent` returns, and
//! the broker's failures one attempt at a time.

use std::collections::HashMap;

use crate::{
    Broker, Failure, FlakyBroker, IdempotentConsumer, Message, OutOfOrder, OutboxRelay,
    OutboxTable, PublishFailed,
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
    table.unsent(10).iter().map(|m| m.id).collect()
}

#[test]
fn unsent_is_a_copy_of_the_oldest_rows_in_insertion_order() {
    let mut table = seeded_table();
    table.mark_sent(1);
    let batch = table.unsent(1);
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
