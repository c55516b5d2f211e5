/**
 * The delivery pipeline: the interceptor bound to {@code @Idempotent}, its steps, the deployment checks, and the
 * {@code DeliveryPath} a transport plugs in from above.
 */
package io.github.jakartainbox.inbox.delivery;
