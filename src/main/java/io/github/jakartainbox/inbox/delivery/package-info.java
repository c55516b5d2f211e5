/**
 * The delivery pipeline: the interceptor bound to {@code @Idempotent}, the deployment checks, per-consumer
 * settings, the channel registry and the application's stop.
 */
package io.github.jakartainbox.inbox.delivery;
