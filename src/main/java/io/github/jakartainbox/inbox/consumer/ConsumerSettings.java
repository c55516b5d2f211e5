package io.github.jakartainbox.inbox.consumer;

import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.eventid.EventIdSource;
import io.github.jakartainbox.inbox.eventid.EventIds;
import io.github.jakartainbox.inbox.eventid.EventTimeSource;
import io.github.jakartainbox.inbox.failure.FailurePolicy;
import io.github.jakartainbox.inbox.failure.RetryPolicy;

/**
 * The resolved settings of one consumer (see {@link io.github.jakartainbox.inbox.InboxConfig} for the keys).
 *
 * @param name          the consumer name stored in the inbox
 * @param eventIdSource where its event ids are found
 * @param maxLength     the longest event id accepted
 * @param failurePolicy what happens after a failed attempt
 * @param eventTime     where the event's own time is found (used in partitioned mode only)
 * @param fingerprint   whether the payload's SHA-256 is stored and compared on duplicates
 * @param transactionTimeout the JTA timeout of an attempt's transaction, {@code null} for the server's default
 * @param orderByKey    whether a dead letter of a keyed Kafka record parks the consumer's later records of its key
 *                      ({@code dead-letter.order=key})
 */
public record ConsumerSettings(String name, EventIdSource eventIdSource, int maxLength, FailurePolicy failurePolicy,
                        EventTimeSource eventTime, boolean fingerprint, java.time.Duration transactionTimeout,
                        boolean orderByKey) {

    /** A consumer that keeps no order around dead letters ({@code dead-letter.order=none}). */
    public ConsumerSettings(String name, EventIdSource eventIdSource, int maxLength, FailurePolicy failurePolicy,
                            EventTimeSource eventTime, boolean fingerprint, java.time.Duration transactionTimeout) {
        this(name, eventIdSource, maxLength, failurePolicy, eventTime, fingerprint, transactionTimeout, false);
    }

    /**
     * @param delivery the delivery
     * @return its normalized event id
     * @throws InvalidEventIdException when it has none or it breaks a rule of {@link EventIds}
     */
    public String eventId(Delivery delivery) {
        return EventIds.normalize(eventIdSource.rawEventId(delivery), maxLength, eventIdSource.where());
    }

    /** @return its attempts and backoff */
    public RetryPolicy retry() {
        return failurePolicy.retry();
    }

    /**
     * @param delivery the delivery
     * @return the payload's SHA-256 when this consumer keeps fingerprints, else {@code null}
     */
    public byte[] fingerprint(Delivery delivery) {
        return fingerprint ? delivery.fingerprint() : null;
    }
}
