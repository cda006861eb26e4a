package outbox;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The delivery service: does the work once per message id. It cannot tell
 * a repeat by content (two identical "paid" events can both be honest);
 * only the outbox-assigned id tells.
 */
public final class IdempotentConsumer {
    private final Set<Long> processed = new HashSet<>();
    private final List<String> journal = new ArrayList<>();
    private int duplicates;

    /** Does the work unless the id was processed; a repeat is only counted. */
    public void handle(Message message) {
        if (!processed.add(message.id())) {
            duplicates++;
            return;
        }
        journal.add(message.aggregate() + " " + message.type());
    }

    /** The work done, {@code "<aggregate> <type>"} per message, in order: a copy. */
    public List<String> journal() {
        return List.copyOf(journal);
    }

    /** How many redeliveries were dropped. */
    public int duplicates() {
        return duplicates;
    }
}
