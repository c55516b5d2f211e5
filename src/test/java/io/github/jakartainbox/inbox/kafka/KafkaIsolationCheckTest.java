package io.github.jakartainbox.inbox.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.junit.jupiter.api.Test;

class KafkaIsolationCheckTest {

    static class Consumers {
        @Incoming("committed")
        public void committed(String value) {
        }

        @Incoming("default-level")
        public void defaultLevel(String value) {
        }

        @Incoming("on-connector")
        public void onConnector(String value) {
        }

        @Incoming("not-kafka")
        public void notKafka(String value) {
        }

        @Incoming("inbox-kafka-default")
        public void inboxKafkaDefault(String value) {
        }

        @Incoming("inbox-kafka-uncommitted")
        public void inboxKafkaUncommitted(String value) {
        }

        @Incoming("share-default")
        public void shareDefault(String value) {
        }

        @Incoming("share-uncommitted")
        public void shareUncommitted(String value) {
        }
    }

    /** A MicroProfile Config holding only the given properties (getOptionalValue is all the check uses). */
    private static Config config(Map<String, String> properties) {
        return (Config) Proxy.newProxyInstance(Config.class.getClassLoader(), new Class<?>[] {Config.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getOptionalValue")) {
                        return Optional.ofNullable(properties.get((String) args[0]));
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void kafkaChannelsNotReadingCommittedRecordsAreFound() {
        Config config = config(Map.of(
                "mp.messaging.incoming.committed.connector", "liberty-kafka",
                "mp.messaging.incoming.committed.isolation.level", "read_committed",
                "mp.messaging.incoming.default-level.connector", "liberty-kafka",
                "mp.messaging.incoming.on-connector.connector", "smallrye-kafka",
                "mp.messaging.connector.smallrye-kafka.isolation.level", "READ_COMMITTED",
                "mp.messaging.incoming.not-kafka.connector", "smallrye-amqp",
                "mp.messaging.incoming.inbox-kafka-default.connector", "inbox-kafka",
                "mp.messaging.incoming.inbox-kafka-uncommitted.connector", "inbox-kafka",
                "mp.messaging.incoming.inbox-kafka-uncommitted.isolation.level", "read_uncommitted"));
        List<Method> methods = List.of(Consumers.class.getDeclaredMethods());
        List<String> found = KafkaIsolationCheck.readUncommitted(config, methods).stream()
                .map(KafkaIsolationCheck.Finding::channel).toList();
        assertEquals(java.util.Set.of("default-level", "inbox-kafka-uncommitted"), java.util.Set.copyOf(found),
                "the liberty-kafka channel left at the client's default, read_uncommitted, and the inbox-kafka one "
                        + "set to it (inbox-kafka's default is read_committed)");
    }

    @Test
    void aShareChannelIsJudgedByItsGroupsIsolationLevel() {
        Config config = config(Map.of(
                "mp.messaging.incoming.share-default.connector", "inbox-kafka",
                "mp.messaging.incoming.share-default.group.type", "share",
                "mp.messaging.incoming.share-uncommitted.connector", "inbox-kafka",
                "mp.messaging.incoming.share-uncommitted.group.type", "share",
                "mp.messaging.incoming.share-uncommitted.share.isolation.level", "read_uncommitted"));
        List<KafkaIsolationCheck.Finding> found = KafkaIsolationCheck.readUncommitted(config,
                List.of(Consumers.class.getDeclaredMethods()));
        assertEquals(List.of("share-uncommitted share.isolation.level=read_uncommitted"), found.stream()
                .map(f -> f.channel() + " " + f.isolationLevel()).toList(),
                "the channel's share group reads committed records by default");
    }

    @Test
    void aKafkaChannelWithConcurrencyAndNoTopicIsFound() {
        Config config = config(Map.of(
                "mp.messaging.incoming.committed.connector", "liberty-kafka",
                "mp.messaging.incoming.committed.concurrency", "4",
                "mp.messaging.incoming.default-level.connector", "inbox-kafka",
                "mp.messaging.incoming.default-level.concurrency", "2",
                "mp.messaging.incoming.default-level.topic", "orders",
                "mp.messaging.incoming.not-kafka.connector", "smallrye-amqp",
                "mp.messaging.incoming.not-kafka.concurrency", "2"));
        assertEquals(List.of("committed"), KafkaIsolationCheck.concurrencyWithoutTopic(config,
                List.of(Consumers.class.getDeclaredMethods())));
    }

    @Test
    void anInboxKafkaChannelInGroupsWithoutIdempotentIsFound() {
        Config config = config(Map.of(
                "mp.messaging.incoming.orders-billing.connector", "inbox-kafka",
                "mp.messaging.incoming.orders-plain.connector", " inbox-kafka ",
                "mp.messaging.incoming.orders-sized.connector", "inbox-kafka",
                "mp.messaging.incoming.orders-sized.group.max-size", "10",
                "mp.messaging.incoming.orders-status.connector", "inbox-kafka",
                "mp.messaging.incoming.orders-status.group.max-size", " 1 ",
                "mp.messaging.incoming.orders-liberty.connector", "liberty-kafka"));
        assertEquals(List.of(new KafkaIsolationCheck.WithoutInbox("orders-plain", "100"),
                        new KafkaIsolationCheck.WithoutInbox("orders-sized", "10")),
                KafkaIsolationCheck.inboxKafkaWithoutInbox(config, List.of("orders-billing", "orders-liberty",
                        "orders-plain", "orders-sized", "orders-status", "no-connector"), List.of("orders-billing")),
                "in groups without @Idempotent (the default size is 100); the idempotent channel, the one at "
                        + "group.max-size=1 (offsets only) and liberty-kafka's pass");
    }

    @Test
    void aShareChannelWithoutIdempotentRunsOneRecordPerTransactionAndPasses() {
        Config config = config(Map.of(
                "mp.messaging.incoming.orders-shared.connector", "inbox-kafka",
                "mp.messaging.incoming.orders-shared.group.type", "share",
                "mp.messaging.incoming.orders-classic.connector", "inbox-kafka",
                "mp.messaging.incoming.orders-classic.group.type", "classic"));
        assertEquals(List.of(new KafkaIsolationCheck.WithoutInbox("orders-classic", "100")),
                KafkaIsolationCheck.inboxKafkaWithoutInbox(config, List.of("orders-shared", "orders-classic"),
                        List.of()));
    }

    @Test
    void theConnectorWideGroupSizeCounts() {
        Config config = config(Map.of(
                "mp.messaging.incoming.orders-status.connector", "inbox-kafka",
                "mp.messaging.connector.inbox-kafka.group.max-size", "1"));
        assertEquals(List.of(), KafkaIsolationCheck.inboxKafkaWithoutInbox(config, List.of("orders-status"),
                List.of()));
    }
}
