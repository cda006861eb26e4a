package outbox;

import java.util.function.Consumer;

/**
 * What a relay is told beyond its table, broker and batch size. The
 * default is the relay built without options: the whole table, row by row,
 * no cap.
 *
 * @param partition the orders this relay publishes, when several share the table
 * @param fetch     rows, or only the oldest row of each order
 * @param cap       {@code null}: a failing row is retried on every run, forever
 * @param alert     told each dead letter as the relay makes it, so that a
 *                  person hears of it: the relay raises the alert, the caller
 *                  decides where it goes
 */
public record RelayOptions(
        Partition partition, Fetch fetch, AttemptCap cap, Consumer<DeadLetter> alert) {
    // Java has no default arguments: the defaults, then one option changed
    // at a time, e.g. RelayOptions.defaults().withCap(new AttemptCap(3, OnExhausted.RELEASE)).
    public static RelayOptions defaults() {
        return new RelayOptions(new Partition(), Fetch.ROWS, null, letter -> {});
    }

    public RelayOptions withPartition(Partition partition) {
        return new RelayOptions(partition, fetch, cap, alert);
    }

    public RelayOptions withFetch(Fetch fetch) {
        return new RelayOptions(partition, fetch, cap, alert);
    }

    public RelayOptions withCap(AttemptCap cap) {
        return new RelayOptions(partition, fetch, cap, alert);
    }

    public RelayOptions withAlert(Consumer<DeadLetter> alert) {
        return new RelayOptions(partition, fetch, cap, alert);
    }
}
