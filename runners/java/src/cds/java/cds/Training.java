package cds;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The training run of the start-up archive (AppCDS): it uses Jackson as the
 * runner and the demo do, so the JVM that runs it with
 * {@code -XX:ArchiveClassesAtExit} archives the classes they load. It is a
 * source set of its own (src/cds/java), compiled by the build only, so the
 * port's sources hold the port. The build runs it from a jar of its own
 * (cds/outbox-training.jar), because CDS refuses a class path with a
 * non-empty folder, and classes/ must stay a folder (make mutants puts its
 * class files there).
 */
public final class Training {
    private Training() {}

    /**
     * One request, one config, one parse error, the fetch's and the alert's
     * shapes and one answer, as the runner and demo make them.
     */
    public static void main(String[] args) throws Exception {
        JsonMapper json = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
        JsonNode request = json.readTree("{\"kind\":\"case\",\"version\":1,\"name\":\"c\",\"batch_size\":3,"
                + "\"messages\":[{\"id\":1,\"aggregate\":\"order-1\",\"type\":\"OrderPlaced\"}],"
                + "\"failures\":{\"1\":\"lost_ack\"},\"passes\":2,\"x\":[1.5,true,null,18446744073709551617]}");
        long sum = 0;
        for (Map.Entry<String, JsonNode> field : request.properties()) {
            JsonNode value = field.getValue();
            if (value.isIntegralNumber() && value.canConvertToLong()) {
                sum += value.asLong();
            }
        }
        json.readTree("{\"batch_size\": 3, \"max_passes\": 10}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        try {
            json.readTree("{} x");
        } catch (JsonProcessingException expected) {
            sum += expected.getOriginalMessage().length();
        }
        // The shapes of the port's fetch and alert: a LinkedHashMap's values
        // filtered by capturing lambdas, then limited (a buffer of unknown
        // size), a counter merged, and a Consumer that captures a list.
        Map<Long, String> rows = new LinkedHashMap<>();
        rows.put(1L, "order-1");
        rows.put(2L, "order-1");
        Set<String> orders = new HashSet<>();
        long limit = sum;
        List<String> batch = rows.values().stream()
                .filter(aggregate -> aggregate.length() < limit && !orders.contains(aggregate + limit))
                .filter(aggregate -> limit < 0 || orders.add(aggregate))
                .limit(limit)
                .toList();
        Map<Long, Long> attempts = new HashMap<>();
        attempts.merge(1L, 1L, Long::sum);
        List<Long> dead = new ArrayList<>();
        Consumer<Long> alert = id -> dead.add(id);
        Consumer<Long> none = id -> {};
        alert.andThen(none).accept(attempts.get(1L));
        sum += batch.size() + dead.size();
        ObjectNode answer = json.createObjectNode().put("name", "c").put("duplicates", sum);
        answer.putArray("sent").addArray().add(1L);
        System.out.println(json.writeValueAsString(answer) + TextNode.valueOf("a"));
    }
}
