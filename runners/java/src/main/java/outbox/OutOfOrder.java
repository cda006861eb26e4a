package outbox;

/**
 * {@code add} was given an id not greater than the last one: the table's
 * order would no longer be insertion order. Unchecked, because it is the
 * writer's bug ({@link OutboxTable#add}).
 */
public final class OutOfOrder extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final long id;
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
