package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.claim.InboxClaim;
import io.github.jakartainbox.inbox.incoming.RedriveAim;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.common.TopicPartition;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * One channel of the {@code inbox-kafka} connector, as the channel's method sees it: a Reactive Streams publisher
 * with one subscriber, whose demand lets the poll thread ({@link PollLoop}) hand it the next record and wait until
 * the record is acknowledged or nacked; and the channel's start and stop.
 *
 * <p>The rest is in parts: {@link PollLoop} polls and seeks back what a halted poll left undone,
 * {@link GroupTransaction} runs records in groups inside one JTA transaction (one by one after a rollback),
 * {@link PartitionOffsets} keeps each partition's offsets, {@link KafkaCommits} decides and sends Kafka's commits,
 * {@link OffsetRows} and {@link LostCommits} keep the offsets in the database and seek back what a failover lost.
 */
final class InboxKafkaChannel implements Publisher<Message<?>>, Subscription {

    /** The channel's settings, read and checked by the connector. */
    record Settings(String channel, Properties kafka, List<String> topics, String groupId, int maxGroupSize,
                    Duration groupTimeout, Duration pollTimeout, Duration lagWarning, boolean multiRowClaim,
                    boolean offsetsInDatabase, boolean share, Map<String, String> shareGroupConfig,
                    boolean shareRenew) {

        /** A share group's settings without lock renewal. */
        Settings(String channel, Properties kafka, List<String> topics, String groupId, int maxGroupSize,
                 Duration groupTimeout, Duration pollTimeout, Duration lagWarning, boolean multiRowClaim,
                 boolean offsetsInDatabase, boolean share, Map<String, String> shareGroupConfig) {
            this(channel, kafka, topics, groupId, maxGroupSize, groupTimeout, pollTimeout, lagWarning, multiRowClaim,
                    offsetsInDatabase, share, shareGroupConfig, false);
        }

        /** A classic consumer group's settings. */
        Settings(String channel, Properties kafka, List<String> topics, String groupId, int maxGroupSize,
                 Duration groupTimeout, Duration pollTimeout, Duration lagWarning, boolean multiRowClaim,
                 boolean offsetsInDatabase) {
            this(channel, kafka, topics, groupId, maxGroupSize, groupTimeout, pollTimeout, lagWarning, multiRowClaim,
                    offsetsInDatabase, false, Map.of());
        }
    }

    /**
     * Where a channel's Kafka clients come from: a consumer, and the Admin-backed view of its topics, each made from the
     * channel's consumer properties. Tests hand in Kafka's {@code MockConsumer} here.
     */
    record Clients(Function<Properties, Consumer<Object, Object>> consumers,
                   Function<Properties, ClusterTopics> topics,
                   Function<Properties, ShareConsumer<Object, Object>> shareConsumers,
                   Function<Properties, ShareGroupConfig> shareGroupConfig) {

        /** The real clients. */
        static final Clients KAFKA = new Clients(KafkaConsumer::new, ClusterTopics.OverAdmin::new,
                KafkaShareConsumer::new, ShareGroupConfig::overAdmin);

        /** Clients of a classic channel only. */
        Clients(Function<Properties, Consumer<Object, Object>> consumers, Function<Properties, ClusterTopics> topics) {
            this(consumers, topics, properties -> {
                throw new IllegalStateException("no share consumer in these clients");
            }, properties -> {
                throw new IllegalStateException("no share group in these clients");
            });
        }
    }

    /** How long a channel waits before it tries again: a record nacked, a partition's offsets not read. */
    static final long RETRY_MILLIS = 1000;

    private final Settings settings;
    private final ManagedThreadFactory threads;
    /** The classic consumer group's poll loop; {@code null} for a share group. */
    private final PollLoop loop;
    /** The share group's poll loop; {@code null} for a classic group. */
    private final ShareLoop shareLoop;
    private final ChannelFigures figures = new ChannelFigures();

    private final AtomicLong demand = new AtomicLong();
    private final Object signal = new Object();
    private volatile Subscriber<? super Message<?>> subscriber;
    private volatile boolean running = true;
    private volatile Thread thread;
    /** Run when partitions are assigned to this channel's consumer. */
    private volatile Runnable onAssigned = () -> { };

    InboxKafkaChannel(Settings settings, ManagedThreadFactory threads, UserTransaction transaction, InboxClaim inbox,
                      KafkaOffsets offsets) {
        this(settings, threads, transaction, inbox, offsets, Clients.KAFKA);
    }

    InboxKafkaChannel(Settings settings, ManagedThreadFactory threads, UserTransaction transaction, InboxClaim inbox,
                      KafkaOffsets offsets, Clients clients) {
        this.settings = settings;
        this.threads = threads;
        this.loop = settings.share() ? null : new PollLoop(this, transaction, inbox, offsets, clients);
        this.shareLoop = settings.share() ? new ShareLoop(this, threads, clients,
                new GroupTransaction(this, transaction, inbox, null, null, null)) : null;
    }

    /** @param action what to run when partitions are assigned to this channel's consumer (a rebalance) */
    void onAssigned(Runnable action) {
        this.onAssigned = action;
    }

    /** Partitions were assigned to this channel's consumer. */
    void assigned() {
        onAssigned.run();
    }

    Settings settings() {
        return settings;
    }

    /** @return what the channel's groups did since it started */
    ChannelFigures figures() {
        return figures;
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
        Thread t = threads.newThread(loop != null ? loop : shareLoop);
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
        if (loop != null) {
            loop.wakeup();
        } else {
            shareLoop.wakeup();
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

    /** @return whether the channel runs: false once it is stopping */
    boolean running() {
        return running;
    }

    /** Hands the message to the channel's method once there is demand. @return false when stopping first */
    boolean emit(KafkaRecordMessage message) {
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
        // the record is the carrier on this thread, for a method that takes only the payload
        RedriveAim.delivering(message.message(), () -> {
            try {
                subscriber.onNext(message.message());
            } catch (RuntimeException e) {
                message.settled().complete(e);
            }
        });
        return true;
    }

    /** @return {@code null} once acknowledged, the reason once nacked; a failure when stopping unsettled */
    Throwable awaitSettled(KafkaRecordMessage message) {
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
            } catch (ExecutionException e) {
                return e.getCause();
            }
        }
    }

    /**
     * @return per partition of this channel: the time in nanoseconds ({@link System#nanoTime()}) since which its
     *         committed offset has been behind the records processed; empty when every commit is up to date
     */
    Map<TopicPartition, Long> behindSince() {
        return loop == null ? Map.of() : loop.behindSince(); // a share group has no offsets of its own
    }

    /** @return what the channel's last look at its topics in the cluster found */
    TopicWatch.Seen seen() {
        return loop == null ? TopicWatch.Seen.NOTHING : loop.seen();
    }

    /** Waits up to {@code millis}, less when the channel stops. */
    void pause(long millis) {
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
