package io.github.jakartainbox.inbox.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Filter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Keeps the Kafka client's repeated warnings from flooding the log: a consumer whose topic was deleted logs the same
 * warning (a metadata response naming the unknown topic, a fetch or commit refused for its partitions) at every
 * retry, thousands a minute. A filter on the client's loggers that repeat lets each warning through once per
 * {@link #WINDOW}, messages that differ only in their numbers (correlation ids, offsets) counting as one, and says
 * on the next one let through how many were held back. The channel's own line ({@code INBOX0618W}) says what
 * happened. Records below WARNING pass untouched.
 */
final class KafkaClientLogLimit implements Filter {

    /** How long a warning is held back after it was logged. */
    static final Duration WINDOW = Duration.ofMinutes(1);

    /** The Kafka client's loggers (SLF4J names are class names, through slf4j-jdk14) whose warnings repeat. */
    static final List<String> LOGGERS = List.of("org.apache.kafka.clients.NetworkClient",
            "org.apache.kafka.clients.Metadata",
            "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator",
            "org.apache.kafka.clients.consumer.internals.AbstractCoordinator",
            "org.apache.kafka.clients.consumer.internals.FetchCollector",
            "org.apache.kafka.clients.consumer.internals.OffsetFetcher",
            "org.apache.kafka.clients.consumer.internals.OffsetsRequestManager",
            "org.apache.kafka.clients.consumer.internals.CommitRequestManager",
            "org.apache.kafka.clients.admin.KafkaAdminClient");

    /** Strong references: java.util.logging keeps loggers weakly, and a logger made anew has no filter. */
    private static final List<Logger> FILTERED = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Per message with its numbers blanked: when it was last let through and how many were held back since. */
    private final Map<String, long[]> seen = new ConcurrentHashMap<>();
    private final long windowNanos;

    KafkaClientLogLimit(Duration window) {
        this.windowNanos = window.toNanos();
    }

    /** Puts the filter on the client's loggers that have none yet; a second call changes nothing. */
    static synchronized void install() {
        if (!FILTERED.isEmpty()) {
            return;
        }
        KafkaClientLogLimit limit = new KafkaClientLogLimit(WINDOW);
        for (String name : LOGGERS) {
            Logger logger = Logger.getLogger(name);
            if (logger.getFilter() == null) {
                logger.setFilter(limit);
                FILTERED.add(logger);
            }
        }
    }

    /**
     * Takes this application's filter off the loggers again. The loggers belong to the server (one
     * {@code java.util.logging} tree for every application): a filter left on them would keep this application's
     * classes in memory after it stopped, and the next deployment would find the loggers filtered already.
     */
    static synchronized void uninstall() {
        for (Logger logger : FILTERED) {
            if (logger.getFilter() instanceof KafkaClientLogLimit) {
                logger.setFilter(null);
            }
        }
        FILTERED.clear();
    }

    @Override
    public boolean isLoggable(LogRecord record) {
        if (record.getLevel().intValue() < Level.WARNING.intValue() || record.getMessage() == null) {
            return true;
        }
        return let(record, System.nanoTime());
    }

    /** @return whether the record is logged; a record let through after others were held back says how many */
    boolean let(LogRecord record, long now) {
        String key = record.getLoggerName() + '|' + record.getMessage().replaceAll("\\d+", "#");
        long[] entry = seen.computeIfAbsent(key, k -> new long[] {now - windowNanos - 1, 0});
        synchronized (entry) {
            if (now - entry[0] <= windowNanos) {
                entry[1]++;
                return false;
            }
            if (entry[1] > 0) {
                record.setMessage(record.getMessage() + " (" + entry[1] + " like it held back in the last "
                        + Duration.ofNanos(now - entry[0]).toSeconds() + " s)");
            }
            entry[0] = now;
            entry[1] = 0;
            return true;
        }
    }
}
