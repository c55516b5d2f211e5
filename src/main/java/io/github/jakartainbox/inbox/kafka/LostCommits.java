package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.logging.InboxLog;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Level;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Finds that the database lost commits of this channel's offset rows (a failover to a standby that had not received
 * them) and seeks those partitions back to the rows, so their records are processed again ({@code INBOX0613W}). A
 * write finds it (a row below what the channel knows it wrote); for partitions without new records the rows are
 * compared every {@value #VERIFY_MILLIS} ms.
 */
final class LostCommits {

    /** Reads the database's rows of partitions. */
    @FunctionalInterface
    interface Rows {
        Map<TopicPartition, Long> read(Collection<TopicPartition> partitions) throws SQLException;
    }

    static final long VERIFY_MILLIS = 5000;

    private final String channel;
    private final Supplier<? extends Consumer<?, ?>> consumer;
    private final PartitionOffsets offsets;
    private final Rows rows;
    /** When the database's rows are next compared with what this channel wrote. */
    private long nextVerify;

    LostCommits(String channel, Supplier<? extends Consumer<?, ?>> consumer, PartitionOffsets offsets, Rows rows) {
        this.channel = channel;
        this.consumer = consumer;
        this.offsets = offsets;
        this.rows = rows;
    }

    /**
     * The database holds less than this channel wrote to it for these partitions. Each partition is sought back to the
     * database's offset (or, without a row, to the one it had at assignment). The other partitions whose rows this
     * channel knows are read too: they most likely lost theirs as well, and those without new records would not say so.
     *
     * @param found the partitions a write found lost
     */
    void seekBack(Set<TopicPartition> found) {
        Map<TopicPartition, Long> read = new HashMap<>();
        Set<TopicPartition> lost = new LinkedHashSet<>(found);
        try {
            read.putAll(rows.read(offsets.knownRows()));
            lost.addAll(offsets.lostIn(read));
        } catch (Exception e) {
            // read again at the next write or verification; until then, back to the floor
        }
        PartitionOffsets.SoughtBack back = offsets.startOver(lost, read);
        back.to().forEach((tp, to) -> {
            if (to != null) {
                consumer.get().seek(tp, to);
            }
        });
        KafkaMessage.INBOX0613W.log(channel, back.wrote().toString(), back.to().toString());
    }

    /**
     * Every {@value #VERIFY_MILLIS} ms, compares the database's rows of the assigned partitions with what this channel
     * wrote: a failover that lost commits of a partition that gets no new record would otherwise never be found, since
     * only a write notices it. One SELECT per channel; failures wait for the next round.
     */
    void verify() {
        Set<TopicPartition> knownRows = offsets.knownRows();
        if (knownRows.isEmpty() || System.nanoTime() - nextVerify < 0) {
            return;
        }
        nextVerify = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(VERIFY_MILLIS);
        try {
            Set<TopicPartition> lost = offsets.lostIn(rows.read(knownRows));
            if (!lost.isEmpty()) {
                offsets.newPoll();
                seekBack(lost);
            }
        } catch (Exception e) {
            InboxLog.LOG.log(Level.FINE, "reading the offsets of " + channel + " failed", e);
        }
    }
}
