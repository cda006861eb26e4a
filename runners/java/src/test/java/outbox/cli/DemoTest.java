package outbox.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every refusal of SPEC's demo contract, in-process (the demo_config trial
 * starts the demo on three of them only), and a shorter run's transcript.
 */
class DemoTest {
    @TempDir
    Path dir;

    /** What {@code loadConfig} says of {@code content}, without the file name. */
    private String refusal(String content) throws IOException {
        Path file = dir.resolve("demo.json");
        Files.writeString(file, content, StandardCharsets.UTF_8);
        var refused = assertThrows(Demo.BadConfig.class, () -> Demo.loadConfig(file.toString()), content);
        String prefix = file + ": ";
        assertTrue(refused.getMessage().startsWith(prefix), refused.getMessage());
        return refused.getMessage().substring(prefix.length());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
        "batch_size = 3|not valid JSON",
        "''|not valid JSON",
        "{} {}|not valid JSON",
        "[3, 10]|not a JSON object",
        "{\"batch_size\": 3}|\"max_passes\" is missing",
        "{\"batch_size\": 3, \"max_passes\": true}|\"max_passes\" must be an integer >= 1",
        "{\"batch_size\": \"3\", \"max_passes\": 10}|\"batch_size\" must be an integer >= 1",
        "{\"batch_size\": 3.5, \"max_passes\": 10}|\"batch_size\" must be an integer >= 1",
        "{\"batch_size\": 3.0, \"max_passes\": 10}|\"batch_size\" must be an integer >= 1",
        "{\"batch_size\": 0, \"max_passes\": 10}|\"batch_size\" must be an integer >= 1",
        "{\"batch_size\": 3, \"max_passes\": 0}|\"max_passes\" must be an integer >= 1",
        "{\"batch_size\": 3, \"max_passes\": -1}|\"max_passes\" must be an integer >= 1",
        "{\"batch_size\": 3, \"max_passes\": 18446744073709551617}|\"max_passes\" must be an integer >= 1",
        "{\"z\": 1, \"batch_size\": 3, \"a\": 2}|unknown key \"a\"",
        "{\"batch_size\": 3, \"max_passes\": 10, \"max_attempts\": true}|\"max_attempts\" must be an integer >= 1",
        "{\"batch_size\": 3, \"max_passes\": 10, \"max_attempts\": 0}|\"max_attempts\" must be an integer >= 1",
        "{\"batch_size\": 3, \"max_passes\": 10, \"max_attempts\": \"3\"}|\"max_attempts\" must be an integer >= 1",
        "{\"batch_size\": 3, \"max_passes\": 10, \"max_attempts\": 2.5}|\"max_attempts\" must be an integer >= 1",
        "{\"max_attempts\": 3, \"batch_size\": 3}|\"max_passes\" is missing",
    })
    void oneLinePerProblemNamingTheKey(String content, String expected) throws IOException {
        assertEquals(expected, refusal(content));
    }

    @Test
    void aMissingFileCannotBeRead() {
        var refused = assertThrows(Demo.BadConfig.class, () -> Demo.loadConfig("no/such/demo.json"));
        assertEquals("no/such/demo.json: cannot read the file", refused.getMessage());
    }

    @Test
    void maxAttemptsMayBeLeftOut() throws IOException, Demo.BadConfig {
        assertEquals(new Demo.Config(3, 10, null),
                Demo.loadConfig(writeConfig("{\"max_passes\": 10, \"batch_size\": 3}")));
        assertEquals(new Demo.Config(3, 10, 3L),
                Demo.loadConfig(writeConfig("{\"max_attempts\": 3, \"max_passes\": 10, \"batch_size\": 3}")));
    }

    @Test
    void theTranscriptFollowsTheRun() {
        String shorter = Demo.run(new Demo.Config(1, 2, null));
        assertTrue(shorter.contains("\nPass 2: batch [1]\n  attempt 2: "), shorter);
        assertTrue(shorter.endsWith("Stopped at the pass limit with messages still unsent.\n"
                + "Consumer journal:\n  order-1 OrderPlaced\nDuplicates dropped: 1\n"), shorter);
    }

    @Test
    void theAttemptLimitDeadLettersTheMessageThatAlwaysFails() {
        String capped = Demo.run(new Demo.Config(3, 10, 3L));
        String alert = "  attempt 8: #5 order-3 OrderPlaced -> publish failed: broker down; "
                + "order-3 blocked for this pass\n"
                + "  alert: dead letter #5 order-3 OrderPlaced after 3 attempts\n  sent []\n\n"
                + "Outbox drained after 5 passes.\n"
                + "Dead letters, for a person to look at: #5 order-3 OrderPlaced (3 attempts).\n";
        assertTrue(capped.contains(alert), capped);
        assertEquals(1, capped.split("alert:", -1).length - 1, capped);
        String uncapped = Demo.run(new Demo.Config(3, 10, null));
        assertFalse(uncapped.contains("alert:"), uncapped);
        assertTrue(uncapped.contains("attempt 9: #5 order-3 OrderPlaced -> published"), uncapped);
        String early = Demo.run(new Demo.Config(3, 10, 1L));
        assertTrue(early.contains("\n  alert: dead letter #1 order-1 OrderPlaced after 1 attempt\n"),
                "a lost ack is a failed attempt too: " + early);
    }

    private String writeConfig(String content) throws IOException {
        Path file = dir.resolve("ok.json");
        Files.writeString(file, content, StandardCharsets.UTF_8);
        return file.toString();
    }
}
