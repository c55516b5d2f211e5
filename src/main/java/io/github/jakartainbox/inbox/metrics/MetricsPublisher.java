package io.github.jakartainbox.inbox.metrics;

import io.github.jakartainbox.inbox.InboxConfig;
import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.inbox.InboxStatistics.ConsumerFigures;
import io.github.jakartainbox.inbox.InboxStatistics.PurgeStatus;
import io.github.jakartainbox.inbox.claim.InboxClaim;
import io.github.jakartainbox.inbox.spi.Gauges;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

/**
 * The inbox's figures as gauges at {@code /metrics?scope=application} (names in docs/observability.md, "Metrics"):
 * per consumer of an {@code @Idempotent} annotation, and for the purge. Read from the tables at most every
 * 10 seconds. Then hands a {@link Gauges} to the other parts of the library (the outbox). A bean only when
 * {@link MetricsExtension} found the MicroProfile Metrics API.
 */
public class MetricsPublisher {

    private static final long CACHE_NANOS = 10_000_000_000L;

    @Inject
    MetricRegistry registry;
    @Inject
    InboxStatistics statistics;
    @Inject
    MetricsExtension extension;
    @Inject
    Event<Gauges> others;
    @Inject
    InboxClaim claims;
    @Inject
    io.github.jakartainbox.inbox.deadletter.internal.ParkedEvents parked;

    private volatile long readAt;
    private volatile Map<String, ConsumerFigures> figures = Map.of();
    private volatile Optional<PurgeStatus> purge = Optional.empty();
    private volatile boolean unreadable;
    private volatile io.github.jakartainbox.inbox.deadletter.internal.ParkedEvents.Figures keyOrder =
            new io.github.jakartainbox.inbox.deadletter.internal.ParkedEvents.Figures(0, 0, java.time.Duration.ZERO);

    void publish(@Observes @Initialized(ApplicationScoped.class) Object applicationStarted) {
        Gauges gauges = this::gauge;
        for (String annotated : extension.annotatedConsumers()) {
            String consumer = InboxConfig.consumerName(annotated);
            consumerGauge(gauges, "inbox.processed", "Events processed and still retained in the inbox table.",
                    consumer, ConsumerFigures::processed);
            consumerGauge(gauges, "inbox.dead.lettered", "Open dead letters: neither re-driven nor discarded.",
                    consumer, ConsumerFigures::deadLettered);
            consumerGauge(gauges, "inbox.duplicates.skipped",
                    "Duplicate deliveries skipped by this server since it started.", consumer,
                    ConsumerFigures::duplicatesSkipped);
            consumerGauge(gauges, "inbox.retries",
                    "Failed attempts retried by this server since it started that used up an attempt.", consumer,
                    ConsumerFigures::retries);
            consumerGauge(gauges, "inbox.transient.waits",
                    "Waits by this server since it started that used up no attempt (database or downstream "
                            + "unavailable).", consumer, ConsumerFigures::transientWaits);
            consumerGauge(gauges, "inbox.redrives.for.others.skipped",
                    "Re-driven records aimed at another consumer that this server skipped since it started.",
                    consumer, ConsumerFigures::redrivesForOthersSkipped);
            claimGauge(gauges, "inbox.claim.statements", "Claim statements this server ran since it started (one per "
                    + "event, or one per group of inbox-kafka).", consumer, InboxClaim.Times::statements);
            claimGauge(gauges, "inbox.claim.events", "Events those claim statements claimed or found claimed.",
                    consumer, InboxClaim.Times::events);
            claimGauge(gauges, "inbox.claim.millis", "Milliseconds spent in claim statements since this server "
                    + "started, connection included.", consumer, t -> t.nanos() / 1_000_000);
            consumerGauge(gauges, "inbox.redrive.aims.rejected",
                    "Records naming a re-drive the database did not confirm, since this server started.", consumer,
                    ConsumerFigures::redriveAimsRejected);
        }
        gauge("inbox.purge.deleted.rows", "Rows the retention purge removed, a running total.", Map.of(),
                () -> purge().map(PurgeStatus::totalDeleted).orElse(0L));
        gauge("inbox.purge.last.success.seconds", "When the last successful purge finished, Unix time; 0 if never.",
                Map.of(), () -> purge().map(PurgeStatus::lastFinishedAt).map(t -> t.toEpochSecond()).orElse(0L));
        // 1 as well while the state cannot be read: a purge cannot run then either
        gauge("inbox.purge.overdue", "1 when the last purge failed or none succeeded within "
                + InboxConfig.PURGE_OVERDUE_AFTER.name() + ", or its state cannot be read; else 0.", Map.of(),
                () -> purge().map(p -> p.overdue() ? 1L : 0L).orElse(0L) | (unreadable ? 1L : 0L));
        gauge("inbox.key.sequences.open", "Open sequences of dead-letter order by key: keys whose later records wait "
                + "behind a dead letter.", Map.of(), () -> keyOrder().sequences());
        gauge("inbox.key.parked", "Records parked behind the dead letters of those sequences.", Map.of(),
                () -> keyOrder().parked());
        gauge("inbox.key.parked.oldest.seconds", "Age of the oldest parked record in seconds; 0 when none is.",
                Map.of(), () -> keyOrder().oldestParkedAge().toSeconds());
        others.fire(gauges);
    }

    private void consumerGauge(Gauges gauges, String name, String description, String consumer,
                               ToLongFunction<ConsumerFigures> value) {
        gauges.gauge(name, description, Map.of("consumer", consumer), () -> {
            ConsumerFigures f = figures().get(consumer);
            return f == null ? 0L : value.applyAsLong(f);
        });
    }

    private void claimGauge(Gauges gauges, String name, String description, String consumer,
                            ToLongFunction<InboxClaim.Times> value) {
        gauges.gauge(name, description, Map.of("consumer", consumer), () -> value.applyAsLong(claims.times(consumer)));
    }

    private void gauge(String name, String description, Map<String, String> tags, LongSupplier value) {
        Tag[] metricTags = tags.entrySet().stream().map(e -> new Tag(e.getKey(), e.getValue())).toArray(Tag[]::new);
        registry.gauge(Metadata.builder().withName(name).withDescription(description).build(),
                value::getAsLong, metricTags);
    }

    private Map<String, ConsumerFigures> figures() {
        refresh();
        return figures;
    }

    private io.github.jakartainbox.inbox.deadletter.internal.ParkedEvents.Figures keyOrder() {
        refresh();
        return keyOrder;
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
        try {
            keyOrder = parked.figures();
        } catch (SQLException | RuntimeException e) {
            // keep the last figures: the purge's state says whether the database answers
        }
        readAt = System.nanoTime();
    }
}
