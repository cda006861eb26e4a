package outbox;

/**
 * The attempt limit: without it, a message that always fails blocks its
 * order forever.
 *
 * @param maxAttempts failed publish calls after which a row becomes a dead
 *                    letter, at least 1
 * @param onExhausted what becomes of the row's order then
 */
public record AttemptCap(long maxAttempts, OnExhausted onExhausted) {}
