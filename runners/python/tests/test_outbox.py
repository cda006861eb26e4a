"""The Python idioms the parity table cannot see: the enum compared by
identity, the exceptions, the copied batch, the accessors, the table's typed
refusal. Run from the repository root:
``python3 -S -E -m unittest discover -s runners/python/tests -t runners/python``.
"""

import unittest

from outbox import (
    Failure,
    FlakyBroker,
    IdempotentConsumer,
    Message,
    OutboxRelay,
    OutboxTable,
    OutOfOrder,
    PublishFailed,
)


def seeded_table() -> OutboxTable:
    table = OutboxTable()
    table.add(Message(1, "order-1", "OrderPlaced"))
    table.add(Message(2, "order-2", "OrderPlaced"))
    table.add(Message(3, "order-1", "OrderPaid"))
    return table


class BrokerTest(unittest.TestCase):
    def test_a_scripted_failure_is_the_enum_member_itself(self) -> None:
        consumer = IdempotentConsumer()
        broker = FlakyBroker(consumer, {1: Failure.DOWN})
        with self.assertRaises(PublishFailed) as caught:
            broker.publish(Message(1, "order-1", "OrderPlaced"))
        self.assertIs(caught.exception.failure, Failure.DOWN)
        self.assertEqual(str(caught.exception), "publish failed: broker down")
        self.assertEqual(consumer.journal, [], "a message the broker was down for is not delivered")


class TableTest(unittest.TestCase):
    def test_unsent_is_a_copy_of_the_oldest_rows_in_insertion_order(self) -> None:
        table = seeded_table()
        table.mark_sent(1)
        batch = table.unsent(1)
        table.mark_sent(2)
        self.assertEqual(batch, [Message(2, "order-2", "OrderPlaced")])
        self.assertEqual([m.id for m in table.unsent(10)], [3])

    def test_add_refuses_an_id_that_does_not_increase(self) -> None:
        table = seeded_table()
        with self.assertRaises(OutOfOrder) as caught:
            table.add(Message(3, "order-2", "OrderPaid"))
        self.assertEqual((caught.exception.id, caught.exception.last_id), (3, 3))
        self.assertEqual(str(caught.exception), "message id 3 is not greater than the last id 3")
        self.assertEqual([m.id for m in table.unsent(10)], [1, 2, 3])

    def test_add_remembers_the_last_id_after_the_table_drained(self) -> None:
        table = seeded_table()
        for message_id in (1, 2, 3):
            table.mark_sent(message_id)
        self.assertFalse(table.has_unsent())
        with self.assertRaises(OutOfOrder):
            table.add(Message(2, "order-2", "OrderShipped"))
        table.add(Message(4, "order-2", "OrderShipped"))
        self.assertEqual([m.id for m in table.unsent(10)], [4])


class RelayTest(unittest.TestCase):
    def test_a_failure_blocks_its_order_for_the_rest_of_the_pass(self) -> None:
        consumer = IdempotentConsumer()
        relay = OutboxRelay(seeded_table(), FlakyBroker(consumer, {1: Failure.DOWN}), batch_size=10)
        self.assertEqual(relay.run_once(), [2], "order-1's OrderPaid must not overtake its OrderPlaced")
        self.assertEqual(relay.run_once(), [1, 3])
        self.assertEqual(consumer.journal, ["order-2 OrderPlaced", "order-1 OrderPlaced", "order-1 OrderPaid"])

    def test_an_error_that_is_not_a_publish_failure_propagates(self) -> None:
        class BrokenBroker:
            def publish(self, message: Message) -> None:
                raise OSError("disk on fire")

        table = seeded_table()
        with self.assertRaises(OSError):
            OutboxRelay(table, BrokenBroker(), batch_size=10).run_once()
        self.assertEqual(len(table.unsent(10)), 3)


class ConsumerTest(unittest.TestCase):
    def test_a_repeat_is_dropped_by_id_and_counted(self) -> None:
        consumer = IdempotentConsumer()
        placed = Message(7, "order-1", "OrderPlaced")
        consumer.handle(placed)
        consumer.handle(placed)
        consumer.handle(Message(8, "order-1", "OrderPlaced"))
        self.assertEqual(consumer.journal, ["order-1 OrderPlaced", "order-1 OrderPlaced"])
        self.assertEqual(consumer.duplicates, 1)

    def test_the_state_is_read_through_accessors(self) -> None:
        consumer = IdempotentConsumer()
        consumer.handle(Message(7, "order-1", "OrderPlaced"))
        consumer.journal.append("forged")
        self.assertEqual(consumer.journal, ["order-1 OrderPlaced"], "the journal is a copy")
        with self.assertRaises(AttributeError):
            consumer.duplicates = 5  # type: ignore[misc]


if __name__ == "__main__":
    unittest.main()
