/**
 * The dead letters' internals: writing a delivery's dead letter ({@code DeadLetterStore}) and keeping its history
 * short; used by the delivery paths, not by applications.
 */
package io.github.jakartainbox.inbox.deadletter.internal;
