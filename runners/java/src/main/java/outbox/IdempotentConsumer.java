package outbox;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The delivery service: turns at-least-once delivery into exactly-once
 * effect by remembering which message ids it has processed. It cannot tell
 * a repeat by content (two identical "paid" events can both be honest);
 * only the outbox-assigned id tells.
 */
public final class IdempotentConsumer {
    /**
     * Each processed id and the pass it was applied in. A LinkedHashMap
     * keeps them oldest first, and {@code tick} forgets from the oldest.
     */
    private final Map<Long, Long> processed = new LinkedHashMap<>();
    /** In passes; {@code null} keeps every id forever. */
    private final Long retention;
    /** The pass number: how many times {@code tick} was called. */
    private long clock;
    private final List<String> journal = new ArrayList<>();
    private int duplicates;

    /** A consumer that has processed nothing. */
    public IdempotentConsumer() {
        this.retention = null;
    }

    /**
     * A consumer that forgets each id {@code retention} passes after the pass
     * it applied it in, as a real inbox's cleanup does.
     */
    public IdempotentConsumer(long retention) {
        this.retention = retention;
    }

    /**
     * Advances the clock by one pass and forgets every id whose window
     * ended: one applied at pass t is forgotten at pass t + retention. A
     * repeat that comes later is applied again: the retention must outlast
     * the longest redelivery.
     */
    public void tick() {
        clock++;
        if (retention == null) {
            return;
        }
        // Ids are applied in nondecreasing passes, so the walk stops at the
        // first still inside its window: it costs what it forgets.
        Iterator<Long> appliedAt = processed.values().iterator();
        while (appliedAt.hasNext() && clock - appliedAt.next() >= retention) {
            appliedAt.remove();
        }
    }

    /**
     * Does the work once per message id; a redelivery is only counted. With
     * a retention, once per id within its window: the id is remembered from
     * the pass it is applied in, and a dropped repeat does not extend the
     * window.
     */
    public void handle(Message message) {
        if (processed.putIfAbsent(message.id(), clock) != null) {
            duplicates++;
            return;
        }
        journal.add(message.aggregate() + " " + message.type());
    }

    /** The work done, in order: {@code "<aggregate> <type>"} per message. */
    public List<String> journal() {
        return List.copyOf(journal);
    }

    /** How many redeliveries were dropped. */
    public int duplicates() {
        return duplicates;
    }
}
