package outbox;

/**
 * A row the relay gave up on: it left the unsent rows after {@code attempts}
 * failed publish calls, for a person to look at.
 *
 * @param message  the row as it was written
 * @param attempts its failed publish calls, the last included
 */
public record DeadLetter(Message message, long attempts) {}
