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

    /** A relay taking at most {@code batchSize} rows per pass. */
    public OutboxRelay(OutboxTable table, Broker broker, int batchSize) {
        this.table = table;
        this.broker = broker;
        this.batchSize = batchSize;
    }

    /**
     * One pass over the oldest unsent rows, returning the ids sent, in order.
     * A failed publish leaves its row unsent (the next pass retries it) and
     * blocks its aggregate for the rest of the pass, so a later event of the
     * same order cannot overtake it. Any other error propagates.
     */
    public List<Long> runOnce() {
        List<Message> batch = table.unsent(batchSize);
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
                continue;
            }
            table.markSent(message.id());
            sent.add(message.id());
        }
        return sent;
    }
}
