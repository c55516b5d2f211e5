package io.github.jakartainbox.inbox.consumer;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.testing.MapConfig;
import java.util.Map;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

/** Which topics an application's consumers can read, for the re-drive aims they may be named in. */
class IdempotentChannelsTest {

    private final IdempotentChannels channels = new IdempotentChannels();
    private final Config config = MapConfig.of(Map.of(
            "mp.messaging.incoming.orders.topic", "orders.confirmed",
            "mp.messaging.incoming.orders-analytics.topic", "orders.confirmed",
            "mp.messaging.incoming.mailer.topics", "invoices.issued, invoices.reissued",
            "mp.messaging.incoming.everything.pattern", "true",
            "mp.messaging.incoming.everything.topic", "orders\\..*"));

    IdempotentChannelsTest() {
        channels.found("billing", "orders");
        channels.found("analytics", "orders-analytics");
        channels.found("mailer", "mailer");
        channels.found("billing-jms", null); // a message-driven bean
        channels.found("audit", "everything");
        channels.found("by-name", "by-name.topic");
    }

    @Test
    void aConsumerReadsTheTopicsOfItsChannels() {
        assertTrue(channels.mayRead("billing", "orders.confirmed", config));
        assertTrue(channels.mayRead("analytics", "orders.confirmed", config));
        assertTrue(channels.mayRead("mailer", "invoices.reissued", config), "one of its topics");
        assertTrue(channels.mayRead("by-name", "by-name.topic", config), "a channel without topic reads its name");
        assertTrue(channels.mayRead("audit", "anything", config), "a pattern subscription cannot be told apart");
    }

    /** A JMS queue's re-drive, recorded under the queue's name, made Kafka consumers of a same-named topic skip. */
    @Test
    void aConsumerOfThisApplicationWithoutAChannelOfTheTopicCannotBeAimedAtOnIt() {
        assertFalse(channels.mayRead("billing-jms", "orders.confirmed", config), "a message-driven bean");
        assertFalse(channels.mayRead("mailer", "orders.confirmed", config), "a consumer of other topics");
        assertTrue(channels.mayRead("another-service", "orders.confirmed", config),
                "a consumer this application does not run: the database decides");
    }
}
