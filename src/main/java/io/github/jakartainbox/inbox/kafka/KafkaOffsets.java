package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.database.InboxDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * The {@code inbox-kafka} connector's offsets kept in the inbox's database (table {@code inbox_kafka_offset},
 * schema V12, topic id V13): per consumer group and partition, the offset of the next record to read and the Kafka
 * topic id of the topic it belongs to. Written in the transaction of the records they cover, so the database never
 * holds an offset past an effect it lost; read when a partition is assigned. The remedy the {@code KafkaConsumer}
 * Javadoc describes for consumers that write to a database ("Storing Offsets Outside Kafka").
 */
final class KafkaOffsets {

    /**
     * One partition's new offset.
     *
     * @param next    the offset of the next record to read
     * @param known   the value this channel last wrote or read for the partition, {@code null} when it knows none; a
     *                row found below it lost commits
     * @param topicId the Kafka topic id of the partition's topic, written with the row; {@code null} leaves the row's
     */
    record Advance(long next, Long known, String topicId) {

        /** An advance without a topic id (the row keeps the one it has). */
        Advance(long next, Long known) {
            this(next, known, null);
        }
    }

    /**
     * One row.
     *
     * @param next    the offset of the next record to read
     * @param topicId the Kafka topic id it was written for, {@code null} for a row written before schema V13
     */
    record Row(long next, String topicId) {
    }

    private static final String SELECT_SQL = "SELECT topic, kafka_partition, next_offset, topic_id "
            + "FROM inbox_kafka_offset WHERE consumer_group = ?";
    /** Moves the row forward only while it still holds at least what the channel knows it wrote. */
    private static final String ADVANCE_SQL = "UPDATE inbox_kafka_offset SET next_offset = greatest(next_offset, ?), "
            + "topic_id = coalesce(?, topic_id), updated_at = now() "
            + "WHERE consumer_group = ? AND topic = ? AND kafka_partition = ? AND next_offset >= ?";
    private static final String CREATE_SQL = "INSERT INTO inbox_kafka_offset (consumer_group, topic, kafka_partition, "
            + "next_offset, topic_id) VALUES (?, ?, ?, ?, ?) ON CONFLICT (consumer_group, topic, kafka_partition) DO "
            + "UPDATE SET next_offset = greatest(inbox_kafka_offset.next_offset, excluded.next_offset), "
            + "topic_id = coalesce(excluded.topic_id, inbox_kafka_offset.topic_id), updated_at = now()";
    private static final String SET_SQL = "INSERT INTO inbox_kafka_offset (consumer_group, topic, kafka_partition, "
            + "next_offset, topic_id) VALUES (?, ?, ?, ?, ?) ON CONFLICT (consumer_group, topic, kafka_partition) DO "
            + "UPDATE SET next_offset = excluded.next_offset, "
            + "topic_id = coalesce(excluded.topic_id, inbox_kafka_offset.topic_id), updated_at = now()";
    /** Names the topic of a row written before schema V13, once its offset is known to be the topic's. */
    private static final String STAMP_SQL = "UPDATE inbox_kafka_offset SET topic_id = ? "
            + "WHERE consumer_group = ? AND topic = ? AND kafka_partition = ? AND topic_id IS NULL";
    private static final String DELETE_SQL = "DELETE FROM inbox_kafka_offset "
            + "WHERE consumer_group = ? AND topic = ? AND kafka_partition = ?";

    private final InboxDatabase database;

    KafkaOffsets(InboxDatabase database) {
        this.database = database;
    }

    /**
     * @param group      the consumer group
     * @param partitions the partitions asked for
     * @return the offsets the table holds for those of them it knows
     * @throws SQLException when the table cannot be read
     * @throws DatabaseUnavailableException when no connection can be had
     */
    Map<TopicPartition, Row> read(String group, Collection<TopicPartition> partitions) throws SQLException {
        Map<TopicPartition, Row> all = readAll(group);
        all.keySet().retainAll(new HashSet<>(partitions));
        return all;
    }

    /**
     * @param group the consumer group
     * @return every row the table holds for the group
     * @throws SQLException when the table cannot be read
     * @throws DatabaseUnavailableException when no connection can be had
     */
    Map<TopicPartition, Row> readAll(String group) throws SQLException {
        Map<TopicPartition, Row> found = new HashMap<>();
        try (Connection connection = database.connection();
             PreparedStatement select = connection.prepareStatement(SELECT_SQL)) {
            select.setString(1, group);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    found.put(new TopicPartition(rs.getString(1), rs.getInt(2)),
                            new Row(rs.getLong(3), rs.getString(4)));
                }
            }
        }
        return found;
    }

    /**
     * Writes the group's new offsets in the caller's transaction.
     *
     * @param group    the consumer group
     * @param advances the new offset of each partition and what the channel knew of it
     * @return the partitions whose row holds less than the channel knew it wrote, or no row though it wrote one:
     *         the database lost commits (a failover to a standby that had not received them); nothing of theirs
     *         was written, and the caller must roll back
     * @throws SQLException when a statement fails
     * @throws DatabaseUnavailableException when no connection can be had
     */
    Set<TopicPartition> advance(String group, Map<TopicPartition, Advance> advances) throws SQLException {
        if (advances.isEmpty()) {
            return new LinkedHashSet<>();
        }
        try (Connection connection = database.connection()) {
            return advanceOn(connection, group, advances);
        }
    }

    /** {@link #advance} on a connection whose transaction the caller owns (also used by tests). */
    static Set<TopicPartition> advanceOn(Connection connection, String group, Map<TopicPartition, Advance> advances)
            throws SQLException {
        Set<TopicPartition> lost = new LinkedHashSet<>();
        try (PreparedStatement update = connection.prepareStatement(ADVANCE_SQL);
             PreparedStatement create = connection.prepareStatement(CREATE_SQL)) {
            for (Map.Entry<TopicPartition, Advance> e : advances.entrySet()) {
                TopicPartition tp = e.getKey();
                Advance advance = e.getValue();
                if (advance.known() == null) {
                    create.setString(1, group);
                    create.setString(2, tp.topic());
                    create.setInt(3, tp.partition());
                    create.setLong(4, advance.next());
                    create.setString(5, advance.topicId());
                    create.executeUpdate();
                } else {
                    update.setLong(1, advance.next());
                    update.setString(2, advance.topicId());
                    update.setString(3, group);
                    update.setString(4, tp.topic());
                    update.setInt(5, tp.partition());
                    update.setLong(6, advance.known());
                    if (update.executeUpdate() == 0) {
                        lost.add(tp);
                    }
                }
            }
        }
        return lost;
    }

    /**
     * Sets partitions' offsets to the given values, lower or higher, in the caller's transaction if any: for a
     * Kafka offset that another client set (a reset with {@code kafka-consumer-groups}), which the channel follows.
     *
     * @param group   the consumer group
     * @param offsets the offsets to hold
     * @param topicId the Kafka topic id of the partitions' topic, {@code null} to keep the rows'
     * @throws SQLException when a statement fails
     * @throws DatabaseUnavailableException when no connection can be had
     */
    void set(String group, Map<TopicPartition, Long> offsets, String topicId) throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement set = connection.prepareStatement(SET_SQL)) {
            for (Map.Entry<TopicPartition, Long> e : offsets.entrySet()) {
                set.setString(1, group);
                set.setString(2, e.getKey().topic());
                set.setInt(3, e.getKey().partition());
                set.setLong(4, e.getValue());
                set.setString(5, topicId);
                set.executeUpdate();
            }
        }
    }

    /**
     * Deletes partitions' rows, in the caller's transaction if any.
     *
     * @param group      the consumer group
     * @param partitions the partitions whose rows go
     * @throws SQLException when a statement fails
     * @throws DatabaseUnavailableException when no connection can be had
     */
    void delete(String group, Collection<TopicPartition> partitions) throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement delete = connection.prepareStatement(DELETE_SQL)) {
            for (TopicPartition tp : partitions) {
                delete.setString(1, group);
                delete.setString(2, tp.topic());
                delete.setInt(3, tp.partition());
                delete.executeUpdate();
            }
        }
    }

    /**
     * Names the topic of a partition's row written before schema V13 (no topic id), in the caller's transaction if
     * any; a row that has one keeps it.
     *
     * @param group   the consumer group
     * @param tp      the partition
     * @param topicId the Kafka topic id of its topic
     * @throws SQLException when the statement fails
     * @throws DatabaseUnavailableException when no connection can be had
     */
    void stamp(String group, TopicPartition tp, String topicId) throws SQLException {
        try (Connection connection = database.connection();
             PreparedStatement stamp = connection.prepareStatement(STAMP_SQL)) {
            stamp.setString(1, topicId);
            stamp.setString(2, group);
            stamp.setString(3, tp.topic());
            stamp.setInt(4, tp.partition());
            stamp.executeUpdate();
        }
    }
}
