package io.github.jakartainbox.outbox;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Delivers committed outbox rows to Kafka, at least once, on the server's managed scheduled executor (Liberty
 * feature {@code concurrent-3.0}). A commit that recorded a row wakes it at once; a poll every
 * {@value OutboxConfig#POLL_INTERVAL} is the fallback for rows left behind by a crash, rows due after a backoff
 * and rows committed on another server. One relay runs at a time across servers (the lease in
 * {@code outbox_relay_state}, taken over after {@value OutboxConfig#LEASE} when its owner died).
 *
 * <p>The producer: {@code acks=all}, idempotence on, {@code linger.ms=0}; every {@code outbox.kafka.*} key is
 * passed to it (without the prefix), {@code outbox.kafka.bootstrap.servers} is required.
 */
@ApplicationScoped
public class OutboxRelay {

    /** The record header that carries the event id, as the inbox's header source reads it by default. */
    public static final String EVENT_ID_HEADER = "event_id";

    /** Wait before trying the lease again after a local commit found it held by another server's relay. */
    private static final long BUSY_RETRY_MILLIS = 100;

    @Resource(lookup = "java:comp/DefaultManagedScheduledExecutorService")
    ManagedScheduledExecutorService executor;
    @Inject
    OutboxDatabase database;

    private final AtomicBoolean requested = new AtomicBoolean();
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicBoolean localCommit = new AtomicBoolean();
    private volatile boolean databaseWarned;
    private volatile RelayWorker worker;
    private volatile Producer<String, String> producer;
    private volatile ScheduledFuture<?> poll;

    /** At application start: checks the keys (a wrong one fails the start), makes the producer, starts the poll. */
    void start(@Observes @Initialized(ApplicationScoped.class) Object applicationStarted) {
        Config config = ConfigProvider.getConfig();
        // every key, those read later by the purge and the figures too, so that a wrong value fails the start
        List<String> problems = OutboxConfig.problems(config);
        if (!problems.isEmpty()) {
            throw new IllegalStateException(String.join(" ", problems));
        }
        if (!OutboxConfig.RELAY_ENABLED.get(config)) {
            OutboxMessage.OUTBOX0005W.log();
            return;
        }
        Duration pollInterval = OutboxConfig.POLL_INTERVAL.get(config);
        RelayWorker.Settings settings = new RelayWorker.Settings(OutboxConfig.BATCH_SIZE.get(config),
                OutboxConfig.LEASE.get(config), OutboxConfig.RETRY_DELAY.get(config),
                OutboxConfig.RETRY_MAX_DELAY.get(config), OutboxConfig.FAILING_AFTER.get(config));
        Properties properties = producerProperties(config);
        producer = new KafkaProducer<>(properties, new StringSerializer(), new StringSerializer());
        worker = new RelayWorker(database.dataSource(), producer, settings);
        OutboxMessage.OUTBOX0004I.log(properties.get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG), pollInterval,
                settings.lease(), String.valueOf(settings.batchSize()));
        poll = executor.scheduleWithFixedDelay(this::wake, 0, pollInterval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * @param config the application's configuration
     * @return the producer's settings: the relay's defaults, then every {@code outbox.kafka.*} key
     * @throws IllegalStateException when {@code outbox.kafka.bootstrap.servers} is not set
     */
    static Properties producerProperties(Config config) {
        Properties properties = relayDefaults();
        properties.putAll(OutboxConfig.kafka(config));
        if (!properties.containsKey(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG)) {
            throw new IllegalStateException(OutboxMessage.OUTBOX0003E.format(OutboxConfig.KAFKA_PREFIX
                    + "bootstrap.servers", "", "the Kafka broker list, host:port[,host:port] (or set "
                    + OutboxConfig.RELAY_ENABLED.name() + "=false on a server that must not relay)"));
        }
        return properties;
    }

    /** @return the relay's producer settings before any {@code outbox.kafka.*} key (also the benchmark's) */
    static Properties relayDefaults() {
        Properties properties = new Properties();
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        properties.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        // a round waits for its sends (flush): bounded well below the lease, so that no other server takes over
        properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
        properties.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "20000");
        properties.put(ProducerConfig.CLIENT_ID_CONFIG, "outbox-relay");
        return properties;
    }

    /** Called after a commit that recorded outbox rows. */
    void wakeAfterCommit() {
        localCommit.set(true);
        wake();
    }

    /**
     * Asks the relay to deliver what is pending now rather than at its next poll; returns at once. Does nothing when
     * the relay is off.
     */
    public void wake() {
        if (worker == null) {
            return;
        }
        requested.set(true);
        if (running.compareAndSet(false, true)) {
            try {
                executor.execute(this::drainWhileRequested);
            } catch (RuntimeException e) {
                running.set(false); // the executor is shutting down: the next poll, or the next start, relays
            }
        }
    }

    private void drainWhileRequested() {
        try {
            while (requested.getAndSet(false) && worker != null) {
                boolean local = localCommit.getAndSet(false);
                database.tables(); // made at start, or now if the database was away then
                int delivered = worker.drain();
                databaseWarned = false;
                if (delivered < 0 && local) {
                    // another server's relay holds the lease and may have finished its last round before our
                    // commit: try again shortly instead of waiting for the poll
                    localCommit.set(true);
                    executor.schedule(this::wake, BUSY_RETRY_MILLIS, TimeUnit.MILLISECONDS);
                }
            }
        } catch (Exception e) {
            if (!databaseWarned) {
                OutboxMessage.OUTBOX0203W.log(e.toString());
                databaseWarned = true;
            }
        } finally {
            running.set(false);
            if (requested.get()) {
                wake();
            }
        }
    }

    @PreDestroy
    void stop() {
        RelayWorker current = worker;
        worker = null;
        if (current != null) {
            current.stop();
        }
        if (poll != null) {
            poll.cancel(false);
        }
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
    }
}
