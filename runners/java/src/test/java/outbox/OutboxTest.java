package outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
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
        assertEquals(3, table.unsent(10).size(), "nothing was marked sent");
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
        assertEquals(3, table.unsent(10).size(), "a refused row is not added");
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
        List<Message> batch = table.unsent(1);
        assertEquals(List.of(PLACED_2), batch);
        table.markSent(2);
        assertEquals(List.of(PLACED_2), batch, "marking a row changed a batch already taken");
        assertThrows(UnsupportedOperationException.class, () -> batch.add(PAID_1));
        assertEquals(List.of(PAID_1), table.unsent(10));
    }

    @Test
    void markSentOfAnUnknownOrSentIdChangesNothing() {
        var table = seeded();
        table.markSent(2);
        table.markSent(2);
        table.markSent(42);
        assertEquals(List.of(PLACED_1, PAID_1), table.unsent(10));
    }

    @Test
    void aMessageIsAValue() {
        assertEquals(new Message(1, "order-1", "OrderPlaced"), PLACED_1);
        assertTrue(Message.class.isRecord());
    }
}
