package outbox.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The refusals every runner must make: no case of the table can ask for them. */
class RunnerTest {
    private static final String CASE = "{\"kind\":\"case\",\"version\":1,\"name\":\"c\",\"batch_size\":10,"
            + "\"messages\":[{\"id\":1,\"aggregate\":\"order-1\",\"type\":\"OrderPlaced\"},"
            + "{\"id\":2,\"aggregate\":\"order-1\",\"type\":\"OrderPaid\",\"written_after_pass\":1}],"
            + "\"failures\":{\"1\":\"lost_ack\"},\"passes\":2}";

    @Test
    void aCaseIsPlayedWithItsLateRows() {
        JsonNode answer = Runner.answer(CASE);
        assertEquals("{\"name\":\"c\",\"sent\":[[],[1,2]],\"journal\":[\"order-1 OrderPlaced\","
                + "\"order-1 OrderPaid\"],\"duplicates\":1}", answer.toString());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"kind\":\"dance\",\"version\":1,\"name\":\"c\"}|unknown request kind: \"dance\"",
        "{\"version\":1,\"name\":\"c\"}|unknown request kind: missing",
        "{\"kind\":\"case\",\"version\":2,\"name\":\"c\"}|unsupported protocol version: 2",
        "{\"kind\":\"case\",\"version\":1.0,\"name\":\"c\"}|unsupported protocol version: 1.0",
        "{\"kind\":\"case\",\"name\":\"c\"}|unsupported protocol version: missing",
        "{\"kind\":\"case\",\"version\":18446744073709551617,\"name\":\"c\"}|unsupported protocol version: 1844",
    })
    void refusesKindsAndVersionsItDoesNotSpeak(String line, String start) {
        JsonNode answer = Runner.answer(line);
        assertEquals("c", answer.path("name").textValue());
        assertTrue(answer.path("error").asText().startsWith(start), answer.toString());
    }

    @Test
    void refusesAnUnknownFailureKind() {
        JsonNode answer = Runner.answer(CASE.replace("lost_ack", "on_fire"));
        assertTrue(answer.path("error").asText().startsWith("unknown failure kind: \"on_fire\""), answer.toString());
    }

    @Test
    void anIdThatDoesNotIncreaseIsAnErrorAnswerWithTheTablesMessage() {
        JsonNode answer = Runner.answer(CASE.replace("\"id\":2", "\"id\":1"));
        assertEquals("message id 1 is not greater than the last id 1", answer.path("error").asText());
    }

    @Test
    void aLineThatIsNotJsonHasNoName() {
        for (String line : new String[] {"not json", "{\"name\":\"c\"} x", "[1]", "{\"name\":7}"}) {
            JsonNode answer = Runner.answer(line);
            assertTrue(answer.get("name").isNull(), answer.toString());
            assertTrue(answer.path("error").isTextual(), answer.toString());
        }
    }

    /** SPEC's three messages, the list left open for more. */
    private static final String ROWS = "\"messages\":[{\"id\":1,\"aggregate\":\"order-1\",\"type\":\"OrderPlaced\"},"
            + "{\"id\":2,\"aggregate\":\"order-2\",\"type\":\"OrderPlaced\"},"
            + "{\"id\":3,\"aggregate\":\"order-1\",\"type\":\"OrderPaid\"}";

    private static String request(String rows, String rest) {
        return "{\"kind\":\"case\",\"version\":1,\"name\":\"c\",\"batch_size\":10," + rows + "]," + rest + "}";
    }

    /** SPEC's examples through the request line: dead_letters exactly when the case has max_attempts. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
        "'\"failures\":{\"1\":\"down\",\"3\":\"down\"},\"passes\":3,\"max_attempts\":2'"
            + "|'\"sent\":[[2],[],[3]],\"journal\":[\"order-2 OrderPlaced\",\"order-1 OrderPaid\"],"
            + "\"duplicates\":0,\"dead_letters\":[[],[1],[]]'",
        "'\"failures\":{\"1\":\"down\",\"3\":\"down\"},\"passes\":3,\"max_attempts\":2,\"on_exhausted\":\"park\"'"
            + "|'\"sent\":[[2],[],[]],\"journal\":[\"order-2 OrderPlaced\"],\"duplicates\":0,"
            + "\"dead_letters\":[[],[1],[]]'",
        "'\"failures\":{\"1\":\"lost_ack\"},\"passes\":2,\"retention\":1'"
            + "|'\"sent\":[[2],[1,3]],\"journal\":[\"order-1 OrderPlaced\",\"order-2 OrderPlaced\","
            + "\"order-1 OrderPlaced\",\"order-1 OrderPaid\"],\"duplicates\":0'",
        "'\"failures\":{\"1\":\"lost_ack\"},\"passes\":2,\"retention\":2'"
            + "|'\"sent\":[[2],[1,3]],\"journal\":[\"order-1 OrderPlaced\",\"order-2 OrderPlaced\","
            + "\"order-1 OrderPaid\"],\"duplicates\":1'",
    })
    void theFeaturesArePlayed(String rest, String expected) {
        assertEquals("{\"name\":\"c\"," + expected + "}", Runner.answer(request(ROWS, rest)).toString());
    }

    @Test
    void eachRunIsAListOfSentAndAScheduleNamesTheRuns() {
        String rows = ROWS + ",{\"id\":4,\"aggregate\":\"order-2\",\"type\":\"OrderPaid\"}";
        JsonNode two = Runner.answer(request(rows, "\"failures\":{},\"passes\":2,\"relays\":2"));
        assertEquals("[[2,4],[1,3],[],[]]", two.get("sent").toString());
        assertEquals("order-2 OrderPlaced", two.get("journal").get(0).asText());
        assertFalse(two.has("dead_letters"), two.toString());
        // Pass 2 is an outage, yet the consumer's clock ticks: id 1, applied
        // at pass 1, is forgotten at pass 3 with a retention of 2.
        JsonNode scheduled = Runner.answer(request(rows,
                "\"failures\":{\"1\":\"lost_ack\"},\"passes\":3,\"retention\":2,\"relays\":2,"
                + "\"schedule\":[[1],[],[1,0,0]]"));
        assertEquals("[[],[1,3],[2,4],[]]", scheduled.get("sent").toString());
        assertEquals(0, scheduled.get("duplicates").intValue(), scheduled.toString());
        assertEquals("[\"order-1 OrderPlaced\",\"order-1 OrderPlaced\",\"order-1 OrderPaid\",\"order-2 OrderPlaced\","
                + "\"order-2 OrderPaid\"]", scheduled.get("journal").toString());
    }

    @Test
    void unparkTakesEffectAfterItsPass() {
        String rest = "\"failures\":{\"1\":\"down\"},\"passes\":3,\"max_attempts\":1,\"on_exhausted\":\"park\","
                + "\"unpark\":[{\"aggregate\":\"order-1\",\"after_pass\":2}],\"fetch\":\"heads\"";
        JsonNode answer = Runner.answer(request(ROWS, rest));
        assertEquals("[[2],[],[3]]", answer.get("sent").toString());
        assertEquals("[[1],[],[]]", answer.get("dead_letters").toString());
    }
}
