package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.failure.Failures;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Commits a channel's offsets to Kafka: after each poll (asynchronously), at a stop and for revoked partitions
 * (synchronously). What is committed is each assigned partition's position once it moved past the last confirmed
 * commit ({@link PartitionOffsets#toCommit}); with {@code offset-store=database} the rows are brought up to the
 * positions first ({@link OffsetRows#bringUp}). Logs a commit that fails ({@code INBOX0605W}, once until one succeeds)
 * and a partition whose commit stays behind ({@code INBOX0608W}).
 */
final class KafkaCommits {

    private final InboxKafkaChannel.Settings settings;
    private final Supplier<? extends Consumer<?, ?>> consumer;
    private final PartitionOffsets offsets;
    /** {@code null} unless offsets are kept in the database. */
    private final OffsetRows rows;
    private final BooleanSupplier running;
    private boolean failing;

    KafkaCommits(InboxKafkaChannel.Settings settings, Supplier<? extends Consumer<?, ?>> consumer,
                 PartitionOffsets offsets, OffsetRows rows, BooleanSupplier running) {
        this.settings = settings;
        this.consumer = consumer;
        this.offsets = offsets;
        this.rows = rows;
        this.running = running;
    }

    /**
     * Commits each assigned partition's position when it moved past the last commit.
     *
     * @param sync whether to wait for Kafka's answer (at a stop)
     */
    void progress(boolean sync) {
        Consumer<?, ?> c = consumer.get();
        Map<TopicPartition, OffsetAndMetadata> toCommit = Map.of();
        for (int tries = 0; tries < 2; tries++) {
            try {
                toCommit = committable(c.assignment(), Duration.ofSeconds(10));
                break;
            } catch (WakeupException e) {
                // the stop's wakeup: read the positions again
            } catch (RuntimeException e) {
                return; // a position not known yet (a partition just assigned): the next round commits it
            }
        }
        if (toCommit.isEmpty()) {
            checkLag();
            return;
        }
        if (sync) {
            commitNow(toCommit);
        } else {
            Map<TopicPartition, OffsetAndMetadata> sent = toCommit;
            long epoch = offsets.epoch();
            c.commitAsync(sent, (done, failure) -> {
                if (failure == null) {
                    if (offsets.confirmed(done, epoch)) {
                        failing = false;
                    }
                } else {
                    failed(sent, failure);
                }
            });
        }
        checkLag();
    }

    /**
     * Commits what is done of revoked partitions (inside a poll: every record returned before is done or was sought
     * back, so positions are safe), then forgets them.
     */
    void revoked(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> toCommit = Map.of();
        try {
            toCommit = committable(partitions, Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            // no position: nothing of these partitions was returned since the last commit
        }
        if (!toCommit.isEmpty()) { // nothing to say otherwise: an empty map was logged at every stop
            commitNow(toCommit);
            KafkaMessage.INBOX0607I.log(settings.channel(), partitions.toString(), toCommit.toString());
        }
        offsets.forget(partitions);
    }

    private void commitNow(Map<TopicPartition, OffsetAndMetadata> toCommit) {
        try {
            consumer.get().commitSync(toCommit, Duration.ofSeconds(10));
            failing = false;
            offsets.confirmed(toCommit);
        } catch (RuntimeException e) {
            failed(toCommit, e);
        }
    }

    /**
     * The offsets to commit to Kafka for partitions: each position that moved past the last commit. With
     * {@code offset-store=database} the database's rows are brought up to the positions first (in a transaction of
     * their own: the records' effects are committed already), and Kafka gets no offset beyond its row.
     *
     * @param partitions the partitions, assigned to this consumer
     * @param timeout    how long to wait for a position
     * @return the offsets, with this mode's metadata
     * @throws RuntimeException from {@link Consumer#position} when a position is not known yet
     */
    private Map<TopicPartition, OffsetAndMetadata> committable(Collection<TopicPartition> partitions,
                                                               Duration timeout) {
        Map<TopicPartition, Long> positions = new HashMap<>();
        for (TopicPartition tp : partitions) {
            if (!offsets.isUnresolved(tp)) { // not yet decided: committing it would make another client's ours
                positions.put(tp, consumer.get().position(tp, timeout));
            }
        }
        if (settings.offsetsInDatabase()) {
            rows.bringUp(positions);
        }
        return offsets.toCommit(positions, settings.offsetsInDatabase());
    }

    private void failed(Map<TopicPartition, OffsetAndMetadata> toCommit, Throwable failure) {
        if (!running.getAsBoolean() && failure instanceof WakeupException) {
            return; // the stop's wakeup met an asynchronous commit: the synchronous commit at the stop follows
        }
        if (!failing) {
            KafkaMessage.INBOX0605W.log(settings.channel(), toCommit.toString(), Failures.describe(failure));
        }
        failing = true;
    }

    /** Logs a partition whose commit stays behind its processed records for longer than {@code lagWarning}. */
    private void checkLag() {
        for (PartitionOffsets.Lag lag : offsets.lagging(System.nanoTime(), settings.lagWarning())) {
            KafkaMessage.INBOX0608W.log(settings.channel(), lag.partition().toString(), lag.behindFor().toString(),
                    String.valueOf(lag.committed()), String.valueOf(lag.processed()));
        }
    }
}
