/**
 * The consumers of the application: per-consumer settings, the consumer registry, the channel registry and the
 * application's stop; above event ids and failure classes, below the claim.
 */
package io.github.jakartainbox.inbox.consumer;
