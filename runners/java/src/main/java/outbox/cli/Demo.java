package outbox.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Formatter;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import outbox.AttemptCap;
import outbox.Broker;
import outbox.Failure;
import outbox.Fetch;
import outbox.FlakyBroker;
import outbox.IdempotentConsumer;
import outbox.Message;
import outbox.OnExhausted;
import outbox.OutboxRelay;
import outbox.OutboxTable;
import outbox.Partition;
import outbox.PublishFailed;
import outbox.RelayOptions;

/**
 * The relay as a background process. Its composition root reads the batch
 * size, the pass limit and the attempt limit from a config file, builds the
 * table, the broker, the delivery service's consumer and the relay, and
 * calls {@code runOnce} while the table has unsent rows, at most
 * {@code max_passes} times; a message over the attempt limit becomes a dead
 * letter, and the relay's alert prints it. The call path: process loop ->
 * relay -> outbox -> broker -> consumer.
 */
public final class Demo {
    /** The config's keys: {@code max_attempts} may be left out. */
    private static final List<String> KEYS = List.of("batch_size", "max_passes", "max_attempts");

    /**
     * The broker's script: it loses the ack of attempt 1 (message 1, which
     * it has delivered) and rejects attempts 6, 7 and 8, which the shared
     * config's run spends on message 5: a message that always fails, until
     * the attempt limit of 3 gives up on it.
     */
    private static final Map<Long, Failure> FAILURES =
            Map.of(1L, Failure.LOST_ACK, 6L, Failure.DOWN, 7L, Failure.DOWN, 8L, Failure.DOWN);

    private Demo() {}

    /** {@code demo [CONFIG]}, by default {@code runners/demo.json}: exit 2 on a bad config. */
    public static void main(String[] args) {
        String path = args.length > 0 ? args[0] : "runners/demo.json";
        Config config;
        try {
            config = loadConfig(path);
        } catch (BadConfig e) {
            System.err.println("demo: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.out.print(run(config));
        if (System.out.checkError()) {
            System.exit(1);
        }
    }

    /** The composition root: builds the parts, runs the passes and returns the transcript. */
    static String run(Config config) {
        var table = new OutboxTable();
        table.add(new Message(1, "order-1", "OrderPlaced"));
        table.add(new Message(2, "order-2", "OrderPlaced"));
        table.add(new Message(3, "order-1", "OrderPaid"));
        table.add(new Message(4, "order-2", "OrderPaid"));
        table.add(new Message(5, "order-3", "OrderPlaced"));
        var consumer = new IdempotentConsumer(); // the delivery service, across the broker
        var broker = new NarratingBroker(new FlakyBroker(consumer, FAILURES), consumer);
        // A batch past int's range is every row there is.
        int batchSize = (int) Math.min(config.batchSize(), Integer.MAX_VALUE);
        // The relay raises the alert; the process says where it goes: here,
        // under the dead letter's attempt in the transcript.
        var alerts = new HashMap<Long, String>();
        var cap = config.maxAttempts() == null
                ? null
                : new AttemptCap(config.maxAttempts(), OnExhausted.RELEASE);
        var options = RelayOptions.defaults()
                .withCap(cap)
                .withAlert(letter -> alerts.put(letter.message().id(), "dead letter "
                        + describe(letter.message()) + " after " + attempts(letter.attempts())));
        var relay = new OutboxRelay(table, broker, batchSize, options);

        // "\n", not %n: the transcript is the same bytes on every platform.
        var out = new Formatter(new StringBuilder(), Locale.ROOT);
        String limit = cap == null
                ? "no attempt limit"
                : "at most " + cap.maxAttempts() + " attempts per message";
        out.format("Outbox relay demo: batch size %d, at most %d passes, %s.\n",
                config.batchSize(), config.maxPasses(), limit);
        out.format("Outbox: %s.\n",
                table.unsent(Integer.MAX_VALUE, new Partition(), Fetch.ROWS).stream()
                        .map(Demo::describe).collect(Collectors.joining(", ")));
        out.format("The broker will lose the ack of attempt 1 and reject attempts 6, 7 and 8.\n");

        long passes = 0;
        while (table.hasUnsent() && passes < config.maxPasses()) {
            passes++;
            List<Message> batch = table.unsent(batchSize, new Partition(), Fetch.ROWS);
            out.format("\nPass %d: batch %s\n", passes,
                    idList(batch.stream().map(Message::id).toList()));
            List<Long> sent = relay.runOnce();
            for (Message message : batch) {
                String line = broker.story.remove(message.id());
                if (line == null) {
                    line = "skipped " + describe(message) + ": " + message.aggregate()
                            + " is blocked";
                }
                out.format("  %s\n", line);
                String alert = alerts.remove(message.id());
                if (alert != null) {
                    out.format("  alert: %s\n", alert);
                }
            }
            out.format("  sent %s\n", idList(sent));
        }

        if (table.hasUnsent()) {
            out.format("\nStopped at the pass limit with messages still unsent.\n");
        } else {
            out.format("\nOutbox drained after %d passes.\n", passes);
        }
        if (!table.deadLetters().isEmpty()) {
            out.format("Dead letters, for a person to look at: %s.\n", table.deadLetters().stream()
                    .map(l -> describe(l.message()) + " (" + attempts(l.attempts()) + ")")
                    .collect(Collectors.joining(", ")));
        }
        out.format("Consumer journal:\n");
        consumer.journal().forEach(entry -> out.format("  %s\n", entry));
        out.format("Duplicates dropped: %d\n", consumer.duplicates());
        return out.toString();
    }

    /**
     * The process's settings, read from its config file: the batch size and
     * the pass limit, both at least 1, and the attempt limit, at least 1 or
     * {@code null} (the key left out): no limit, a message that always fails
     * blocks its order forever.
     */
    record Config(long batchSize, long maxPasses, Long maxAttempts) {}

    /** What is wrong with the config file, in one line. */
    static final class BadConfig extends Exception {
        private static final long serialVersionUID = 1L;

        BadConfig(String message) {
            super(message);
        }
    }

    /**
     * Reads the process's settings, or says in one line what is wrong with
     * the file, naming the key at fault.
     */
    static Config loadConfig(String path) throws BadConfig {
        JsonNode fields;
        try {
            fields = Runner.JSON.readTree(Files.readAllBytes(Path.of(path)));
        } catch (JsonProcessingException e) {
            throw new BadConfig(path + ": not valid JSON");
        } catch (IOException | InvalidPathException e) {
            throw new BadConfig(path + ": cannot read the file");
        }
        // Jackson reads an empty file as a missing node, not as an error.
        if (fields.isMissingNode()) {
            throw new BadConfig(path + ": not valid JSON");
        }
        if (!fields.isObject()) {
            throw new BadConfig(path + ": not a JSON object");
        }
        // The first by name: not every port's parser keeps the file's order.
        var unknown = new TreeSet<String>();
        fields.fieldNames().forEachRemaining(unknown::add);
        unknown.removeAll(KEYS);
        if (!unknown.isEmpty()) {
            throw new BadConfig(path + ": unknown key " + TextNode.valueOf(unknown.first()));
        }
        return new Config(required(path, fields, "batch_size"),
                required(path, fields, "max_passes"), optional(path, fields, "max_attempts"));
    }

    private static long required(String path, JsonNode fields, String key) throws BadConfig {
        Long value = optional(path, fields, key);
        if (value == null) {
            throw new BadConfig(path + ": \"" + key + "\" is missing");
        }
        return value;
    }

    /** The key's integer of at least 1, or {@code null} when the key is left out. */
    private static Long optional(String path, JsonNode fields, String key) throws BadConfig {
        JsonNode value = fields.get(key);
        if (value == null) {
            return null;
        }
        // Integral only: true, "3", 3.5 and 3.0 are not, nor a number past a long.
        if (!value.isIntegralNumber() || !value.canConvertToLong() || value.asLong() < 1) {
            throw new BadConfig(path + ": \"" + key + "\" must be an integer >= 1");
        }
        return value.asLong();
    }

    /**
     * Wraps the real broker and tells how each attempt went, so the
     * transcript shows the pass's story in batch order. It watches the
     * delivery service too: when its count of dropped repeats rises during a
     * publish, that publish was a redelivery the service recognised.
     */
    private static final class NarratingBroker implements Broker {
        private final Broker inner;
        private final IdempotentConsumer consumer;
        private final Map<Long, String> story = new HashMap<>();
        private long attempts;

        NarratingBroker(Broker inner, IdempotentConsumer consumer) {
            this.inner = inner;
            this.consumer = consumer;
        }

        @Override
        public void publish(Message message) throws PublishFailed {
            attempts++;
            int dropped = consumer.duplicates();
            String line = "attempt " + attempts + ": " + describe(message) + " -> ";
            try {
                inner.publish(message);
                line += "published";
            } catch (PublishFailed e) {
                line += e.getMessage() + "; " + message.aggregate() + " blocked for this pass";
                throw e;
            } finally {
                if (consumer.duplicates() > dropped) {
                    line += "\n    delivery service: #" + message.id()
                            + " already processed, repeat dropped";
                }
                story.put(message.id(), line);
            }
        }
    }

    private static String describe(Message message) {
        return "#" + message.id() + " " + message.aggregate() + " " + message.type();
    }

    /** "1 attempt", "3 attempts". */
    private static String attempts(long attempts) {
        return attempts + (attempts == 1 ? " attempt" : " attempts");
    }

    private static String idList(List<Long> ids) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(", ", "[", "]"));
    }
}
