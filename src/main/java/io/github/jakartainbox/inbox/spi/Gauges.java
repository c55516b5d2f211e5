package io.github.jakartainbox.inbox.spi;

import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Where a part of the library publishes its figures as gauges. Fired once as a CDI event when the application has
 * started and the server has MicroProfile Metrics ({@code mpMetrics}); never fired without it, so an observer of
 * this type loads no metrics class. The outbox's gauges come this way.
 */
public interface Gauges {

    /**
     * Registers one gauge in the application scope.
     *
     * @param name        the dotted name, {@code inbox.processed} (exposed as {@code inbox_processed})
     * @param description what it counts, for the metric's help text
     * @param tags        its tags, such as {@code consumer=billing}; empty for none
     * @param value       read at each scrape; it should answer from a cache, not the database
     */
    void gauge(String name, String description, Map<String, String> tags, LongSupplier value);
}
