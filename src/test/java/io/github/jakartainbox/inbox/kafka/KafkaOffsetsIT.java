package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.database.InboxDatabase;
import io.github.jakartainbox.testing.TestDatabases;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The offsets table's statements ({@link KafkaOffsets#advanceOn}) on a real PostgreSQL (database
 * kafka_offsets_it, made afresh): a row is created, moves forward, never back, and a row that holds less than the
 * channel wrote (commits a failover lost) or is gone is reported, with nothing written for it.
 */
class KafkaOffsetsIT {

    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);
    private static PGSimpleDataSource db;

    @BeforeAll
    static void inbox() throws SQLException {
        db = TestDatabases.fresh("kafka_offsets_it");
        InboxDatabase.flyway(db, false).migrate();
    }

    private static Set<TopicPartition> advance(String group, Map<TopicPartition, KafkaOffsets.Advance> advances)
            throws SQLException {
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            Set<TopicPartition> lost = KafkaOffsets.advanceOn(c, group, advances);
            c.commit();
            return lost;
        }
    }

    private static Long row(String group, TopicPartition tp) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT next_offset FROM "
                + "inbox_kafka_offset WHERE consumer_group = ? AND topic = ? AND kafka_partition = ?")) {
            ps.setString(1, group);
            ps.setString(2, tp.topic());
            ps.setInt(3, tp.partition());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : null;
            }
        }
    }

    private static void execute(String sql) throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Test
    void rowsAreCreatedAndMoveForwardOnly() throws SQLException {
        assertEquals(Set.of(), advance("g1", Map.of(P0, new KafkaOffsets.Advance(100, null),
                P1, new KafkaOffsets.Advance(7, null))));
        assertEquals(Set.of(), advance("g1", Map.of(P0, new KafkaOffsets.Advance(250, 100L))));
        // a consumer that lost the partition and still commits an older group does not move the row back
        assertEquals(Set.of(), advance("g1", Map.of(P0, new KafkaOffsets.Advance(180, 100L))));
        assertAll(() -> assertEquals(250L, row("g1", P0)), () -> assertEquals(7L, row("g1", P1)),
                () -> assertEquals(null, row("g2", P0), "groups are apart"));
    }

    @Test
    void aRowBehindWhatTheChannelWroteIsReportedAndLeftAlone() throws SQLException {
        advance("g3", Map.of(P0, new KafkaOffsets.Advance(500, null), P1, new KafkaOffsets.Advance(40, null)));
        execute("UPDATE inbox_kafka_offset SET next_offset = 300 WHERE consumer_group = 'g3' AND kafka_partition = 0");
        Set<TopicPartition> lost = advance("g3", Map.of(P0, new KafkaOffsets.Advance(600, 500L),
                P1, new KafkaOffsets.Advance(60, 40L)));
        assertAll(() -> assertEquals(Set.of(P0), lost),
                () -> assertEquals(300L, row("g3", P0), "nothing written over the database's own offset"),
                () -> assertEquals(60L, row("g3", P1)));
    }

    @Test
    void aRowThatIsGoneIsReported() throws SQLException {
        advance("g4", Map.of(P0, new KafkaOffsets.Advance(10, null)));
        execute("DELETE FROM inbox_kafka_offset WHERE consumer_group = 'g4'");
        assertEquals(Set.of(P0), advance("g4", Map.of(P0, new KafkaOffsets.Advance(20, 10L))));
    }

    @Test
    void rowsCarryTheTopicIdTheyWereWrittenFor() throws SQLException {
        advance("g6", Map.of(P0, new KafkaOffsets.Advance(10, null, "id-1"), P1, new KafkaOffsets.Advance(5, null)));
        advance("g6", Map.of(P0, new KafkaOffsets.Advance(20, 10L, null)));
        assertAll(() -> assertEquals("id-1", topicId("g6", P0), "an advance without an id keeps the row's"),
                () -> assertEquals(20L, row("g6", P0)),
                () -> assertEquals(null, topicId("g6", P1), "no id known: none written"));
        advance("g6", Map.of(P1, new KafkaOffsets.Advance(9, 5L, "id-2")));
        assertEquals("id-2", topicId("g6", P1), "an advance names the row's topic");
    }

    @Test
    void aRowWrittenBeforeTopicIdsIsReadWithoutOne() throws SQLException {
        execute("INSERT INTO inbox_kafka_offset (consumer_group, topic, kafka_partition, next_offset) "
                + "VALUES ('g7', 'orders', 0, 514)");
        assertAll(() -> assertEquals(514L, row("g7", P0)), () -> assertEquals(null, topicId("g7", P0)));
    }

    private static String topicId(String group, TopicPartition tp) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT topic_id FROM "
                + "inbox_kafka_offset WHERE consumer_group = ? AND topic = ? AND kafka_partition = ?")) {
            ps.setString(1, group);
            ps.setString(2, tp.topic());
            ps.setInt(3, tp.partition());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    @Test
    void negativeOffsetsAreRefusedByTheTable() {
        assertThrows(SQLException.class, () -> advance("g5", Map.of(P0, new KafkaOffsets.Advance(-1, null))));
    }
}
