package outbox;

/** Which unsent rows a fetch takes, before it takes at most {@code limit} of them. */
public enum Fetch {
    /** Every row: a batch full of one blocked order sends nothing for the others. */
    ROWS,
    /**
     * The oldest row of each order only: a blocked order costs one slot,
     * and an order with k rows needs k runs.
     */
    HEADS
}
