package io.github.jakartainbox.inbox;

import io.github.jakartainbox.inbox.delivery.IdempotentExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigValue;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.eclipse.microprofile.config.spi.Converter;
import org.junit.jupiter.api.Test;

/** The key catalogue's lookup rules: scope, fallback, strict parsing, one case rule. */
class InboxConfigKeysTest {

    /** A configuration made of the given properties only. */
    private static Config config(Map<String, String> properties) {
        return new Config() {
            @Override
            public <T> T getValue(String name, Class<T> type) {
                return getOptionalValue(name, type).orElseThrow();
            }

            @Override
            public ConfigValue getConfigValue(String name) {
                throw new UnsupportedOperationException();
            }

            @Override
            public <T> Optional<T> getOptionalValue(String name, Class<T> type) {
                return Optional.ofNullable(properties.get(name)).map(type::cast);
            }

            @Override
            public Iterable<String> getPropertyNames() {
                return properties.keySet();
            }

            @Override
            public Iterable<ConfigSource> getConfigSources() {
                return java.util.List.of();
            }

            @Override
            public <T> Optional<Converter<T>> getConverter(Class<T> forType) {
                return Optional.empty();
            }

            @Override
            public <T> T unwrap(Class<T> type) {
                throw new UnsupportedOperationException();
            }
        };
    }

    @Test
    void aGlobalNameKeyRenamesNoConsumer() {
        // before the catalogue, inbox.name (or INBOX_NAME) gave every consumer the same stored name
        Config config = config(Map.of("inbox.name", "shared"));
        assertEquals(Optional.empty(), InboxConfig.NAME.find(config, "billing"));
        assertEquals(Optional.empty(), InboxConfig.NAME.find(config, "analytics"));
        assertFalse(IdempotentExtension.isKnownKey("inbox.name"), "a global name is reported (INBOX0011W)");
    }

    @Test
    void aConsumersOwnNameIsUsedAndChecked() {
        assertEquals(Optional.of("billing-v2"),
                InboxConfig.NAME.find(config(Map.of("inbox.consumer.billing.name", "billing-v2")), "billing"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> InboxConfig.NAME.find(
                config(Map.of("inbox.consumer.billing.name", "bill ing")), "billing"));
        assertTrue(e.getMessage().startsWith("INBOX0004E: Configuration key inbox.consumer.billing.name"), e.getMessage());
    }

    @Test
    void perConsumerKeysFallBackToTheGlobalOneThenTheDefault() {
        Config config = config(Map.of("inbox.retry.delay", "PT1S", "inbox.consumer.billing.retry.delay", "PT2S"));
        assertEquals(Duration.ofSeconds(2), InboxConfig.RETRY_DELAY.get(config, "billing"));
        assertEquals(Duration.ofSeconds(1), InboxConfig.RETRY_DELAY.get(config, "analytics"));
        assertEquals(Duration.ofMillis(200), InboxConfig.RETRY_DELAY.get(config(Map.of()), "analytics"));
        assertEquals(Duration.ofMinutes(2), InboxConfig.RETRY_TRANSIENT_BUDGET.get(config(Map.of()), "billing"));
    }

    @Test
    void booleansAreStrict() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> InboxConfig.SCHEMA_MIGRATE.get(config(Map.of("inbox.schema.migrate", "flase"))));
        assertTrue(e.getMessage().contains("true or false"), e.getMessage());
        assertEquals(false, InboxConfig.SCHEMA_MIGRATE.get(config(Map.of("inbox.schema.migrate", "FALSE"))));
    }

    @Test
    void everyEnumeratedValueIgnoresCase() {
        assertEquals("monthly", InboxConfig.PARTITIONING.get(config(Map.of("inbox.partitioning", "Monthly"))));
        assertEquals("none", InboxConfig.FINGERPRINT.get(config(Map.of("inbox.fingerprint", "NONE")), "billing"));
        assertEquals("header", InboxConfig.EVENT_ID_SOURCE.get(config(Map.of("inbox.event-id.source", "Header")), "x"));
        assertEquals("off", InboxConfig.PURGE_SCHEDULE.get(config(Map.of("inbox.purge.schedule", "OFF"))));
    }

    @Test
    void boundsAndDurationsAreCheckedByTheKey() {
        assertThrows(IllegalStateException.class, () -> InboxConfig.RETENTION.get(
                config(Map.of("inbox.consumer.billing.retention", "PT0S")), "billing"));
        assertThrows(IllegalStateException.class, () -> InboxConfig.EVENT_ID_MAX_LENGTH.get(
                config(Map.of("inbox.event-id.max-length", "256")), "billing"));
        assertThrows(IllegalStateException.class, () -> InboxConfig.PURGE_SCHEDULE.get(
                config(Map.of("inbox.purge.schedule", "0 * *"))));
        assertEquals(Duration.ZERO, InboxConfig.RETRY_DELAY.get(config(Map.of("inbox.retry.delay", "PT0S")), "x"));
    }

    @Test
    void misspelledKeysAreNotKnown() {
        assertTrue(IdempotentExtension.isKnownKey("inbox.consumer.billing.retry.delay"));
        assertTrue(IdempotentExtension.isKnownKey("inbox.retry.delay"));
        assertTrue(IdempotentExtension.isKnownKey("mp.messaging.incoming.x.topic"));
        assertFalse(IdempotentExtension.isKnownKey("inbox.consumer.billing.retry.delai"));
        assertFalse(IdempotentExtension.isKnownKey("inbox.consumer.billing.datasource"), "datasource is global only");
        assertFalse(IdempotentExtension.isKnownKey("inbox.purge.shedule"));
    }

    @Test
    void keysSetFromTheEnvironmentAreKnownWhateverTheirSeparators() {
        // INBOX_CONSUMER_BILLING_RETRY_MAX_ATTEMPTS showed as inbox.consumer.billing.retry.max.attempts, and was
        // reported as having no effect although MicroProfile Config reads it
        assertTrue(IdempotentExtension.isKnownKey("inbox.consumer.billing.retry.max.attempts"));
        assertTrue(IdempotentExtension.isKnownKey("inbox.retry.transient.budget"));
        assertTrue(IdempotentExtension.isKnownKey("inbox.purge.batch.size"));
        assertFalse(IdempotentExtension.isKnownKey("inbox.retry.max.attemps"));
    }
}
