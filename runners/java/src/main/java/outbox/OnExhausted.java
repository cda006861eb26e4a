package outbox;

/**
 * What becomes of a dead letter's order: the choice between liveness and
 * order that every capped relay makes.
 */
public enum OnExhausted {
    /**
     * The order goes on with its next row on the next run: the consumer
     * may then see {@code OrderPaid} without {@code OrderPlaced}.
     */
    RELEASE,
    /**
     * No row of the order is fetched until a person unparks it, so none
     * overtakes the dead letter.
     */
    PARK
}
