package io.github.jakartainbox.inbox;

import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.transaction.Status;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
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
                    Duration groupTimeout, Duration pollTimeout, Duration lagWarning, boolean multiRowClaim) {
    }

    private static final long RETRY_MILLIS = 1000;

    private final Settings settings;
    private final ManagedThreadFactory threads;
    private final UserTransaction transaction;
    private final InboxClaim inbox;

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
    private final Map<TopicPartition, Long> behindSince = new ConcurrentHashMap<>();
    /** Since when each partition's commit has been behind without interruption (for health; never reset by a log). */
    private final Map<TopicPartition, Long> behindFrom = new ConcurrentHashMap<>();
    private boolean commitFailing;
    /** Set when a message of the current poll was left unacknowledged: the rest of the poll is sought back. */
    private boolean halted;

    final LongAdder groupsCommitted = new LongAdder();
    final LongAdder groupsRolledBack = new LongAdder();
    final LongAdder recordsProcessed = new LongAdder();

    InboxKafkaChannel(Settings settings, ManagedThreadFactory threads, UserTransaction transaction, InboxClaim inbox) {
        this.settings = settings;
        this.threads = threads;
        this.transaction = transaction;
        this.inbox = inbox;
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
                c.subscribe(settings.topics(), new Rebalance());
                while (running) {
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
                    }
                }
                commitProgress(true);
            } catch (Exception | Error e) {
                if (!running) {
                    break;
                }
                InboxLog.log(InboxMessage.INBOX0606E, settings.channel(), Failures.describe(e),
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
                transaction.commit();
                groupsCommitted.increment();
                recordsProcessed.add(emitted);
                done(records.subList(0, emitted));
                return emitted;
            } catch (Exception e) {
                group.failed(e);
            }
        } else {
            rollback();
            if (emitted == 0) {
                return 0;
            }
        }
        groupsRolledBack.increment();
        InboxLog.log(InboxMessage.INBOX0603W, settings.channel(), String.valueOf(emitted),
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
            recordsProcessed.increment();
            done(List.of(record));
            return true;
        }
        halted = true;
        if (running) {
            InboxLog.log(InboxMessage.INBOX0604E, settings.channel(),
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
            processedUpTo.compute(tp, (k, v) -> v == null || v[0] < r.offset() + 1
                    ? new long[] {r.offset() + 1, now} : v);
        }
    }

    // ---------------------------------------------------------------- offsets

    /** Commits each assigned partition's position when it moved past the last commit. */
    private void commitProgress(boolean sync) {
        KafkaConsumer<Object, Object> c = consumer;
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (int tries = 0; tries < 2; tries++) {
            try {
                offsets.clear();
                for (TopicPartition tp : c.assignment()) {
                    long position = c.position(tp, Duration.ofSeconds(10));
                    Long last = committed.get(tp);
                    if (last == null || position > last) {
                        offsets.put(tp, new OffsetAndMetadata(position));
                    }
                }
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
            try {
                c.commitSync(offsets, Duration.ofSeconds(10));
                committedNow(offsets);
            } catch (RuntimeException e) {
                commitFailed(offsets, e);
            }
        } else {
            c.commitAsync(offsets, (done, failure) -> {
                if (failure == null) {
                    committedNow(done);
                } else {
                    commitFailed(offsets, failure);
                }
            });
        }
        checkLag();
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
            InboxLog.log(InboxMessage.INBOX0605W, settings.channel(), offsets.toString(), Failures.describe(failure));
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
                InboxLog.log(InboxMessage.INBOX0608W, settings.channel(), tp.toString(),
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

    /** @return per partition, the last offset committed by this channel */
    Map<TopicPartition, Long> committedOffsets() {
        return Map.copyOf(committedView);
    }

    /** Commits what is done for revoked partitions, then forgets them: no acknowledgement of theirs stays pending. */
    private final class Rebalance implements ConsumerRebalanceListener {

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            // called inside poll(): every record returned before is done or was sought back, so positions are safe
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            for (TopicPartition tp : partitions) {
                try {
                    long position = consumer.position(tp, Duration.ofSeconds(5));
                    Long last = committed.get(tp);
                    if (last == null || position > last) {
                        offsets.put(tp, new OffsetAndMetadata(position));
                    }
                } catch (RuntimeException e) {
                    // no position: nothing of this partition was returned since the last commit
                }
            }
            if (!offsets.isEmpty()) {
                try {
                    consumer.commitSync(offsets, Duration.ofSeconds(10));
                    committedNow(offsets);
                } catch (RuntimeException e) {
                    commitFailed(offsets, e);
                }
            }
            InboxLog.log(InboxMessage.INBOX0607I, settings.channel(), partitions.toString(), offsets.toString());
            forget(partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            forget(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        }

        private void forget(Collection<TopicPartition> partitions) {
            for (TopicPartition tp : partitions) {
                committed.remove(tp);
                committedView.remove(tp);
                processedUpTo.remove(tp);
                behindSince.remove(tp);
                behindFrom.remove(tp);
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
