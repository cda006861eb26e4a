package outbox;

/**
 * One outbox row: an event of one aggregate (an order). A record: a row is
 * a value, compared by its fields.
 *
 * @param id        assigned by the outbox, increasing in insertion order: the
 *                  only thing that tells a redelivery from an honest second event
 * @param aggregate the entity whose events must stay in order, e.g. {@code order-1}
 * @param type      what happened, e.g. {@code OrderPlaced}
 */
public record Message(long id, String aggregate, String type) {}
