package outbox.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
