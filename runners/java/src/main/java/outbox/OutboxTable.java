package outbox;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The rows waiting for the relay: the unsent messages in insertion order. */
public final class OutboxTable {
    /** A {@link LinkedHashMap} keyed by id, which keeps insertion order. */
    private final Map<Long, Message> unsent = new LinkedHashMap<>();
    /** Kept apart from the rows: the last row may be sent already. */
    private Long lastId;
    /**
     * Failed publish calls per row that ever failed; kept after the row is
     * sent, as a count never resets.
     */
    private final Map<Long, Long> attempts = new HashMap<>();
    private final List<DeadLetter> deadLetters = new ArrayList<>();
    /** Orders whose rows no fetch takes until they are unparked. */
    private final Set<String> parked = new HashSet<>();

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
     * Only rows of the orders the {@code partition} owns that are not parked,
     * and with {@link Fetch#HEADS} only the oldest such row of each order:
     * these filters come before the limit, so a row they leave out takes no
     * slot.
     */
    public List<Message> unsent(int limit, Partition partition, Fetch fetch) {
        Set<String> orders = new HashSet<>();
        return unsent.values().stream()
                .filter(m -> partition.owns(m.aggregate()) && !parked.contains(m.aggregate()))
                .filter(m -> fetch == Fetch.ROWS || orders.add(m.aggregate()))
                .limit(limit)
                .toList();
    }

    /** Takes the row out of later {@code unsent} selections. */
    public void markSent(long id) {
        unsent.remove(id);
    }

    /**
     * Counts one failed publish call of the row and returns its count so
     * far: the table keeps it, since a relay keeps nothing between runs. A
     * lost ack counts, as the relay cannot tell it from a broker that is
     * down; a count never resets.
     */
    public long markFailed(long id) {
        return attempts.merge(id, 1L, Long::sum);
    }

    /**
     * Moves the row from the unsent rows to the dead letters, with its
     * attempts, and returns it: no fetch takes it again.
     *
     * @throws IllegalArgumentException when {@code id} is not an unsent row:
     *         the relay dead-letters only a row it has just fetched
     */
    public DeadLetter deadLetter(long id) {
        Message message = unsent.remove(id);
        if (message == null) {
            throw new IllegalArgumentException("message " + id + " is not an unsent row");
        }
        Long counted = attempts.remove(id);
        var letter = new DeadLetter(message, counted == null ? 0 : counted);
        deadLetters.add(letter);
        return letter;
    }

    /**
     * Holds every row of the order back from {@code unsent} (they take no
     * slot) until {@code unpark}: a dead letter then cannot be overtaken by
     * its order's later events.
     */
    public void park(String aggregate) {
        parked.add(aggregate);
    }

    /**
     * Lets {@code unsent} take the order's rows again, from its oldest; an
     * order that is not parked is left as it is.
     */
    public void unpark(String aggregate) {
        parked.remove(aggregate);
    }

    /** The rows given up on, in the order they were: what a person reads. */
    public List<DeadLetter> deadLetters() {
        return List.copyOf(deadLetters);
    }

    /**
     * Whether the relay still has work: the demo's loop condition. A parked
     * order's rows count (they are still unsent); dead letters do not.
     */
    public boolean hasUnsent() {
        return !unsent.isEmpty();
    }
}
