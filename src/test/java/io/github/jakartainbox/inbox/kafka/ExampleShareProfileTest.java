package io.github.jakartainbox.inbox.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.testing.MapConfig;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.io.IOException;
import java.net.URL;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The example's order channels in its configuration profiles (docs/running.md, "In share mode"), read by SmallRye
 * Config as Liberty's MicroProfile Config reads them and handed to the connector's checks as the engine hands a
 * channel's attributes: without a profile each is a classic channel in groups; with {@code share} a share channel
 * of its own group, the classic consumer's keys (which a share channel refuses, INBOX0601E) removed by the profile's
 * empty values.
 */
class ExampleShareProfileTest {

    private static final String CONFIG = "META-INF/microprofile-config.properties";

    @ParameterizedTest
    @ValueSource(strings = {"orders-billing", "orders-analytics"})
    void withoutAProfileAnOrderChannelIsClassicInGroups(String channel) throws IOException {
        InboxKafkaChannel.Settings settings = InboxKafkaConnector.settings(channel(example(null), channel));
        assertFalse(settings.share());
        assertEquals(100, settings.maxGroupSize());
        assertEquals("earliest", settings.kafka().getProperty("auto.offset.reset"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"orders-billing", "orders-analytics"})
    void theShareProfileMakesAnOrderChannelAShareGroupOfItsOwn(String channel) throws IOException {
        InboxKafkaChannel.Settings settings = InboxKafkaConnector.settings(channel(example("share"), channel));
        assertTrue(settings.share());
        assertEquals(channel.substring("orders-".length()) + "-share", settings.groupId(),
                "a group id of its own: the broker refuses a share group under a classic group's id");
        assertEquals("earliest", settings.shareGroupConfig().get("share.auto.offset.reset"));
        for (String classic : InboxKafkaConnector.NOT_FOR_SHARE.keySet()) {
            assertFalse(settings.kafka().containsKey(classic), classic);
        }
    }

    /** The example's configuration file, with the server variable it refers to, in a profile or none. */
    private static SmallRyeConfig example(String profile) throws IOException {
        URL file = Thread.currentThread().getContextClassLoader().getResource(CONFIG);
        SmallRyeConfigBuilder builder = new SmallRyeConfigBuilder()
                .withSources(new PropertiesConfigSource(file, 100))
                .withDefaultValue("kafka.bootstrap.servers", "127.0.0.1:9092");
        if (profile != null) {
            builder.withProfile(profile);
        }
        return builder.build();
    }

    /**
     * A channel's attributes as the Reactive Messaging engine hands them to its connector: the connector's own keys
     * ({@code mp.messaging.connector.inbox-kafka.}), then the channel's ({@code mp.messaging.incoming.<channel>.}),
     * without their prefix; a key whose value is empty is not set.
     */
    private static Config channel(SmallRyeConfig all, String channel) {
        String connector = "mp.messaging.connector.inbox-kafka.";
        String incoming = "mp.messaging.incoming." + channel + ".";
        Map<String, String> attributes = new HashMap<>();
        for (String prefix : new String[] {connector, incoming}) {
            for (String name : all.getPropertyNames()) {
                if (name.startsWith(prefix)) {
                    all.getOptionalValue(name, String.class)
                            .ifPresent(value -> attributes.put(name.substring(prefix.length()), value));
                }
            }
        }
        attributes.put("channel-name", channel);
        return MapConfig.of(attributes);
    }
}
