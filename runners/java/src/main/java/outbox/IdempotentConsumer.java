package outbox;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The delivery service: turns at-least-once delivery into exactly-once
 * effect by remembering which message ids it has processed. It cannot tell
 * a repeat by content (two identical "paid" events can both be honest);
 * only the outbox-assigned id tells.
 */
public final class IdempotentConsumer {
    private final Set<Long> processed = new HashSet<>();
    private final List<String> journal = new ArrayList<>();
    private int duplicates;

    /** Does the work once per message id; a redelivery is only counted. */
    public void handle(Message message) {
        if (!processed.add(message.id())) {
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
