/**
 * The inbox's figures as MicroProfile Metrics gauges, published only when the server has {@code mpMetrics}
 * ({@link MetricsExtension} adds {@link MetricsPublisher} as a bean then, and nothing otherwise).
 */
package io.github.jakartainbox.inbox.metrics;
