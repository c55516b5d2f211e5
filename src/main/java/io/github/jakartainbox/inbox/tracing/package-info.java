/**
 * Tracing: picks the delivery tracer ({@link io.github.jakartainbox.inbox.spi.DeliveryTracer}), OpenTelemetry when
 * the application can see its API, else none.
 */
package io.github.jakartainbox.inbox.tracing;
