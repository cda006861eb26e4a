package outbox;

/**
 * One outbox row: an event of one aggregate (an order). The teaching scope
 * drops payload and headers; id, aggregate and event type are all the relay
 * and the consumer need to show ordering and dedupe. The outbox assigns
 * {@code id}, increasing in insertion order; it is the only thing that
 * tells a redelivery from an honest second event. A record: a row is a
 * value, compared by its fields.
 *
 * @param id        assigned by the outbox, increasing in insertion order
 * @param aggregate the entity whose events must stay in order, e.g. {@code order-1}
 * @param type      what happened, e.g. {@code OrderPlaced}
 */
public record Message(long id, String aggregate, String type) {}
