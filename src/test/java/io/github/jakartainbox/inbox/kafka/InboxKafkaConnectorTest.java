package io.github.jakartainbox.inbox.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.testing.MapConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

/** The channel attributes of the inbox-kafka connector, as the engine hands them over, and their checks. */
class InboxKafkaConnectorTest {

    /** A channel's configuration: the keys without their mp.messaging.incoming.<channel>. prefix. */
    private static Config config(Map<String, String> properties) {
        return MapConfig.of(properties);
    }

    private static Map<String, String> channel(String name) {
        Map<String, String> p = new HashMap<>();
        p.put("channel-name", name);
        p.put("connector", "inbox-kafka");
        p.put("topic", "orders.confirmed");
        p.put("group.id", "billing");
        p.put("bootstrap.servers", "127.0.0.1:9092");
        p.put("value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        return p;
    }

    @Test
    void aChannelsOwnMetadataAgeIsKept() {
        Map<String, String> p = channel("orders-billing");
        p.put("metadata.max.age.ms", "5000");
        assertEquals("5000", InboxKafkaConnector.settings(config(p)).kafka().getProperty("metadata.max.age.ms"));
    }

    @Test
    void kafkaKeysGoToTheConsumerWithReadCommittedAndNoAutoCommitTheConnectorsOwnDoNot() {
        Map<String, String> p = channel("orders-billing");
        p.put("group.max-size", "10");
        p.put("fast.ack", "false");
        p.put("group.claim", "multi-row");
        InboxKafkaChannel.Settings s = InboxKafkaConnector.settings(config(p));
        assertEquals(10, s.maxGroupSize());
        assertEquals(Duration.ofSeconds(30), s.groupTimeout());
        assertTrue(s.multiRowClaim(), "group.claim defaults to multi-row");
        assertEquals(List.of("orders.confirmed"), s.topics());
        assertEquals("read_committed", s.kafka().getProperty("isolation.level"));
        assertEquals("false", s.kafka().getProperty("enable.auto.commit"));
        assertEquals("billing", s.kafka().getProperty("group.id"));
        assertEquals("inbox-kafka-orders-billing", s.kafka().getProperty("client.id"));
        assertEquals("30000", s.kafka().getProperty("metadata.max.age.ms"),
                "partitions added to a topic are seen within 30 s, not the client's 5 min");
        for (String own : List.of("group.max-size", "group.claim", "fast.ack", "topic", "connector", "channel-name")) {
            assertTrue(!s.kafka().containsKey(own), own + " is the connector's, not the Kafka consumer's");
        }
    }

    @Test
    void groupClaimPerMessageTurnsTheMultiRowClaimOff() {
        Map<String, String> p = channel("orders-billing");
        p.put("group.claim", " per-message ");
        assertTrue(!InboxKafkaConnector.settings(config(p)).multiRowClaim());
    }

    @Test
    void aCopyOfAChannelWithConcurrencyNeedsItsTopicSet() {
        Map<String, String> p = channel("orders-billing$2");
        p.remove("topic");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> InboxKafkaConnector.settings(config(p)));
        assertTrue(e.getMessage().startsWith("INBOX0601E") && e.getMessage().contains(
                "mp.messaging.incoming.orders-billing.topic"), e.getMessage());
        Map<String, String> single = channel("orders-billing");
        single.remove("topic");
        assertEquals(List.of("orders-billing"), InboxKafkaConnector.settings(config(single)).topics(),
                "without concurrency the topic defaults to the channel name, as with liberty-kafka");
    }

    @Test
    void misconfigurationFailsTheDeploymentNamingTheAttribute() {
        Map<String, String> noGroup = channel("a");
        noGroup.remove("group.id");
        Map<String, String> autoCommit = channel("a");
        autoCommit.put("enable.auto.commit", "TRUE");
        Map<String, String> longGroup = channel("a");
        longGroup.put("group.timeout", "PT6M");
        Map<String, String> shortPoll = channel("a");
        shortPoll.put("max.poll.interval.ms", "20000");
        Map<String, String> size = channel("a");
        size.put("group.max-size", "0");
        Map<String, String> timeout = channel("a");
        timeout.put("group.timeout", "30s");
        Map<String, String> claim = channel("a");
        claim.put("group.claim", "batch");
        Map<Map<String, String>, String> cases = Map.of(noGroup, "group.id", autoCommit, "enable.auto.commit",
                longGroup, "max.poll.interval.ms", shortPoll, "max.poll.interval.ms", size, "group.max-size",
                timeout, "group.timeout", claim, "group.claim");
        cases.forEach((p, key) -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> InboxKafkaConnector.settings(config(p)), key);
            assertTrue(e.getMessage().startsWith("INBOX0601E: Channel a") && e.getMessage().contains(key),
                    e.getMessage());
        });
    }

    @Test
    void aShareChannelRunsOneRecordPerTransactionInExplicitModeWithNoClassicDefaults() {
        Map<String, String> p = channel("orders-billing");
        p.put("group.type", "share");
        InboxKafkaChannel.Settings s = InboxKafkaConnector.settings(config(p));
        assertTrue(s.share());
        assertEquals(1, s.maxGroupSize(), "one record per transaction unless group.max-size is set");
        assertTrue(!s.offsetsInDatabase() && !s.multiRowClaim(), "offsets are the broker's; one claim per record");
        assertEquals("explicit", s.kafka().getProperty("share.acknowledgement.mode"));
        assertTrue(!s.kafka().containsKey("isolation.level") && !s.kafka().containsKey("enable.auto.commit"),
                "none of the keys a share consumer refuses is set: " + s.kafka());
        assertEquals(Map.of("share.isolation.level", "read_committed"), s.shareGroupConfig(),
                "the group reads committed records, as a classic channel; where a new group starts is left to it");
        assertTrue(!InboxKafkaConnector.settings(config(channel("orders-billing"))).share(), "classic by default");
        p.put("share.auto.offset.reset", "by_duration:PT1H");
        p.put("share.isolation.level", "read_uncommitted");
        assertEquals(Map.of("share.isolation.level", "read_uncommitted", "share.auto.offset.reset", "by_duration:PT1H"),
                InboxKafkaConnector.settings(config(p)).shareGroupConfig());
    }

    @Test
    void aShareChannelRefusesWhatAShareConsumerDoesNotTakeNamingTheShareGroupsEquivalent() {
        Map<String, String> reset = channel("a");
        reset.put("auto.offset.reset", "earliest");
        Map<String, String> isolation = channel("a");
        isolation.put("isolation.level", "read_committed");
        Map<String, String> autoCommit = channel("a");
        autoCommit.put("enable.auto.commit", "false");
        Map<String, String> grouped = channel("a");
        grouped.put("group.max-size", "0");
        Map<String, String> offsets = channel("a");
        offsets.put("offset-store", "database");
        Map<String, String> implicit = channel("a");
        implicit.put("share.acknowledgement.mode", "implicit");
        Map<String, String> type = channel("a");
        type.put("group.type", "queue");
        Map<String, String> shareReset = channel("a");
        shareReset.put("share.auto.offset.reset", "first");
        Map<Map<String, String>, String> cases = Map.of(reset, "share.auto.offset.reset=earliest",
                isolation, "share.isolation.level", autoCommit, "enable.auto.commit",
                grouped, "group.max-size", offsets, "offset-store", implicit, "needs explicit",
                type, "group.type", shareReset, "share.auto.offset.reset");
        cases.forEach((p, expected) -> {
            if (!p.containsKey("group.type")) {
                p.put("group.type", "share");
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> InboxKafkaConnector.settings(config(p)), expected);
            assertTrue(e.getMessage().startsWith("INBOX0601E: Channel a") && e.getMessage().contains(expected),
                    e.getMessage());
        });
        Map<String, String> one = channel("a");
        one.put("group.type", "share");
        one.put("group.max-size", "1");
        assertEquals(1, InboxKafkaConnector.settings(config(one)).maxGroupSize());
        one.put("group.max-size", "50");
        InboxKafkaChannel.Settings grouped50 = InboxKafkaConnector.settings(config(one));
        assertTrue(grouped50.maxGroupSize() == 50 && grouped50.multiRowClaim(),
                "a share channel runs groups when it says so, claimed with one statement as a classic one's");
    }
}
