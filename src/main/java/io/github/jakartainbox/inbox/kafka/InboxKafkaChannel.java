package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.claim.DeliveryGroup;
import io.github.jakartainbox.inbox.claim.InboxClaim;
import io.github.jakartainbox.inbox.failure.Failures;
import io.github.jakartainbox.inbox.logging.InboxLog;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.transaction.Status;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * One channel of the {@code inbox-kafka} connector: a {@link KafkaConsumer} polled on a managed thread, whose records
 * are emitted to the channel's method on that same thread, in groups of up to {@code group.max-size} consecutive
 * records inside one JTA transaction (see {@link InboxKafkaConnector}).
 *
 * <p>Offsets: the records of a poll are processed completely before the next poll; then, for every assigned
 * partition, the consumer's position (the offset after the last record it returned, past any transaction marker,
 * aborted batch or compaction gap it skipped) is committed. A batch cut short (a message left unacknowledged, the
 * application stopping) first seeks each partition back to its first record not done, so the position never covers a
 * record that was not processed.
 */
final class InboxKafkaChannel implements Publisher<Message<?>>, Subscription, Runnable {

    /** The channel's settings, read and checked by the connector. */
    record Settings(String channel, Properties kafka, List<String> topics, String groupId, int maxGroupSize,
                    Duration groupTimeout, Duration pollTimeout, Duration lagWarning, boolean multiRowClaim,
                    boolean offsetsInDatabase) {
    }

    private static final long RETRY_MILLIS = 1000;
    private static final long VERIFY_MILLIS = 5000;

    private final Settings settings;
    private final ManagedThreadFactory threads;
    private final UserTransaction transaction;
    private final InboxClaim inbox;
    private final KafkaOffsets offsets;

    private final AtomicLong demand = new AtomicLong();
    private final Object signal = new Object();
    private volatile Subscriber<? super Message<?>> subscriber;
    private volatile boolean running = true;
    private volatile KafkaConsumer<Object, Object> consumer;
    private volatile Thread thread;

    /** The last offset committed per partition (poll thread only). */
    private final Map<TopicPartition, Long> committed = new HashMap<>();
    /** Per partition, the offset after the last record processed, and since when it is ahead of the commit. */
    private final Map<TopicPartition, long[]> processedUpTo = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Long> committedView = new ConcurrentHashMap<>();
    /**
     * Raised whenever partitions' commits start over lower (sought back to the database's offsets) or are forgotten
     * (revoked): the confirmation of an asynchronous commit sent before then arrives later, and recording its higher
     * offset would hold back every commit up to it while Kafka keeps the lower one (poll thread only).
     */
    private long commitEpoch;
    private final Map<TopicPartition, Long> behindSince = new ConcurrentHashMap<>();
    /** Since when each partition's commit has been behind without interruption (for health; never reset by a log). */
    private final Map<TopicPartition, Long> behindFrom = new ConcurrentHashMap<>();
    private boolean commitFailing;
    /** Set when a message of the current poll was left unacknowledged: the rest of the poll is sought back. */
    private boolean halted;

    // offset-store=database only (poll thread only)
    /** Per partition, the database's offset as this channel last wrote or read it; no entry: no row. */
    private final Map<TopicPartition, Long> known = new HashMap<>();
    /**
     * Per partition, where to go back to if its row is lost: the database's offset at assignment, else the first
     * record done since.
     */
    private final Map<TopicPartition, Long> floor = new HashMap<>();
    /** Partitions assigned while the database could not be read: paused until it can. */
    private final Set<TopicPartition> unresolved = new LinkedHashSet<>();
    /** Partitions sought back to the database's offsets during the current poll's processing. */
    private final Set<TopicPartition> rewound = new HashSet<>();
    private long nextResolve;
    /** When the database's rows are next compared with {@link #known} (a partition without new records writes none). */
    private long nextVerify;
    private boolean rowsChecked;
    /** Rows of the group's offsets for partitions this channel's topics do not have (for health). */
    private volatile List<String> rowsNotRead = List.of();

    InboxKafkaChannel(Settings settings, ManagedThreadFactory threads, UserTransaction transaction, InboxClaim inbox,
                      KafkaOffsets offsets) {
        this.settings = settings;
        this.threads = threads;
        this.transaction = transaction;
        this.inbox = inbox;
        this.offsets = offsets;
    }

    Settings settings() {
        return settings;
    }

    // ---------------------------------------------------------------- Reactive Streams

    @Override
    public void subscribe(Subscriber<? super Message<?>> s) {
        synchronized (this) {
            if (subscriber != null) {
                s.onSubscribe(new Subscription() {
                    @Override
                    public void request(long n) {
                    }

                    @Override
                    public void cancel() {
                    }
                });
                s.onError(new IllegalStateException("channel " + settings.channel() + " has one subscriber only"));
                return;
            }
            subscriber = s;
        }
        s.onSubscribe(this);
        Thread t = threads.newThread(this);
        t.setName("inbox-kafka-" + settings.channel());
        thread = t;
        t.start();
    }

    @Override
    public void request(long n) {
        if (n <= 0) {
            return;
        }
        demand.accumulateAndGet(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    @Override
    public void cancel() {
        stop();
    }

    /** Stops polling: the group in flight finishes (or rolls back), done offsets are committed, the consumer closes. */
    void stop() {
        running = false;
        KafkaConsumer<Object, Object> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    /** @param wait how long to wait for the poll thread to end */
    void awaitStopped(Duration wait) {
        Thread t = thread;
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(wait.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ---------------------------------------------------------------- the poll loop

    @Override
    public void run() {
        while (running) {
            try (KafkaConsumer<Object, Object> c = new KafkaConsumer<>(settings.kafka())) {
                consumer = c;
                committed.clear();
                known.clear();
                floor.clear();
                unresolved.clear();
                c.subscribe(settings.topics(), new Rebalance());
                while (running) {
                    if (!unresolved.isEmpty() && System.nanoTime() - nextResolve > 0) {
                        resolve(List.copyOf(unresolved));
                    }
                    ConsumerRecords<Object, Object> records;
                    try {
                        records = c.poll(settings.pollTimeout());
                    } catch (WakeupException e) {
                        continue; // stopping: the loop condition ends it
                    }
                    if (!records.isEmpty()) {
                        process(records);
                    }
                    if (running) {
                        commitProgress(false); // when stopping, the synchronous commit below does it
                        verifyRows();
                    }
                }
                commitProgress(true);
            } catch (Exception | Error e) {
                if (!running) {
                    break;
                }
                InboxMessage.INBOX0606E.log(settings.channel(), Failures.describe(e),
                        String.valueOf(RETRY_MILLIS * 5));
                pause(RETRY_MILLIS * 5);
            } finally {
                consumer = null;
            }
        }
    }

    /** Processes one poll's records in groups; seeks back the partitions of what was left undone. */
    private void process(ConsumerRecords<Object, Object> records) {
        List<ConsumerRecord<Object, Object>> all = new ArrayList<>(records.count());
        records.forEach(all::add);
        int next = 0;
        halted = false;
        rewound.clear();
        while (next < all.size() && running && !halted) {
            int size = Math.min(settings.maxGroupSize(), all.size() - next);
            List<ConsumerRecord<Object, Object>> chunk = all.subList(next, next + size);
            next += size == 1 ? (single(chunk.get(0)) ? 1 : 0) : group(chunk);
        }
        if (next < all.size()) {
            // the first record not done of each partition is where it resumes: nothing after it is committed
            Map<TopicPartition, Long> resume = new LinkedHashMap<>();
            for (ConsumerRecord<Object, Object> r : all.subList(next, all.size())) {
                resume.putIfAbsent(new TopicPartition(r.topic(), r.partition()), r.offset());
            }
            resume.keySet().removeAll(rewound); // already sought further back, to the database's offsets
            resume.forEach(consumer::seek);
        }
    }

    /**
     * Runs records in one JTA transaction. A group stops taking records when half its transaction timeout is used.
     *
     * @return how many of the records are done (committed, or processed one by one after a rollback)
     */
    private int group(List<ConsumerRecord<Object, Object>> records) {
        try {
            inbox.ready(); // tables made or checked outside any transaction
        } catch (RuntimeException e) {
            return oneByOne(records); // the per-message path waits for the database and logs why
        }
        long start = System.nanoTime();
        long cutAfter = settings.groupTimeout().toNanos() / 2;
        List<KafkaRecordMessage> messages = records.stream().map(KafkaRecordMessage::new).toList();
        DeliveryGroup group = new DeliveryGroup(messages.stream().<Message<?>>map(KafkaRecordMessage::message)
                .toList(), settings.multiRowClaim());
        int emitted = 0;
        try {
            transaction.setTransactionTimeout((int) Math.max(1, settings.groupTimeout().toSeconds()));
            transaction.begin();
        } catch (Exception e) {
            return oneByOne(records);
        }
        group.enter();
        try {
            for (KafkaRecordMessage message : messages) {
                if (!running || (emitted > 0 && System.nanoTime() - start > cutAfter)) {
                    break;
                }
                group.at(emitted);
                if (!emit(message)) {
                    halted = true;
                    break;
                }
                emitted++;
                Throwable nack = awaitSettled(message);
                if (nack != null) {
                    group.failed(nack);
                }
                if (group.failure() != null) {
                    break;
                }
            }
        } catch (RuntimeException | Error e) {
            group.failed(e);
        } finally {
            group.leave();
        }
        if (group.failure() == null && emitted > 0) {
            try {
                if (transaction.getStatus() == Status.STATUS_MARKED_ROLLBACK) {
                    throw new IllegalStateException("the transaction was marked for rollback");
                }
                group.beforeCommit(emitted); // a group cut short gives back the claims of what it did not deliver
                Map<TopicPartition, KafkaOffsets.Advance> advances = advances(records.subList(0, emitted));
                Set<TopicPartition> lost = offsets.advance(settings.groupId(), advances);
                if (!lost.isEmpty()) {
                    rollback();
                    lostCommits(lost);
                    halted = true;
                    return 0;
                }
                transaction.commit();
                advances.forEach((tp, a) -> known.put(tp, a.next()));
                done(records.subList(0, emitted));
                return emitted;
            } catch (Exception e) {
                group.failed(e);
                // a statement before the commit failed (the database gone): the transaction is still the thread's,
                // and the one-by-one retries below would run inside it
                rollback();
            }
        } else {
            rollback();
            if (emitted == 0) {
                return 0;
            }
        }
        InboxMessage.INBOX0603W.log(settings.channel(), String.valueOf(emitted),
                Failures.describe(group.failure()));
        return oneByOne(records.subList(0, emitted));
    }

    private void rollback() {
        try {
            if (transaction.getStatus() != Status.STATUS_NO_TRANSACTION) {
                transaction.rollback();
            }
        } catch (Exception e) {
            InboxLog.LOG.log(java.util.logging.Level.FINE, "rollback of a group failed", e);
        }
    }

    /** @return how many of the records were processed, one by one, before one was left unacknowledged */
    private int oneByOne(List<ConsumerRecord<Object, Object>> records) {
        int done = 0;
        for (ConsumerRecord<Object, Object> record : records) {
            if (!running || !single(record)) {
                return done;
            }
            done++;
        }
        return done;
    }

    /** The per-message path: no transaction here; the inbox begins one per attempt. */
    private boolean single(ConsumerRecord<Object, Object> record) {
        KafkaRecordMessage message = new KafkaRecordMessage(record);
        if (!emit(message)) {
            halted = true;
            return false;
        }
        Throwable nack = awaitSettled(message);
        if (nack == null) {
            done(List.of(record));
            return true;
        }
        halted = true;
        if (running) {
            InboxMessage.INBOX0604E.log(settings.channel(),
                    record.topic() + "-" + record.partition() + "@" + record.offset(), Failures.describe(nack),
                    String.valueOf(RETRY_MILLIS));
            pause(RETRY_MILLIS);
        }
        return false;
    }

    /** Hands the message to the channel's method once there is demand. @return false when stopping first */
    private boolean emit(KafkaRecordMessage message) {
        while (demand.get() <= 0) {
            if (!running) {
                return false;
            }
            synchronized (signal) {
                if (demand.get() <= 0 && running) {
                    try {
                        signal.wait(50);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                }
            }
        }
        demand.accumulateAndGet(1, (a, b) -> a == Long.MAX_VALUE ? a : a - b);
        KafkaRecordMessage.DELIVERING.set(message); // the record, for a method that takes only the payload
        try {
            subscriber.onNext(message.message());
        } catch (RuntimeException e) {
            message.settled().complete(e);
        } finally {
            KafkaRecordMessage.DELIVERING.remove();
        }
        return true;
    }

    /** @return {@code null} once acknowledged, the reason once nacked; a failure when stopping unsettled */
    private Throwable awaitSettled(KafkaRecordMessage message) {
        while (true) {
            try {
                return message.settled().get(running ? 1000 : settings.groupTimeout().toMillis(),
                        TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                if (!running) {
                    return new IllegalStateException("the application stopped before the message was acknowledged");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return e;
            } catch (java.util.concurrent.ExecutionException e) {
                return e.getCause();
            }
        }
    }

    private void done(List<ConsumerRecord<Object, Object>> records) {
        long now = System.nanoTime();
        for (ConsumerRecord<Object, Object> r : records) {
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            if (settings.offsetsInDatabase()) {
                floor.putIfAbsent(tp, r.offset()); // no row at assignment: the first record done is where to go back
            }
            processedUpTo.compute(tp, (k, v) -> v == null || v[0] < r.offset() + 1
                    ? new long[] {r.offset() + 1, now} : v);
        }
    }

    // ---------------------------------------------------------------- offsets

    /** Commits each assigned partition's position when it moved past the last commit. */
    private void commitProgress(boolean sync) {
        KafkaConsumer<Object, Object> c = consumer;
        Map<TopicPartition, OffsetAndMetadata> offsets = Map.of();
        for (int tries = 0; tries < 2; tries++) {
            try {
                offsets = committable(c.assignment(), Duration.ofSeconds(10));
                break;
            } catch (WakeupException e) {
                // the stop's wakeup: read the positions again
            } catch (RuntimeException e) {
                return; // a position not known yet (a partition just assigned): the next round commits it
            }
        }
        if (offsets.isEmpty()) {
            checkLag();
            return;
        }
        if (sync) {
            commitNow(offsets);
        } else {
            Map<TopicPartition, OffsetAndMetadata> sent = offsets;
            long epoch = commitEpoch;
            c.commitAsync(sent, (done, failure) -> {
                if (failure == null) {
                    if (epoch == commitEpoch) {
                        committedNow(done);
                    }
                } else {
                    commitFailed(sent, failure);
                }
            });
        }
        checkLag();
    }

    private void commitNow(Map<TopicPartition, OffsetAndMetadata> offsets) {
        try {
            consumer.commitSync(offsets, Duration.ofSeconds(10));
            committedNow(offsets);
        } catch (RuntimeException e) {
            commitFailed(offsets, e);
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
     * @throws RuntimeException from {@link KafkaConsumer#position} when a position is not known yet
     */
    private Map<TopicPartition, OffsetAndMetadata> committable(Collection<TopicPartition> partitions,
                                                               Duration timeout) {
        Map<TopicPartition, Long> positions = new HashMap<>();
        for (TopicPartition tp : partitions) {
            if (!unresolved.contains(tp)) { // not yet decided: committing it would make another client's offset ours
                positions.put(tp, consumer.position(tp, timeout));
            }
        }
        String metadata = OffsetChoice.KAFKA_MODE;
        if (settings.offsetsInDatabase()) {
            metadata = OffsetChoice.DATABASE_MODE;
            writeRows(positions);
            positions.replaceAll((tp, position) -> {
                Long row = known.get(tp);
                return row == null ? -1 : Math.min(position, row);
            });
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (Map.Entry<TopicPartition, Long> e : positions.entrySet()) {
            Long last = committed.get(e.getKey());
            if (e.getValue() >= 0 && (last == null || e.getValue() > last)) {
                offsets.put(e.getKey(), new OffsetAndMetadata(e.getValue(), metadata));
            }
        }
        return offsets;
    }

    /**
     * Brings the database's rows up to the positions where they are behind (records processed one by one, a
     * transaction marker skipped, a partition just assigned), in a transaction of their own. Rows found lost are
     * sought back; a failure leaves them as they are (Kafka then gets no offset beyond them).
     */
    private void writeRows(Map<TopicPartition, Long> positions) {
        Map<TopicPartition, KafkaOffsets.Advance> advances = new HashMap<>();
        positions.forEach((tp, position) -> {
            Long row = known.get(tp);
            if (row == null || position > row) {
                advances.put(tp, new KafkaOffsets.Advance(position, row));
            }
        });
        if (advances.isEmpty()) {
            return;
        }
        try {
            transaction.begin();
            Set<TopicPartition> lost = offsets.advance(settings.groupId(), advances);
            if (!lost.isEmpty()) {
                rollback();
                lostCommits(lost);
                lost.forEach(positions::remove);
                return;
            }
            transaction.commit();
            advances.forEach((tp, a) -> known.put(tp, a.next()));
        } catch (Exception e) {
            rollback();
            InboxLog.LOG.log(java.util.logging.Level.FINE, "writing the offsets of " + settings.channel()
                    + " to the database failed; Kafka's commit waits for them", e);
        }
    }

    /** Per partition of the records, the offset after its last one, and the database's row as known. */
    private Map<TopicPartition, KafkaOffsets.Advance> advances(List<ConsumerRecord<Object, Object>> records) {
        if (!settings.offsetsInDatabase()) {
            return Map.of();
        }
        Map<TopicPartition, Long> next = new HashMap<>();
        for (ConsumerRecord<Object, Object> r : records) {
            next.merge(new TopicPartition(r.topic(), r.partition()), r.offset() + 1, Math::max);
        }
        Map<TopicPartition, KafkaOffsets.Advance> advances = new HashMap<>();
        next.forEach((tp, n) -> advances.put(tp, new KafkaOffsets.Advance(n, known.get(tp))));
        return advances;
    }

    /**
     * The database holds less than this channel wrote to it for these partitions: it lost commits (a failover to a
     * standby that had not received them). Each partition is sought back to the database's offset (or, without a
     * row, to the one it had at assignment), and those records are processed again.
     */
    private void lostCommits(Set<TopicPartition> found) {
        Map<TopicPartition, Long> rows = new HashMap<>();
        Set<TopicPartition> lost = new LinkedHashSet<>(found);
        try {
            // the other assigned partitions lost theirs too, most likely: those without new records would not say so
            rows.putAll(offsets.read(settings.groupId(), known.keySet()));
            known.forEach((tp, wrote) -> {
                Long row = rows.get(tp);
                if (row == null || row < wrote) {
                    lost.add(tp);
                }
            });
        } catch (Exception e) {
            // read again at the next write or verification; until then, back to the floor
        }
        Map<TopicPartition, Long> to = new LinkedHashMap<>();
        Map<TopicPartition, Long> wrote = new LinkedHashMap<>();
        commitEpoch++;
        for (TopicPartition tp : lost) {
            Long row = rows.get(tp);
            Long back = row != null ? row : floor.get(tp);
            wrote.put(tp, known.get(tp));
            if (row != null) {
                known.put(tp, row);
            } else {
                known.remove(tp);
            }
            committed.remove(tp); // Kafka's offset goes back with it
            committedView.remove(tp);
            processedUpTo.remove(tp);
            if (back != null) {
                consumer.seek(tp, back);
                to.put(tp, back);
            } else {
                to.put(tp, null);
            }
            rewound.add(tp);
        }
        InboxMessage.INBOX0613W.log(settings.channel(), wrote.toString(), to.toString());
    }

    /**
     * Every {@value #VERIFY_MILLIS} ms, compares the database's rows of the assigned partitions with what this channel
     * wrote: a failover that lost commits of a partition that gets no new record would otherwise never be found, since
     * only a write notices it. One SELECT per channel; failures wait for the next round.
     */
    private void verifyRows() {
        if (!settings.offsetsInDatabase() || known.isEmpty() || System.nanoTime() - nextVerify < 0) {
            return;
        }
        nextVerify = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(VERIFY_MILLIS);
        try {
            Map<TopicPartition, Long> rows = offsets.read(settings.groupId(), known.keySet());
            Set<TopicPartition> lost = new LinkedHashSet<>();
            known.forEach((tp, wrote) -> {
                Long row = rows.get(tp);
                if (row == null || row < wrote) {
                    lost.add(tp);
                }
            });
            if (!lost.isEmpty()) {
                rewound.clear();
                lostCommits(lost);
            }
        } catch (Exception e) {
            InboxLog.LOG.log(java.util.logging.Level.FINE, "reading the offsets of " + settings.channel() + " failed", e);
        }
    }

    /**
     * Decides where assigned partitions resume ({@link OffsetChoice}) and seeks them there; partitions whose
     * offsets cannot be read (the database, or Kafka, not answering) are paused and tried again a second later.
     */
    private void resolve(Collection<TopicPartition> partitions) {
        KafkaConsumer<Object, Object> c = consumer;
        try {
            Map<TopicPartition, Long> rows = offsets.read(settings.groupId(), partitions);
            Map<TopicPartition, OffsetChoice> choices = OffsetChoice.resume(c, partitions, rows,
                    Duration.ofSeconds(10));
            for (Map.Entry<TopicPartition, OffsetChoice> e : choices.entrySet()) {
                TopicPartition tp = e.getKey();
                OffsetChoice choice = e.getValue();
                if (choice.dropRow()) {
                    offsets.delete(settings.groupId(), List.of(tp));
                }
                if (choice.rowSetTo() != null) {
                    offsets.set(settings.groupId(), Map.of(tp, choice.rowSetTo()));
                }
                settle(tp, choice, rows.get(tp));
            }
            if (!rowsChecked) {
                rowsChecked = true;
                checkRows();
            }
        } catch (WakeupException e) {
            throw e;
        } catch (Exception e) {
            Set<TopicPartition> newly = new LinkedHashSet<>(partitions);
            newly.removeAll(unresolved);
            if (!newly.isEmpty()) {
                InboxMessage.INBOX0616W.log(settings.channel(), newly.toString(), Failures.describe(e));
            }
            unresolved.addAll(partitions);
            c.pause(partitions);
            nextResolve = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS);
        }
    }

    /** Records where a partition resumed, resumes it if it was paused, and says why when it matters. */
    private void settle(TopicPartition tp, OffsetChoice choice, Long row) {
        if (choice.known() != null) {
            known.put(tp, choice.known());
        } else {
            known.remove(tp);
        }
        floor.put(tp, choice.known());
        if (unresolved.remove(tp)) {
            consumer.resume(List.of(tp));
        }
        switch (choice.reason()) {
            case DATABASE_BEHIND -> InboxMessage.INBOX0612W.log(settings.channel(), tp.toString(),
                    String.valueOf(row), String.valueOf(choice.kafkaOffset()));
            case KAFKA_SET_ELSEWHERE, DATABASE_BEYOND_END -> InboxMessage.INBOX0614I.log(settings.channel(),
                    tp.toString(), String.valueOf(row), String.valueOf(choice.kafkaOffset()),
                    choice.reason() == OffsetChoice.Reason.DATABASE_BEYOND_END ? "the database's lies beyond the "
                            + "partition's end: the topic was made again" : "Kafka's was set by another client, "
                            + "another offset-store or an earlier version");
            default -> InboxLog.LOG.fine(() -> "Channel " + settings.channel() + ": " + tp + " resumes "
                    + (choice.seekTo() == null ? "at Kafka's committed offset" : "at " + choice.seekTo())
                    + " (" + choice.reason() + ", database " + row + ")");
        }
    }

    /** Finds rows of the group's offsets for partitions that none of the channel's topics has (for health). */
    private void checkRows() throws java.sql.SQLException {
        List<String> notRead = new ArrayList<>();
        for (TopicPartition tp : offsets.readAll(settings.groupId()).keySet()) {
            if (!settings.topics().contains(tp.topic())) {
                notRead.add(tp.toString());
                continue;
            }
            List<PartitionInfo> infos = consumer.partitionsFor(tp.topic(),
                    Duration.ofSeconds(10));
            if (infos == null || tp.partition() >= infos.size()) {
                notRead.add(tp.toString());
            }
        }
        notRead.sort(null);
        rowsNotRead = List.copyOf(notRead);
        if (!notRead.isEmpty()) {
            InboxMessage.INBOX0615W.log(settings.channel(), settings.groupId(), notRead.toString(),
                    settings.topics().toString());
        }
    }

    /** @return rows of the group's database offsets for partitions the channel's topics do not have */
    List<String> rowsNotRead() {
        return rowsNotRead;
    }

    private void committedNow(Map<TopicPartition, OffsetAndMetadata> offsets) {
        commitFailing = false;
        offsets.forEach((tp, o) -> {
            committed.merge(tp, o.offset(), Math::max);
            committedView.merge(tp, o.offset(), Math::max);
        });
    }

    private void commitFailed(Map<TopicPartition, OffsetAndMetadata> offsets, Throwable failure) {
        if (!running && failure instanceof WakeupException) {
            return; // the stop's wakeup met an asynchronous commit: the synchronous commit at the stop follows
        }
        if (!commitFailing) {
            InboxMessage.INBOX0605W.log(settings.channel(), offsets.toString(), Failures.describe(failure));
        }
        commitFailing = true;
    }

    /** Logs a partition whose commit stays behind its processed records for longer than {@code lagWarning}. */
    private void checkLag() {
        long now = System.nanoTime();
        processedUpTo.forEach((tp, processed) -> {
            Long commit = committedView.get(tp);
            if (commit != null && commit >= processed[0]) {
                behindSince.remove(tp);
                behindFrom.remove(tp);
                return;
            }
            behindFrom.putIfAbsent(tp, now);
            long since = behindSince.computeIfAbsent(tp, k -> now);
            if (now - since > settings.lagWarning().toNanos()) {
                InboxMessage.INBOX0608W.log(settings.channel(), tp.toString(),
                        Duration.ofNanos(now - since).withNanos(0).toString(), String.valueOf(commit),
                        String.valueOf(processed[0]));
                behindSince.put(tp, now); // once per lagWarning period
            }
        });
    }

    /**
     * @return per partition of this channel: the time in nanoseconds ({@link System#nanoTime()}) since which its
     *         committed offset has been behind the records processed; empty when every commit is up to date
     */
    Map<TopicPartition, Long> behindSince() {
        return Map.copyOf(behindFrom);
    }

    /** Commits what is done for revoked partitions, then forgets them: no acknowledgement of theirs stays pending. */
    private final class Rebalance implements ConsumerRebalanceListener {

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            // called inside poll(): every record returned before is done or was sought back, so positions are safe
            Map<TopicPartition, OffsetAndMetadata> offsets = Map.of();
            try {
                offsets = committable(partitions, Duration.ofSeconds(5));
            } catch (RuntimeException e) {
                // no position: nothing of these partitions was returned since the last commit
            }
            if (!offsets.isEmpty()) {
                commitNow(offsets);
            }
            InboxMessage.INBOX0607I.log(settings.channel(), partitions.toString(), offsets.toString());
            forget(partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            forget(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (settings.offsetsInDatabase() && !partitions.isEmpty()) {
                resolve(partitions);
            }
        }

        private void forget(Collection<TopicPartition> partitions) {
            commitEpoch++;
            for (TopicPartition tp : partitions) {
                committed.remove(tp);
                committedView.remove(tp);
                processedUpTo.remove(tp);
                behindSince.remove(tp);
                behindFrom.remove(tp);
                known.remove(tp);
                floor.remove(tp);
                unresolved.remove(tp);
            }
        }
    }

    private void pause(long millis) {
        long end = System.currentTimeMillis() + millis;
        synchronized (signal) {
            for (long left = millis; left > 0 && running; left = end - System.currentTimeMillis()) {
                try {
                    signal.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
