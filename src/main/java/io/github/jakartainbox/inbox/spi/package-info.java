/**
 * The service provider interfaces: where event ids come from ({@link EventIdExtractor}), work the purge runs
 * ({@link PurgeTask}, {@link PurgeCompleted}), and one span per delivery ({@link DeliveryTracer}).
 */
package io.github.jakartainbox.inbox.spi;
