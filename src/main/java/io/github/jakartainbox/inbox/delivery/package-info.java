/**
 * The delivery pipeline: the interceptor bound to {@code @Idempotent}, the paths it hands a delivery to (the
 * caller's transaction, a transaction of its own with retries and dead letters), the deployment checks, and the
 * {@code DeliveryPath} types a capability plugs its own paths in with from above.
 */
package io.github.jakartainbox.inbox.delivery;
