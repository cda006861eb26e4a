package outbox;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Moves unsent rows from the outbox table to the broker, one pass at a time.
 * It keeps nothing between passes (all state is in the table), so a new
 * relay can be built at any pass boundary and carries on where the last one
 * stopped.
 */
public final class OutboxRelay {
    private final OutboxTable table;
    private final Broker broker;
    private final int batchSize;
    private final RelayOptions options;

    /** A relay taking at most {@code batchSize} rows per pass. */
    public OutboxRelay(OutboxTable table, Broker broker, int batchSize) {
        this(table, broker, batchSize, RelayOptions.defaults());
    }

    /**
     * A relay as the three-argument constructor builds it, told
     * {@code options} as well: one of several, a fetch by heads, an attempt
     * cap and its alert.
     */
    public OutboxRelay(OutboxTable table, Broker broker, int batchSize, RelayOptions options) {
        this.table = table;
        this.broker = broker;
        this.batchSize = batchSize;
        this.options = options;
    }

    /**
     * One pass over the oldest unsent rows, returning the ids sent, in order.
     * A failed publish leaves its row unsent (the next pass retries it) and
     * blocks its aggregate for the rest of the pass, so a later event of the
     * same order cannot overtake it. The table counts the failure; when the
     * count reaches the cap, the row becomes a dead letter, its order is
     * parked if the cap says so, and the alert is raised. Any other error
     * propagates.
     */
    public List<Long> runOnce() {
        List<Message> batch = table.unsent(batchSize, options.partition(), options.fetch());
        Set<String> blocked = new HashSet<>();
        List<Long> sent = new ArrayList<>();
        for (Message message : batch) {
            if (blocked.contains(message.aggregate())) {
                continue;
            }
            try {
                broker.publish(message);
            } catch (PublishFailed e) {
                blocked.add(message.aggregate());
                long attempts = table.markFailed(message.id());
                AttemptCap cap = options.cap();
                if (cap != null && attempts >= cap.maxAttempts()) {
                    DeadLetter letter = table.deadLetter(message.id());
                    if (cap.onExhausted() == OnExhausted.PARK) {
                        table.park(message.aggregate());
                    }
                    options.alert().accept(letter);
                }
                continue;
            }
            table.markSent(message.id());
            sent.add(message.id());
        }
        return sent;
    }
}
