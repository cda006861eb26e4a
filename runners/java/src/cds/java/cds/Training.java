package cds;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Map;

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
     * One request, one config, one parse error and one answer, as the runner
     * and demo make them.
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
        ObjectNode answer = json.createObjectNode().put("name", "c").put("duplicates", sum);
        answer.putArray("sent").addArray().add(1L);
        System.out.println(json.writeValueAsString(answer) + TextNode.valueOf("a"));
    }
}
