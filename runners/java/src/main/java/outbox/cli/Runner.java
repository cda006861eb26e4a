package outbox.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import outbox.AttemptCap;
import outbox.Failure;
import outbox.Fetch;
import outbox.FlakyBroker;
import outbox.IdempotentConsumer;
import outbox.Message;
import outbox.OnExhausted;
import outbox.OutOfOrder;
import outbox.OutboxRelay;
import outbox.OutboxTable;
import outbox.Partition;
import outbox.RelayOptions;

/**
 * Drives the Java port over the parity harness's protocol, version 1: one
 * request per stdin line in, one answer per stdout line out, flushed at once.
 * One JVM answers every case, so its start-up is paid once per run.
 */
public final class Runner {
    /**
     * Jackson's tree model: the request's fields are read by hand, in the
     * order the protocol checks them.
     */
    static final JsonMapper JSON =
            JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    private Runner() {}

    /** A request this runner does not take; its text is the whole error answer. */
    static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }

    /** Reads requests until end of input; each answer is flushed before the next line is read. */
    public static void main(String[] args) throws IOException {
        var in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Writer out = new BufferedWriter(
                new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            out.write(JSON.writeValueAsString(answer(line)));
            out.write('\n');
            out.flush();
        }
    }

    /** The answer to one request line: the result, or an error answer naming the request. */
    static ObjectNode answer(String line) {
        JsonNode request;
        try {
            request = JSON.readTree(line);
        } catch (JsonProcessingException e) {
            return error(null, "bad request: " + e.getOriginalMessage());
        }
        JsonNode nameField = request.path("name");
        String name = nameField.isTextual() ? nameField.textValue() : null;
        try {
            JsonNode kind = request.get("kind");
            String known = kind != null && kind.isTextual() ? kind.textValue() : "";
            if (!known.equals("case")) {
                throw new Refused("unknown request kind: " + describe(kind) + " (want \"case\")");
            }
            JsonNode version = request.get("version");
            // 1.0 is not the protocol's version: the integer 1 is (and 2^64+1
            // must not wrap around to it).
            if (version == null || !version.isIntegralNumber() || !version.canConvertToLong()
                    || version.longValue() != 1) {
                throw new Refused("unsupported protocol version: " + describe(version) + " (want 1)");
            }
            return runCase(request, name);
        } catch (Refused | OutOfOrder e) {
            return error(name, e.getMessage());
        } catch (RuntimeException e) {
            return error(name, e.toString());
        }
    }

    /**
     * Plays the case as SPEC's runner protocol says: the rows written before
     * the first pass, then each pass (the consumer's tick, the runs its
     * schedule lists, the rows written after it, the unparks after it),
     * through the parts' ordinary members. A relay keeps nothing between
     * runs, so one per relay serves the whole case, rebuilt each pass with
     * {@code restart_each_pass}.
     */
    static ObjectNode runCase(JsonNode request, String name) {
        Map<Long, Failure> failures = new HashMap<>();
        for (Map.Entry<String, JsonNode> entry : request.path("failures").properties()) {
            failures.put(Long.parseLong(entry.getKey()), failure(entry.getKey(), entry.getValue()));
        }
        JsonNode rows = request.path("messages");
        long passes = integer(request, "passes");
        boolean restart = request.path("restart_each_pass").asBoolean(false);
        int relays = request.has("relays") ? (int) integer(request, "relays") : 1;
        JsonNode schedule = request.get("schedule");
        Map<Long, List<String>> unparks = new HashMap<>();
        for (JsonNode unpark : request.path("unpark")) {
            unparks.computeIfAbsent(integer(unpark, "after_pass"), pass -> new ArrayList<>())
                    .add(unpark.path("aggregate").asText());
        }
        var table = new OutboxTable();
        var consumer = request.has("retention")
                ? new IdempotentConsumer(integer(request, "retention"))
                : new IdempotentConsumer();
        var broker = new FlakyBroker(consumer, failures);
        var dead = new ArrayList<Long>(); // the ids the current run dead-letters
        var options = RelayOptions.defaults()
                .withFetch(fetch(request))
                .withCap(cap(request))
                .withAlert(letter -> dead.add(letter.message().id()));
        int batchSize = batchSize(request);
        // Rows come in the order they are written (written_after_pass never
        // decreases), so the rows of each pass boundary are the next ones.
        int next = write(table, rows, 0, 0);
        var relay = new OutboxRelay[relays];
        var sent = new ArrayList<List<Long>>();
        var deadLetters = new ArrayList<List<Long>>();
        for (long pass = 1; pass <= passes; pass++) {
            if (restart || pass == 1) {
                for (int r = 0; r < relays; r++) {
                    var partition = new Partition(r, relays);
                    relay[r] = new OutboxRelay(table, broker, batchSize, options.withPartition(partition));
                }
            }
            consumer.tick();
            for (int r : runs(schedule, pass, relays)) {
                sent.add(relay[r].runOnce());
                deadLetters.add(List.copyOf(dead));
                dead.clear();
            }
            next = write(table, rows, next, pass);
            for (String aggregate : unparks.getOrDefault(pass, List.of())) {
                table.unpark(aggregate);
            }
        }
        ObjectNode answer = JSON.createObjectNode().put("name", name);
        ids(answer.putArray("sent"), sent);
        ArrayNode journal = answer.putArray("journal");
        consumer.journal().forEach(journal::add);
        answer.put("duplicates", consumer.duplicates());
        if (request.has("max_attempts")) {
            ids(answer.putArray("dead_letters"), deadLetters);
        }
        return answer;
    }

    /** The relays pass {@code pass} runs, in order: its schedule's list, or every relay once. */
    private static int[] runs(JsonNode schedule, long pass, int relays) {
        JsonNode listed = schedule == null ? null : schedule.get((int) pass - 1);
        int[] runs = new int[listed == null ? relays : listed.size()];
        for (int at = 0; at < runs.length; at++) {
            runs[at] = listed == null ? at : listed.get(at).intValue();
        }
        return runs;
    }

    /** One list of ids per run. */
    private static void ids(ArrayNode lists, List<List<Long>> runs) {
        for (List<Long> ids : runs) {
            ArrayNode run = lists.addArray();
            ids.forEach(run::add);
        }
    }

    /** The wire's names of the fetch modes: only the runner knows them. */
    private static Fetch fetch(JsonNode request) {
        JsonNode fetch = request.path("fetch");
        return switch (fetch.isMissingNode() ? "rows" : fetch.asText()) {
            case "rows" -> Fetch.ROWS;
            case "heads" -> Fetch.HEADS;
            default -> throw new Refused("bad request: unknown fetch " + fetch);
        };
    }

    /** The attempt cap, or {@code null} when the case has no {@code max_attempts}. */
    private static AttemptCap cap(JsonNode request) {
        if (!request.has("max_attempts")) {
            return null;
        }
        JsonNode onExhausted = request.path("on_exhausted");
        var then = switch (onExhausted.isMissingNode() ? "release" : onExhausted.asText()) {
            case "release" -> OnExhausted.RELEASE;
            case "park" -> OnExhausted.PARK;
            default -> throw new Refused("bad request: unknown on_exhausted " + onExhausted);
        };
        return new AttemptCap(integer(request, "max_attempts"), then);
    }

    /**
     * Adds the rows from index {@code next} on that are written after
     * {@code pass}; returns the next index.
     */
    private static int write(OutboxTable table, JsonNode rows, int next, long pass) {
        for (; next < rows.size() && rows.get(next).path("written_after_pass").asLong(0) <= pass; next++) {
            JsonNode row = rows.get(next);
            table.add(new Message(integer(row, "id"), row.path("aggregate").asText(), row.path("type").asText()));
        }
        return next;
    }

    /** The wire names of the failures: only the runner knows them. */
    private static Failure failure(String attempt, JsonNode kind) {
        return switch (kind.isTextual() ? kind.textValue() : "") {
            case "down" -> Failure.DOWN;
            case "lost_ack" -> Failure.LOST_ACK;
            default -> throw new Refused("unknown failure kind: " + kind + " (attempt " + attempt + ")");
        };
    }

    /**
     * The batch size, which a case may set up to 2^53-1: a table holds at
     * most Integer.MAX_VALUE rows, so a larger batch takes the same rows.
     */
    private static int batchSize(JsonNode request) {
        return (int) Math.min(integer(request, "batch_size"), Integer.MAX_VALUE);
    }

    /**
     * An integer field; the harness validated the request, so this only
     * guards against a stray one.
     */
    private static long integer(JsonNode object, String field) {
        JsonNode value = object.get(field);
        if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()) {
            throw new Refused("bad request: `" + field + "` must be an integer, not " + describe(value));
        }
        return value.longValue();
    }

    /** A request field in an error: its JSON, or that it is missing. */
    private static String describe(JsonNode value) {
        return value == null ? "missing" : value.toString();
    }

    private static ObjectNode error(String name, String text) {
        return JSON.createObjectNode().put("name", name).put("error", text);
    }
}
