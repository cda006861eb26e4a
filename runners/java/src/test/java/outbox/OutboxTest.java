package outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The parity table checks results; these check the Java idioms it cannot see. */
class OutboxTest {
    private static final Message PLACED_1 = new Message(1, "order-1", "OrderPlaced");
    private static final Message PLACED_2 = new Message(2, "order-2", "OrderPlaced");
    private static final Message PAID_1 = new Message(3, "order-1", "OrderPaid");

    private static OutboxTable seeded() {
        var table = new OutboxTable();
        table.add(PLACED_1);
        table.add(PLACED_2);
        table.add(PAID_1);
        return table;
    }

    private static OutboxTable tableOf(Message... rows) {
        var table = new OutboxTable();
        for (Message row : rows) {
            table.add(row);
        }
        return table;
    }

    /** The whole table, row by row: the fetch of a relay built without options. */
    private static List<Message> unsent(OutboxTable table, int limit) {
        return table.unsent(limit, new Partition(), Fetch.ROWS);
    }

    private static List<Long> ids(List<Message> batch) {
        return batch.stream().map(Message::id).toList();
    }

    /**
     * Every Failure is described (the switch expression is exhaustive), and
     * both fail the publish.
     */
    @ParameterizedTest
    @EnumSource(Failure.class)
    void everyFailureFailsThePublishWithItsOwnText(Failure failure) {
        var consumer = new IdempotentConsumer();
        var broker = new FlakyBroker(consumer, Map.of(1L, failure));
        PublishFailed thrown = assertThrows(PublishFailed.class, () -> broker.publish(PLACED_1));
        assertSame(failure, thrown.failure());
        String expected = switch (failure) {
            case DOWN -> "publish failed: broker down";
            case LOST_ACK -> "publish failed: ack lost";
        };
        assertEquals(expected, thrown.getMessage());
        // Down never delivers; a lost ack delivers first.
        assertEquals(failure == Failure.LOST_ACK ? List.of("order-1 OrderPlaced") : List.of(), consumer.journal());
    }

    @Test
    void publishFailedIsCheckedAndOutOfOrderIsNot() throws NoSuchMethodException {
        assertFalse(RuntimeException.class.isAssignableFrom(PublishFailed.class));
        assertTrue(Exception.class.isAssignableFrom(PublishFailed.class));
        var declared = Broker.class.getMethod("publish", Message.class).getExceptionTypes();
        assertEquals(List.of(PublishFailed.class), List.of(declared));
        assertTrue(RuntimeException.class.isAssignableFrom(OutOfOrder.class));
        assertTrue(Modifier.isFinal(PublishFailed.class.getModifiers()));
    }

    @Test
    void theBrokerCountsAttemptsOverItsWholeLife() throws PublishFailed {
        var consumer = new IdempotentConsumer();
        var broker = new FlakyBroker(consumer, Map.of(3L, Failure.DOWN));
        broker.publish(PLACED_1);
        broker.publish(PLACED_2);
        assertThrows(PublishFailed.class, () -> broker.publish(PAID_1));
        broker.publish(PAID_1);
        assertEquals(List.of("order-1 OrderPlaced", "order-2 OrderPlaced", "order-1 OrderPaid"), consumer.journal());
    }

    @Test
    void aFailedMessageBlocksItsOrderForThePassOnly() {
        var table = seeded();
        var consumer = new IdempotentConsumer();
        var broker = new FlakyBroker(consumer, Map.of(1L, Failure.DOWN));
        var relay = new OutboxRelay(table, broker, 10);
        assertEquals(List.of(2L), relay.runOnce(), "3 of order-1 must not overtake the failed 1");
        assertEquals(List.of(1L, 3L), relay.runOnce(), "the next pass retries, in order");
        assertEquals(List.of(), relay.runOnce());
        assertEquals(List.of("order-2 OrderPlaced", "order-1 OrderPlaced", "order-1 OrderPaid"), consumer.journal());
    }

    @Test
    void aLostAckIsSentAgainAndTheConsumerDropsTheRepeat() {
        var table = seeded();
        var consumer = new IdempotentConsumer();
        var relay = new OutboxRelay(table, new FlakyBroker(consumer, Map.of(1L, Failure.LOST_ACK)), 10);
        assertEquals(List.of(2L), relay.runOnce());
        assertEquals(List.of(1L, 3L), relay.runOnce());
        assertEquals(1, consumer.duplicates());
        assertEquals(List.of("order-1 OrderPlaced", "order-2 OrderPlaced", "order-1 OrderPaid"), consumer.journal());
        assertFalse(table.hasUnsent());
    }

    /**
     * The base example's poller catches every exception and goes on; this
     * relay lets a bug through.
     */
    @Test
    void anExceptionThatIsNotAPublishFailureStopsThePass() {
        var table = seeded();
        var published = new ArrayList<Long>();
        Broker broken = message -> {
            published.add(message.id());
            if (message.id() == 1) {
                throw new PublishFailed(Failure.DOWN);
            }
            throw new IllegalStateException("disk on fire");
        };
        var thrown = assertThrows(IllegalStateException.class, () -> new OutboxRelay(table, broken, 10).runOnce());
        assertEquals("disk on fire", thrown.getMessage());
        assertEquals(List.of(1L, 2L), published, "the pass stops at the bug");
        assertEquals(3, unsent(table, 10).size(), "nothing was marked sent");
    }

    @Test
    void theConsumerTellsRepeatsByIdNotByContent() {
        var consumer = new IdempotentConsumer();
        for (long id : new long[] {5, 2, 9, 2, 5, 7}) {
            consumer.handle(new Message(id, "order-1", "OrderPaid"));
        }
        assertEquals(2, consumer.duplicates());
        assertEquals(4, consumer.journal().size(), "four honest, identical events");
        assertThrows(UnsupportedOperationException.class, () -> consumer.journal().add("forged"));
    }

    @Test
    void addRefusesAnIdThatDoesNotIncreaseEvenOnceDrained() {
        var table = seeded();
        OutOfOrder same = assertThrows(OutOfOrder.class, () -> table.add(new Message(3, "order-2", "OrderPaid")));
        assertEquals(3, same.id());
        assertEquals(3, same.lastId());
        assertEquals("message id 3 is not greater than the last id 3", same.getMessage());
        assertEquals(3, unsent(table, 10).size(), "a refused row is not added");
        for (long id = 1; id <= 3; id++) {
            table.markSent(id);
        }
        assertInstanceOf(OutOfOrder.class,
                assertThrows(IllegalArgumentException.class, () -> table.add(new Message(2, "order-2", "x"))));
        table.add(new Message(4, "order-2", "OrderShipped"));
        assertTrue(table.hasUnsent());
    }

    @Test
    void unsentIsACopyOfTheOldestRowsInInsertionOrder() {
        var table = seeded();
        table.markSent(1);
        List<Message> batch = unsent(table, 1);
        assertEquals(List.of(PLACED_2), batch);
        table.markSent(2);
        assertEquals(List.of(PLACED_2), batch, "marking a row changed a batch already taken");
        assertThrows(UnsupportedOperationException.class, () -> batch.add(PAID_1));
        assertEquals(List.of(PAID_1), unsent(table, 10));
    }

    @Test
    void markSentOfAnUnknownOrSentIdChangesNothing() {
        var table = seeded();
        table.markSent(2);
        table.markSent(2);
        table.markSent(42);
        assertEquals(List.of(PLACED_1, PAID_1), unsent(table, 10));
    }

    @Test
    void aMessageIsAValue() {
        assertEquals(new Message(1, "order-1", "OrderPlaced"), PLACED_1);
        assertTrue(Message.class.isRecord());
    }

    /** SPEC's vector: a text, its hash, and its owner among 2 and among 3 relays. */
    private record Vector(String text, long hash, int ownerOf2, int ownerOf3) {}

    @Test
    void fnv1a32HashesUtf8BytesAsAnUnsignedNumber() {
        for (Vector vector : List.of(
                new Vector("", 0x811c9dc5L, 1, 1),
                new Vector("a", 0xe40c292cL, 0, 1),
                new Vector("foobar", 0xbf9cf968L, 0, 1),
                new Vector("order-1", 0x2b7fcd6dL, 1, 1),
                new Vector("order-2", 0x287fc8b4L, 0, 1),
                new Vector("order-é", 0x5fd94d7aL, 0, 1), // UTF-8 bytes
                new Vector("заказ-1", 0xcba8ad55L, 1, 2), // not ASCII, over 2^31
                new Vector("order-10", 0xd7304967L, 1, 1))) { // over 2^31
            String text = vector.text();
            assertEquals(vector.hash(), Partition.fnv1a32(text), text);
            assertEquals(List.of(vector.ownerOf2()), owners(text, 2), text);
            assertEquals(List.of(vector.ownerOf3()), owners(text, 3), text);
        }
    }

    /** The pitfalls SPEC names, each giving another number or another owner. */
    @Test
    void theUtf16AndSignedPitfallsGiveOtherOwners() {
        // Hashing the string's UTF-16 chars: order-é's é is one char, two bytes.
        int utf16 = 0x811c9dc5;
        for (char c : "order-é".toCharArray()) {
            utf16 = (utf16 ^ c) * 16_777_619;
        }
        assertEquals(0x537e7965, utf16);
        assertEquals(List.of(1), owners("order-é", 3), "UTF-16 chars would give owner 2");
        // The same bits as an int are negative: its signed % is -2 or 0.
        int signed = (int) Partition.fnv1a32("заказ-1");
        assertEquals(-2, signed % 3, "no relay owns -2");
        assertEquals(0, (int) Partition.fnv1a32("order-10") % 3);
        assertEquals(List.of(2), owners("заказ-1", 3));
        assertEquals(List.of(1), owners("order-10", 3));
    }

    private static List<Integer> owners(String aggregate, int count) {
        var owners = new ArrayList<Integer>();
        for (int index = 0; index < count; index++) {
            if (new Partition(index, count).owns(aggregate)) {
                owners.add(index);
            }
        }
        return owners;
    }

    @Test
    void theDefaultPartitionIsTheWholeTable() {
        assertEquals(new Partition(0, 1), new Partition());
        for (String aggregate : new String[] {"", "order-1", "заказ-1"}) {
            assertTrue(new Partition().owns(aggregate), aggregate);
        }
        assertTrue(new Partition(1, 2).owns("order-1") && new Partition(0, 2).owns("order-2"));
        assertFalse(new Partition(0, 2).owns("order-1") || new Partition(1, 2).owns("order-2"));
    }

    @Test
    void theFiltersComeBeforeTheLimit() {
        var table = tableOf(new Message(1, "order-1", "OrderPlaced"), new Message(2, "order-1", "OrderPaid"),
                new Message(3, "order-2", "OrderPlaced"), new Message(4, "order-1", "OrderShipped"),
                new Message(5, "order-3", "OrderPlaced"), new Message(6, "order-2", "OrderPaid"));
        var whole = new Partition();
        assertEquals(List.of(1L, 2L), ids(table.unsent(2, whole, Fetch.ROWS)));
        assertEquals(List.of(1L, 3L, 5L), ids(table.unsent(10, whole, Fetch.HEADS)));
        assertEquals(List.of(1L, 3L), ids(table.unsent(2, whole, Fetch.HEADS)), "heads' limit counts orders");
        // order-1 and order-3 hash to relay 1 of 2, order-2 to relay 0.
        var second = new Partition(1, 2);
        assertEquals(List.of(1L, 2L), ids(table.unsent(2, second, Fetch.ROWS)), "other partitions' rows take no slot");
        assertEquals(List.of(1L, 5L), ids(table.unsent(10, second, Fetch.HEADS)));
        assertEquals(List.of(3L), ids(table.unsent(1, new Partition(0, 2), Fetch.ROWS)));
    }

    @Test
    void aParkedOrderIsNotFetchedUntilItIsUnparked() {
        var table = seeded();
        table.unpark("order-1");
        assertEquals(List.of(1L, 2L, 3L), ids(unsent(table, 10)), "unparking what is not parked");
        table.park("order-1");
        assertEquals(List.of(2L), ids(unsent(table, 1)), "a parked row takes no slot");
        assertEquals(List.of(2L), ids(table.unsent(10, new Partition(), Fetch.HEADS)));
        table.markSent(2);
        assertTrue(table.hasUnsent(), "a parked row is still unsent");
        table.unpark("order-1");
        assertEquals(List.of(1L, 3L), ids(unsent(table, 10)));
    }

    @Test
    void failuresAreCountedPerRowAndNeverReset() {
        var table = seeded();
        assertEquals(1, table.markFailed(1));
        assertEquals(1, table.markFailed(3));
        assertEquals(2, table.markFailed(1));
        assertEquals(List.of(1L, 2L, 3L), ids(unsent(table, 10)), "a failure leaves the row unsent");
        DeadLetter letter = table.deadLetter(1);
        assertEquals(new DeadLetter(PLACED_1, 2), letter);
        assertEquals(List.of(letter), table.deadLetters());
        assertThrows(UnsupportedOperationException.class, () -> table.deadLetters().clear());
        assertEquals(List.of(2L, 3L), ids(unsent(table, 10)), "a dead letter is not unsent");
        assertThrows(IllegalArgumentException.class, () -> table.deadLetter(1), "a dead letter is dead once");
        assertEquals(2, table.markFailed(3));
        table.markSent(2);
        table.markSent(3);
        assertFalse(table.hasUnsent(), "dead letters are no work");
        assertEquals(1, table.deadLetters().size());
    }

    @Test
    void theDefaultOptionsAreTheRelayWithout() {
        var defaults = RelayOptions.defaults();
        assertEquals(new Partition(), defaults.partition());
        assertSame(Fetch.ROWS, defaults.fetch());
        assertEquals(null, defaults.cap());
        defaults.alert().accept(new DeadLetter(PLACED_1, 1)); // goes nowhere
        var cap = new AttemptCap(3, OnExhausted.PARK);
        var capped = defaults.withCap(cap);
        assertEquals(new RelayOptions(new Partition(), Fetch.ROWS, cap, defaults.alert()), capped);
        assertEquals(Fetch.HEADS, capped.withFetch(Fetch.HEADS).fetch());
        assertEquals(new Partition(1, 2), capped.withPartition(new Partition(1, 2)).partition());
        assertSame(cap, capped.withFetch(Fetch.HEADS).withPartition(new Partition(1, 2)).cap());
        assertEquals(null, defaults.cap(), "a with method makes a copy");
    }

    /** What each run of a relay sent and dead-lettered. */
    private record Run(List<Long> sent, List<Long> dead) {}

    /** SPEC's example: max_attempts 2, Down on attempts 1 and 3. */
    @Test
    void theCapReleasesAnOrderAfterItsDeadLetter() {
        var table = seeded();
        var consumer = new IdempotentConsumer();
        var broker = new FlakyBroker(consumer, Map.of(1L, Failure.DOWN, 3L, Failure.DOWN));
        var runs = new ArrayList<Run>();
        for (int pass = 0; pass < 3; pass++) {
            var dead = new ArrayList<Long>();
            var options = RelayOptions.defaults()
                    .withCap(new AttemptCap(2, OnExhausted.RELEASE))
                    .withAlert(letter -> dead.add(letter.message().id()));
            runs.add(new Run(new OutboxRelay(table, broker, 10, options).runOnce(), dead));
        }
        assertEquals(List.of(new Run(List.of(2L), List.of()), new Run(List.of(), List.of(1L)),
                new Run(List.of(3L), List.of())), runs, "(sent, dead-lettered) per run");
        assertEquals(2, table.deadLetters().get(0).attempts());
        assertEquals(List.of("order-2 OrderPlaced", "order-1 OrderPaid"), consumer.journal());
        assertEquals(0, consumer.duplicates());
    }

    @Test
    void parkHoldsTheOrderAndALostAckDeadLetterWasDelivered() {
        var table = seeded();
        var consumer = new IdempotentConsumer();
        var broker = new FlakyBroker(consumer, Map.of(1L, Failure.LOST_ACK));
        var alerts = new ArrayList<DeadLetter>();
        var options = RelayOptions.defaults().withCap(new AttemptCap(1, OnExhausted.PARK)).withAlert(alerts::add);
        var relay = new OutboxRelay(table, broker, 10, options);
        assertEquals(List.of(2L), relay.runOnce());
        assertEquals(List.of(), relay.runOnce(), "order-1 is parked");
        assertEquals(List.of(new DeadLetter(PLACED_1, 1)), alerts);
        assertEquals(alerts, table.deadLetters());
        table.unpark("order-1");
        assertEquals(List.of(3L), new OutboxRelay(table, broker, 10).runOnce(), "the dead letter is not retried");
        assertEquals(List.of("order-1 OrderPlaced", "order-2 OrderPlaced", "order-1 OrderPaid"), consumer.journal(),
                "a dead letter means unconfirmed");
    }

    @Test
    void withoutACapAFailingRowIsRetriedForever() {
        var table = tableOf(PLACED_1);
        var failures = new HashMap<Long, Failure>();
        for (long attempt = 1; attempt <= 5; attempt++) {
            failures.put(attempt, Failure.DOWN);
        }
        var relay = new OutboxRelay(table, new FlakyBroker(new IdempotentConsumer(), failures), 10);
        for (int pass = 0; pass < 5; pass++) {
            assertEquals(List.of(), relay.runOnce());
        }
        assertEquals(List.of(1L), relay.runOnce());
        assertEquals(List.of(), table.deadLetters());
    }

    /** SPEC's example: two relays, two passes, nothing fails. */
    @Test
    void twoRelaysSplitTheOrdersByHash() {
        var table = tableOf(PLACED_1, PLACED_2, PAID_1, new Message(4, "order-2", "OrderPaid"));
        var consumer = new IdempotentConsumer();
        var broker = new FlakyBroker(consumer, Map.of());
        var sent = new ArrayList<List<Long>>();
        for (int pass = 0; pass < 2; pass++) {
            for (int index = 0; index < 2; index++) {
                var options = RelayOptions.defaults().withPartition(new Partition(index, 2));
                sent.add(new OutboxRelay(table, broker, 10, options).runOnce());
            }
        }
        assertEquals(List.of(List.of(2L, 4L), List.of(1L, 3L), List.of(), List.of()), sent);
        assertEquals("order-2 OrderPlaced", consumer.journal().get(0));
        assertEquals("order-1 OrderPaid", consumer.journal().get(3));
    }

    /** SPEC's example: batch 3, a fetch by heads, Down on attempts 1 and 2. */
    @Test
    void headsLetOtherOrdersPastABlockedOne() {
        var table = tableOf(PLACED_1, new Message(2, "order-1", "OrderPaid"),
                new Message(3, "order-1", "OrderShipped"), new Message(4, "order-2", "OrderPlaced"));
        var broker = new FlakyBroker(new IdempotentConsumer(), Map.of(1L, Failure.DOWN, 2L, Failure.DOWN));
        var relay = new OutboxRelay(table, broker, 3, RelayOptions.defaults().withFetch(Fetch.HEADS));
        var sent = List.of(relay.runOnce(), relay.runOnce(), relay.runOnce());
        assertEquals(List.of(List.of(), List.of(1L, 4L), List.of(2L)), sent);
    }

    @Test
    void theConsumerForgetsAnIdRetentionPassesAfterApplyingIt() {
        var consumer = new IdempotentConsumer(3);
        consumer.tick();
        consumer.handle(PLACED_1); // applied at pass 1
        consumer.tick();
        consumer.handle(PLACED_1); // dropped at pass 2, not a new window
        consumer.tick();
        consumer.handle(PLACED_1); // dropped at pass 3 = 1 + 3 - 1
        assertEquals(2, consumer.duplicates());
        consumer.tick();
        consumer.handle(PLACED_1); // forgotten at pass 4: applied again
        assertEquals(List.of("order-1 OrderPlaced", "order-1 OrderPlaced"), consumer.journal());
        consumer.tick();
        consumer.handle(PLACED_1); // remembered from pass 4
        assertEquals(3, consumer.duplicates());

        var forever = new IdempotentConsumer();
        forever.handle(PLACED_1);
        for (int pass = 0; pass < 1000; pass++) {
            forever.tick();
        }
        forever.handle(PLACED_1);
        assertEquals(1, forever.duplicates(), "new IdempotentConsumer() keeps ids forever");
    }

    /** The walk stops at the first id inside its window, and one applied again is the newest. */
    @Test
    void tickForgetsFromTheOldestOnly() {
        var consumer = new IdempotentConsumer(2);
        var second = new Message(2, "order-2", "OrderPlaced");
        consumer.tick();
        consumer.handle(PLACED_1); // pass 1
        consumer.tick();
        consumer.handle(second); // pass 2
        consumer.tick(); // pass 3: 1 forgotten, 2 kept
        consumer.handle(PLACED_1); // applied again at pass 3, behind 2
        consumer.handle(second);
        assertEquals(1, consumer.duplicates());
        consumer.tick(); // pass 4: 2 forgotten, 1 (pass 3) kept
        consumer.handle(second);
        consumer.handle(PLACED_1);
        assertEquals(2, consumer.duplicates());
        assertEquals(List.of("order-1 OrderPlaced", "order-2 OrderPlaced", "order-1 OrderPlaced",
                "order-2 OrderPlaced"), consumer.journal());
    }

    /** SPEC's example: retention 1, LostAck on attempt 1, two passes. */
    @Test
    void aRetentionShorterThanTheRedeliveryAppliesItTwice() {
        var table = seeded();
        var consumer = new IdempotentConsumer(1);
        var broker = new FlakyBroker(consumer, Map.of(1L, Failure.LOST_ACK));
        var sent = new ArrayList<List<Long>>();
        for (int pass = 0; pass < 2; pass++) {
            consumer.tick();
            sent.add(new OutboxRelay(table, broker, 10).runOnce());
        }
        assertEquals(List.of(List.of(2L), List.of(1L, 3L)), sent);
        assertEquals(List.of("order-1 OrderPlaced", "order-2 OrderPlaced", "order-1 OrderPlaced",
                "order-1 OrderPaid"), consumer.journal());
        assertEquals(0, consumer.duplicates());
    }
}
