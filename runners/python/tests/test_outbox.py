"""The Python idioms the parity table cannot see: the enum compared by
identity, the exceptions, the copied batch, the accessors, the table's typed
refusal; and each member the practice's limits added (the hash's vectors,
the fetch's filters, the attempt count, dead letters and parking, the
consumer's clock), with the four examples of SPEC.md played part by part.
Run from the repository root:
``python3 -S -E -m unittest discover -s runners/python/tests -t runners/python``.
"""

import unittest

from outbox import (
    AttemptCap,
    DeadLetter,
    Failure,
    Fetch,
    FlakyBroker,
    IdempotentConsumer,
    Message,
    OnExhausted,
    OutboxRelay,
    OutboxTable,
    OutOfOrder,
    Partition,
    PublishFailed,
)


def seeded_table() -> OutboxTable:
    return table_of(
        (1, "order-1", "OrderPlaced"), (2, "order-2", "OrderPlaced"), (3, "order-1", "OrderPaid")
    )


def table_of(*rows: tuple[int, str, str]) -> OutboxTable:
    table = OutboxTable()
    for row in rows:
        table.add(Message(*row))
    return table


def fetched(
    table: OutboxTable, limit: int, partition: Partition = Partition(), fetch: Fetch = Fetch.ROWS
) -> list[int]:
    return [m.id for m in table.unsent(limit, partition, fetch)]


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
        self.assertEqual(
            relay.run_once(), [2], "order-1's OrderPaid must not overtake its OrderPlaced"
        )
        self.assertEqual(relay.run_once(), [1, 3])
        self.assertEqual(
            consumer.journal, ["order-2 OrderPlaced", "order-1 OrderPlaced", "order-1 OrderPaid"]
        )

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


class PartitionTest(unittest.TestCase):
    def test_fnv1a32_hashes_utf8_bytes_as_an_unsigned_number(self) -> None:
        for text, expected in [
            ("", 0x811C9DC5),
            ("a", 0xE40C292C),
            ("foobar", 0xBF9CF968),
            ("order-1", 0x2B7FCD6D),
            ("order-2", 0x287FC8B4),
            # UTF-8 bytes: hashing UTF-16 code units gives 0x537e7965.
            ("order-é", 0x5FD94D7A),
            # Over 2^31, not ASCII: a signed remainder by 3 is -2, no relay.
            ("заказ-1", 0xCBA8AD55),
            # Over 2^31: Java's `%` on an int gives 0 by 3, not 1.
            ("order-10", 0xD7304967),
        ]:
            with self.subTest(text):
                self.assertEqual(Partition.fnv1a32(text), expected)

    def test_a_partition_owns_the_orders_whose_hash_falls_on_its_index(self) -> None:
        def owners(aggregate: str, count: int) -> list[int]:
            return [i for i in range(count) if Partition(i, count).owns(aggregate)]

        self.assertEqual(Partition(), Partition(0, 1))
        self.assertTrue(all(Partition().owns(a) for a in ("", "order-1", "заказ-1")))
        self.assertEqual((owners("order-1", 2), owners("order-2", 2)), ([1], [0]))
        self.assertEqual(owners("order-é", 3), [1])
        self.assertEqual(owners("заказ-1", 3), [2])
        self.assertEqual(owners("order-10", 3), [1])


class FetchTest(unittest.TestCase):
    def test_the_filters_come_before_the_limit(self) -> None:
        table = table_of(
            (1, "order-1", "OrderPlaced"),
            (2, "order-1", "OrderPaid"),
            (3, "order-2", "OrderPlaced"),
            (4, "order-1", "OrderShipped"),
            (5, "order-3", "OrderPlaced"),
            (6, "order-2", "OrderPaid"),
        )
        self.assertEqual(fetched(table, 2), [1, 2])
        self.assertEqual(fetched(table, 10, fetch=Fetch.HEADS), [1, 3, 5])
        self.assertEqual(fetched(table, 2, fetch=Fetch.HEADS), [1, 3], "heads' limit counts orders")
        # order-1 and order-3 hash to relay 1 of 2, order-2 to relay 0.
        second = Partition(1, 2)
        self.assertEqual(fetched(table, 2, second), [1, 2], "other partitions' rows take no slot")
        self.assertEqual(fetched(table, 10, second, Fetch.HEADS), [1, 5])
        self.assertEqual(fetched(table, 1, Partition(0, 2)), [3])

    def test_a_parked_order_is_not_fetched_until_it_is_unparked(self) -> None:
        table = seeded_table()
        table.unpark("order-1")
        self.assertEqual(fetched(table, 10), [1, 2, 3], "unparking what is not parked")
        table.park("order-1")
        self.assertEqual(fetched(table, 1), [2], "a parked row takes no slot")
        self.assertEqual(fetched(table, 10, fetch=Fetch.HEADS), [2])
        table.mark_sent(2)
        self.assertTrue(table.has_unsent(), "a parked row is still unsent")
        table.unpark("order-1")
        self.assertEqual(fetched(table, 10), [1, 3])


class DeadLetterTest(unittest.TestCase):
    def test_failures_are_counted_per_row_and_never_reset(self) -> None:
        table = seeded_table()
        self.assertEqual(
            [table.mark_failed(1), table.mark_failed(3), table.mark_failed(1)], [1, 1, 2]
        )
        self.assertEqual(fetched(table, 10), [1, 2, 3], "a failure leaves the row unsent")
        letter = table.dead_letter(1)
        expected = DeadLetter(Message(1, "order-1", "OrderPlaced"), 2)
        self.assertEqual(letter, expected)
        self.assertEqual(table.dead_letters, [expected])
        self.assertEqual(fetched(table, 10), [2, 3], "a dead letter is not unsent")
        self.assertEqual(table.mark_failed(3), 2)
        table.mark_sent(2)
        table.mark_sent(3)
        self.assertFalse(table.has_unsent(), "dead letters are no work")
        table.dead_letters.clear()
        self.assertEqual(len(table.dead_letters), 1, "the dead letters are read through a copy")

    def test_the_cap_releases_an_order_after_its_dead_letter(self) -> None:
        """SPEC's example: max_attempts 2, Down on attempts 1 and 3."""
        table = seeded_table()
        consumer = IdempotentConsumer()
        broker = FlakyBroker(consumer, {1: Failure.DOWN, 3: Failure.DOWN})
        runs = []
        for _ in range(3):
            letters: list[DeadLetter] = []
            sent = OutboxRelay(
                table, broker, 10, cap=AttemptCap(2), alert=letters.append
            ).run_once()
            runs.append((sent, [letter.message.id for letter in letters]))
        self.assertEqual(runs, [([2], []), ([], [1]), ([3], [])], "(sent, dead-lettered) per run")
        self.assertEqual(table.dead_letters[0].attempts, 2)
        self.assertEqual(consumer.journal, ["order-2 OrderPlaced", "order-1 OrderPaid"])
        self.assertEqual(consumer.duplicates, 0)
        self.assertIs(AttemptCap(3).on_exhausted, OnExhausted.RELEASE, "a cap releases by default")

    def test_park_holds_the_order_and_a_lost_ack_dead_letter_was_delivered(self) -> None:
        table = seeded_table()
        consumer = IdempotentConsumer()
        broker = FlakyBroker(consumer, {1: Failure.LOST_ACK})
        alerts: list[DeadLetter] = []
        relay = OutboxRelay(
            table, broker, 10, cap=AttemptCap(1, OnExhausted.PARK), alert=alerts.append
        )
        self.assertEqual(relay.run_once(), [2])
        self.assertEqual(relay.run_once(), [], "order-1 is parked")
        self.assertEqual([letter.message.id for letter in alerts], [1])
        self.assertEqual(table.dead_letters, alerts)
        table.unpark("order-1")
        self.assertEqual(
            OutboxRelay(table, broker, 10).run_once(), [3], "the dead letter is not retried"
        )
        delivered = ["order-1 OrderPlaced", "order-2 OrderPlaced", "order-1 OrderPaid"]
        self.assertEqual(consumer.journal, delivered, "a dead letter means unconfirmed")

    def test_without_a_cap_a_failing_row_is_retried_forever(self) -> None:
        table = table_of((1, "order-1", "OrderPlaced"))
        failures = dict.fromkeys(range(1, 6), Failure.DOWN)
        relay = OutboxRelay(table, FlakyBroker(IdempotentConsumer(), failures), 10)
        self.assertEqual([relay.run_once() for _ in range(6)], [[], [], [], [], [], [1]])
        self.assertEqual(table.dead_letters, [])


class SeveralRelaysTest(unittest.TestCase):
    def test_two_relays_split_the_orders_by_hash(self) -> None:
        """SPEC's example: relays 2, two passes, nothing fails."""
        table = table_of(
            (1, "order-1", "OrderPlaced"),
            (2, "order-2", "OrderPlaced"),
            (3, "order-1", "OrderPaid"),
            (4, "order-2", "OrderPaid"),
        )
        consumer = IdempotentConsumer()
        broker = FlakyBroker(consumer, {})
        sent = [
            OutboxRelay(table, broker, 10, partition=Partition(index, 2)).run_once()
            for _ in range(2)
            for index in range(2)
        ]
        self.assertEqual(sent, [[2, 4], [1, 3], [], []])
        self.assertEqual(
            (consumer.journal[0], consumer.journal[3]), ("order-2 OrderPlaced", "order-1 OrderPaid")
        )

    def test_heads_let_other_orders_past_a_blocked_one(self) -> None:
        """SPEC's example: batch 3, heads, Down on attempts 1 and 2."""
        table = table_of(
            (1, "order-1", "OrderPlaced"),
            (2, "order-1", "OrderPaid"),
            (3, "order-1", "OrderShipped"),
            (4, "order-2", "OrderPlaced"),
        )
        broker = FlakyBroker(IdempotentConsumer(), {1: Failure.DOWN, 2: Failure.DOWN})
        relay = OutboxRelay(table, broker, 3, fetch=Fetch.HEADS)
        self.assertEqual([relay.run_once() for _ in range(3)], [[], [1, 4], [2]])


class RetentionTest(unittest.TestCase):
    def test_the_consumer_forgets_an_id_retention_passes_after_applying_it(self) -> None:
        placed = Message(1, "order-1", "OrderPlaced")
        consumer = IdempotentConsumer(retention=3)
        consumer.tick()
        consumer.handle(placed)  # applied at pass 1
        consumer.tick()
        consumer.handle(placed)  # dropped at pass 2, not a new window
        consumer.tick()
        consumer.handle(placed)  # dropped at pass 3 = 1 + 3 - 1
        self.assertEqual(consumer.duplicates, 2)
        consumer.tick()
        consumer.handle(placed)  # forgotten at pass 4: applied again
        self.assertEqual(consumer.journal, ["order-1 OrderPlaced"] * 2)
        consumer.tick()
        consumer.handle(placed)  # remembered from pass 4
        self.assertEqual(consumer.duplicates, 3)

        forever = IdempotentConsumer()
        forever.handle(placed)
        for _ in range(1000):
            forever.tick()
        forever.handle(placed)
        self.assertEqual(forever.duplicates, 1, "without a retention ids are kept forever")

    def test_a_retention_shorter_than_the_redelivery_applies_it_twice(self) -> None:
        """SPEC's example: retention 1, LostAck on attempt 1, two passes."""
        table = seeded_table()
        consumer = IdempotentConsumer(retention=1)
        broker = FlakyBroker(consumer, {1: Failure.LOST_ACK})
        sent = []
        for _ in range(2):
            consumer.tick()
            sent.append(OutboxRelay(table, broker, 10).run_once())
        self.assertEqual(sent, [[2], [1, 3]])
        journal = [
            "order-1 OrderPlaced",
            "order-2 OrderPlaced",
            "order-1 OrderPlaced",
            "order-1 OrderPaid",
        ]
        self.assertEqual(consumer.journal, journal)
        self.assertEqual(consumer.duplicates, 0)


if __name__ == "__main__":
    unittest.main()
