package outbox.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import outbox.Broker;
import outbox.Failure;
import outbox.FlakyBroker;
import outbox.IdempotentConsumer;
import outbox.Message;
import outbox.OutboxRelay;
import outbox.OutboxTable;
import outbox.PublishFailed;

/**
 * The relay as a process would run it: the composition root reads the batch
 * size and the pass limit from the shared config, builds the table, broker,
 * consumer and relay, and loops {@code runOnce} while rows are unsent. It
 * prints the same transcript as every other language's demo.
 */
public final class Demo {
    /**
     * The largest batch size and pass limit. Every port reads JSON numbers
     * as doubles or 64-bit integers and holds 0..LIMIT exactly, so they all
     * reject the same configs.
     */
    static final long LIMIT = 1_000_000;

    private Demo() {}

    /** The demo's settings, shared by every language's demo. */
    record Config(int batchSize, long maxPasses) {}

    /** A config the demo refuses; the first line of its text is the same in every port. */
    static final class BadConfig extends Exception {
        private static final long serialVersionUID = 1L;

        BadConfig(String message) {
            super(message);
        }
    }

    /**
     * Reads and checks the config: the file, then JSON, then an object, then
     * unknown keys, then each key. A second line, when there is one, is
     * Java's own reason.
     */
    static Config load(String path) throws BadConfig {
        JsonNode value;
        try {
            value = Runner.JSON.readTree(Files.readAllBytes(Path.of(path)));
        } catch (JsonProcessingException e) {
            throw new BadConfig(path + ": not valid JSON\n  " + e.getOriginalMessage());
        } catch (IOException | RuntimeException e) {
            throw new BadConfig(path + ": cannot read the file\n  " + e);
        }
        if (value == null || value.isMissingNode()) {
            throw new BadConfig(path + ": not valid JSON\n  the file is empty");
        }
        if (!value.isObject()) {
            throw new BadConfig(path + ": want a JSON object with `batch_size` and `max_passes`, not " + kind(value));
        }
        // Sorted, because not every port's parser keeps the file's order.
        List<String> unknown = value.propertyStream()
                .map(Map.Entry::getKey)
                .filter(key -> !key.equals("batch_size") && !key.equals("max_passes"))
                .sorted()
                .map(Demo::quote)
                .toList();
        if (!unknown.isEmpty()) {
            throw new BadConfig(path + ": unknown key" + (unknown.size() == 1 ? " " : "s ") + String.join(", ", unknown)
                    + "; the keys are `batch_size` and `max_passes`");
        }
        return new Config((int) integer(path, value, "batch_size", 1), integer(path, value, "max_passes", 0));
    }

    /**
     * The value of {@code key}, an integer from {@code lowest} to LIMIT. A
     * number counts by its value, so 3.0 is 3: JavaScript cannot tell them apart.
     */
    private static long integer(String path, JsonNode fields, String key, long lowest) throws BadConfig {
        JsonNode value = fields.get(key);
        if (value == null) {
            throw new BadConfig(path + ": `" + key + "` is missing");
        }
        String rule = path + ": `" + key + "` must be an integer from " + lowest + " to " + LIMIT;
        if (!value.isNumber()) {
            throw new BadConfig(rule + ", not " + kind(value));
        }
        double number = value.asDouble();
        if (number != Math.floor(number)) {
            throw new BadConfig(rule + ", not a fraction");
        }
        if (number < lowest || number > LIMIT) {
            throw new BadConfig(rule);
        }
        return (long) number;
    }

    /** A JSON value's type, as the error messages name it. */
    private static String kind(JsonNode value) {
        return switch (value.getNodeType()) {
            case NULL -> "null";
            case BOOLEAN -> "a boolean";
            case NUMBER -> "a number";
            case STRING -> "a string";
            case ARRAY -> "an array";
            case OBJECT, POJO, BINARY, MISSING -> "an object";
        };
    }

    /** A key written as a JSON string. */
    private static String quote(String key) {
        try {
            return Runner.JSON.writeValueAsString(key);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a string always encodes", e);
        }
    }

    /**
     * Wraps the real broker and remembers how each attempt went, so the
     * transcript can tell the pass's story in batch order. It watches the
     * delivery service too: when its count of dropped repeats rises during a
     * publish, that publish was a redelivery the service recognised.
     */
    private static final class NarratingBroker implements Broker {
        private final Broker inner;
        private final IdempotentConsumer consumer;
        private final Map<Long, String> log = new HashMap<>();
        private long attempts;

        NarratingBroker(Broker inner, IdempotentConsumer consumer) {
            this.inner = inner;
            this.consumer = consumer;
        }

        @Override
        public void publish(Message message) throws PublishFailed {
            attempts++;
            int dropped = consumer.duplicates();
            String story = "attempt " + attempts + ": " + describe(message) + " -> ";
            try {
                inner.publish(message);
                story += "published";
            } catch (PublishFailed e) {
                story += e.getMessage() + "; " + message.aggregate() + " blocked for this pass";
                throw e;
            } finally {
                if (consumer.duplicates() > dropped) {
                    story += "\n    delivery service: #" + message.id() + " already processed, repeat dropped";
                }
                log.put(message.id(), story);
            }
        }
    }

    private static String describe(Message message) {
        return "#" + message.id() + " " + message.aggregate() + " " + message.type();
    }

    private static String idList(List<Long> ids) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(", ", "[", "]"));
    }

    /** Runs the scenario of SPEC.md and prints the transcript. */
    static void run(Config config, PrintStream out) {
        var table = new OutboxTable();
        table.add(new Message(1, "order-1", "OrderPlaced"));
        table.add(new Message(2, "order-2", "OrderPlaced"));
        table.add(new Message(3, "order-1", "OrderPaid"));
        table.add(new Message(4, "order-2", "OrderPaid"));
        var consumer = new IdempotentConsumer();
        var broker = new NarratingBroker(new FlakyBroker(consumer, Map.of(1L, Failure.LOST_ACK)), consumer);
        var relay = new OutboxRelay(table, broker, config.batchSize());

        out.print("Outbox relay demo: batch size " + config.batchSize() + ", at most " + config.maxPasses()
                + " passes.\n");
        out.print("Outbox: " + table.unsent(Integer.MAX_VALUE).stream().map(Demo::describe)
                .collect(Collectors.joining(", ")) + ".\n");
        out.print("The broker will lose the ack of attempt 1.\n");

        long passes = 0;
        while (table.hasUnsent() && passes < config.maxPasses()) {
            passes++;
            List<Message> batch = table.unsent(config.batchSize());
            List<Long> ids = new ArrayList<>();
            batch.forEach(m -> ids.add(m.id()));
            out.print("\nPass " + passes + ": batch " + idList(ids) + "\n");
            List<Long> sent = relay.runOnce();
            for (Message message : batch) {
                String line = broker.log.remove(message.id());
                out.print(line != null
                        ? "  " + line + "\n"
                        : "  skipped " + describe(message) + ": " + message.aggregate() + " is blocked\n");
            }
            out.print("  sent " + idList(sent) + "\n");
        }

        out.print(table.hasUnsent()
                ? "\nStopped at the pass limit with messages still unsent.\n"
                : "\nOutbox drained after " + passes + " passes.\n");
        out.print("Consumer journal:\n");
        consumer.journal().forEach(entry -> out.print("  " + entry + "\n"));
        out.print("Duplicates dropped: " + consumer.duplicates() + "\n");
    }

    /** {@code demo [CONFIG]}, by default the shared {@code runners/demo.json}: exit 2 on a bad config. */
    public static void main(String[] args) {
        // Named as given, not as Path prints it: every port's message shows the same text.
        String path = args.length > 0 ? args[0] : "runners/demo.json";
        Config config;
        try {
            config = load(path);
        } catch (BadConfig e) {
            System.err.println("demo: " + e.getMessage());
            System.exit(2);
            return;
        }
        var out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        run(config, out);
        out.flush();
        if (out.checkError()) {
            System.exit(1);
        }
    }
}
