package outbox;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The rows waiting for the relay: the unsent messages in insertion order. */
public final class OutboxTable {
    /** A {@link LinkedHashMap} keyed by id, which keeps insertion order. */
    private final Map<Long, Message> unsent = new LinkedHashMap<>();
    /** Kept apart from the rows: the last row may be sent already. */
    private Long lastId;

    /**
     * Appends a row; refuses an id that does not increase (a writer's bug)
     * with {@link OutOfOrder}.
     */
    public void add(Message message) {
        if (lastId != null && message.id() <= lastId) {
            throw new OutOfOrder(message.id(), lastId);
        }
        lastId = message.id();
        unsent.put(message.id(), message);
    }

    /**
     * The oldest unsent rows in insertion order, at most {@code limit}: a
     * copy, because the relay marks rows sent while it walks the batch.
     */
    public List<Message> unsent(int limit) {
        return unsent.values().stream().limit(limit).toList();
    }

    /** Takes the row out of later {@code unsent} selections. */
    public void markSent(long id) {
        unsent.remove(id);
    }

    /** Whether the relay still has work: the demo's loop condition. */
    public boolean hasUnsent() {
        return !unsent.isEmpty();
    }
}
