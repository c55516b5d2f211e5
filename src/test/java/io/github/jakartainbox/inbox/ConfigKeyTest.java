package io.github.jakartainbox.inbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.jakartainbox.inbox.text.CataloguedMessage;
import io.github.jakartainbox.testing.MapConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

/** A key of one's own, read by the rules of the inbox's keys, and a wrong value named by the catalogue's message. */
class ConfigKeyTest {

    /** A catalogue of one message, as an application's would hold it. */
    private enum TestMessage implements CataloguedMessage {
        TEST0001E;

        @Override
        public Text text() {
            return new Text(Level.SEVERE, "Configuration key {0} has the value ''{1}''; it must be {2}.",
                    Logger.getLogger("test"));
        }
    }

    private static final ConfigKey<Duration> WAIT = ConfigKey.duration("app.wait", "PT10S",
            "a positive ISO-8601 duration", false, Duration.ofHours(1), TestMessage.TEST0001E);
    private static final ConfigKey<Integer> SIZE = ConfigKey.integer("app.size", "6", 1, 1000,
            TestMessage.TEST0001E);
    private static final ConfigKey<Boolean> KEEP = ConfigKey.bool("app.keep", "true", TestMessage.TEST0001E);
    private static final ConfigKey<String> NAME = ConfigKey.text("app.name", null, TestMessage.TEST0001E);

    private static Config config(Map<String, String> properties) {
        return MapConfig.of(properties);
    }

    @Test
    void anUnsetOrBlankKeyHasItsDefaultAndValuesAreTrimmed() {
        Config config = config(Map.of("app.size", "  ", "app.wait", " PT2S ", "app.keep", "FALSE"));
        assertEquals(6, SIZE.get(config));
        assertEquals(Duration.ofSeconds(2), WAIT.get(config));
        assertEquals(false, KEEP.get(config));
        assertEquals(Optional.empty(), NAME.find(config), "no value, no default");
    }

    @Test
    void aWrongValueIsRefusedWithTheCataloguesMessageNamingTheKey() {
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> SIZE.get(config(Map.of("app.size", "1001"))));
        assertEquals("TEST0001E: Configuration key app.size has the value '1001'; it must be an integer from 1 to 1000.",
                refused.getMessage());
        assertThrows(IllegalStateException.class, () -> WAIT.get(config(Map.of("app.wait", "PT0S"))));
        assertThrows(IllegalStateException.class, () -> WAIT.get(config(Map.of("app.wait", "PT2H"))), "above max");
        assertThrows(IllegalStateException.class, () -> WAIT.get(config(Map.of("app.wait", "10s"))));
        assertThrows(IllegalStateException.class, () -> KEEP.get(config(Map.of("app.keep", "yes"))));
    }

    @Test
    void problemsNamesEveryWrongKeyOfACatalogue() {
        List<String> problems = ConfigKey.problems(config(Map.of("app.size", "0", "app.keep", "on", "app.wait",
                "PT5S")), List.of(WAIT, SIZE, KEEP, NAME));
        assertEquals(List.of(
                "TEST0001E: Configuration key app.size has the value '0'; it must be an integer from 1 to 1000.",
                "TEST0001E: Configuration key app.keep has the value 'on'; it must be true or false."), problems);
    }

    @Test
    void aDefaultThatDoesNotParseIsRefusedAtDeclaration() {
        assertThrows(IllegalArgumentException.class, () -> ConfigKey.integer("app.bad", "0", 1, 10,
                TestMessage.TEST0001E));
    }
}
