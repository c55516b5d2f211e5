package io.github.jakartainbox.billing.operator;

import io.github.jakartainbox.billing.ServiceConsumers;
import io.github.jakartainbox.inbox.InboxStatistics.ConsumerFigures;
import io.github.jakartainbox.inbox.InboxStatistics.PurgeStatus;
import io.github.jakartainbox.inbox.InboxStatistics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

/**
 * The inbox figures as MicroProfile Metrics gauges at {@code /metrics?scope=application}: per consumer
 * {@code inbox_processed}, {@code inbox_dead_lettered}, {@code inbox_duplicates_skipped}, {@code inbox_retries};
 * for the purge {@code inbox_purge_deleted_rows}, {@code inbox_purge_last_success_seconds} (Unix time) and
 * {@code inbox_purge_overdue} (1 when overdue or failing). Read from the tables at most every 10 seconds.
 */
@ApplicationScoped
public class InboxMetrics {

    private static final long CACHE_NANOS = 10_000_000_000L;
    /** every consumer of the service, the mailer and the JMS consumer included */
    private static final List<String> CONSUMERS = ServiceConsumers.inboxNames(ServiceConsumers.ALL);

    @Inject
    MetricRegistry registry;
    @Inject
    InboxStatistics statistics;

    private volatile long readAt;
    private volatile Map<String, ConsumerFigures> figures = Map.of();
    private volatile Optional<PurgeStatus> purge = Optional.empty();
    private volatile boolean unreadable;

    void register(@Observes @Initialized(ApplicationScoped.class) Object applicationStarted) {
        for (String consumer : CONSUMERS) {
            Tag tag = new Tag("consumer", consumer);
            gauge("inbox.processed", consumer, ConsumerFigures::processed, tag);
            gauge("inbox.dead.lettered", consumer, ConsumerFigures::deadLettered, tag);
            gauge("inbox.duplicates.skipped", consumer, ConsumerFigures::duplicatesSkipped, tag);
            gauge("inbox.retries", consumer, ConsumerFigures::retries, tag);
            gauge("inbox.redrives.for.others.skipped", consumer, ConsumerFigures::redrivesForOthersSkipped, tag);
            gauge("inbox.redrive.aims.rejected", consumer, ConsumerFigures::redriveAimsRejected, tag);
        }
        registry.gauge("inbox.purge.deleted.rows", () -> purge().map(PurgeStatus::totalDeleted).orElse(0L));
        registry.gauge("inbox.purge.last.success.seconds", () -> purge().map(PurgeStatus::lastFinishedAt)
                .map(t -> t.toEpochSecond()).orElse(0L));
        // 1 as well while the state cannot be read: a purge cannot run then either
        registry.gauge("inbox.purge.overdue", () -> purge().map(p -> p.overdue() ? 1 : 0).orElse(0) | (unreadable ? 1 : 0));
    }

    private void gauge(String name, String consumer, ToLongFunction<ConsumerFigures> value, Tag tag) {
        registry.gauge(name, () -> {
            ConsumerFigures f = figures().get(consumer);
            return f == null ? 0L : value.applyAsLong(f);
        }, tag);
    }

    private Map<String, ConsumerFigures> figures() {
        refresh();
        return figures;
    }

    private Optional<PurgeStatus> purge() {
        refresh();
        return purge;
    }

    private synchronized void refresh() {
        if (System.nanoTime() - readAt < CACHE_NANOS && readAt != 0) {
            return;
        }
        try {
            figures = statistics.figures().stream()
                    .collect(Collectors.toMap(ConsumerFigures::consumer, f -> f, (a, b) -> a));
            purge = statistics.purgeStatus();
            unreadable = false;
        } catch (SQLException | RuntimeException e) {
            unreadable = true; // keep the last figures, and report the purge overdue
        }
        readAt = System.nanoTime();
    }
}
