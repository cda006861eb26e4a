package outbox;

/**
 * One outbox row. The outbox assigns {@code id}, increasing in insertion
 * order; it is the only thing that tells a redelivery from an honest second
 * event. A record: a row is a value, compared by its fields.
 */
public record Message(long id, String aggregate, String type) {}
