package outbox;

/**
 * An id that is not greater than the last one added: the outbox assigns ids
 * in increasing order, so such a row is a bug of the writer (unchecked).
 */
public final class OutOfOrder extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** The refused id. */
    private final long id;
    /** The last id the table accepted. */
    private final long lastId;

    /** The refusal of {@code id} after {@code lastId}. */
    public OutOfOrder(long id, long lastId) {
        super("message id " + id + " is not greater than the last id " + lastId);
        this.id = id;
        this.lastId = lastId;
    }

    /** The refused id. */
    public long id() {
        return id;
    }

    /** The last id the table accepted. */
    public long lastId() {
        return lastId;
    }
}
