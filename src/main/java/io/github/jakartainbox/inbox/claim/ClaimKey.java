package io.github.jakartainbox.inbox.claim;

import io.github.jakartainbox.inbox.UnprocessableEventException;
import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.incoming.Delivery;
import java.time.LocalDate;

/**
 * The key a delivery is claimed under, (event id, fingerprint, month), made by {@link #of} alone: the one place a
 * delivery's event id is read. It is read when first asked for and kept, the fingerprint and month the same way,
 * so that a path asks as late as its order needs (the month may need the inbox tables ready) and never twice.
 */
public final class ClaimKey {

    private final ConsumerSettings consumer;
    private final Delivery delivery;
    private final InboxClaim inbox;
    private String eventId;
    private RuntimeException unusable;
    private InboxClaim.Claim claim;

    private ClaimKey(ConsumerSettings consumer, Delivery delivery, InboxClaim inbox, InboxClaim.Claim claim) {
        this.consumer = consumer;
        this.delivery = delivery;
        this.inbox = inbox;
        this.claim = claim;
        this.eventId = claim == null ? null : claim.eventId();
    }

    /**
     * @param consumer the consumer's settings: where its event ids are found, whether it keeps fingerprints
     * @param delivery the delivery, as the method receives it
     * @param inbox    the claim, which knows whether the inbox is partitioned by month
     * @return the delivery's key, nothing read yet
     */
    public static ClaimKey of(ConsumerSettings consumer, Delivery delivery, InboxClaim inbox) {
        return new ClaimKey(consumer, delivery, inbox, null);
    }

    /**
     * @param readAhead a key read before from the very same message and payload (a Kafka group's claim)
     * @return that key, not read again
     */
    public static ClaimKey readAhead(InboxClaim.Claim readAhead) {
        return new ClaimKey(null, null, null, readAhead);
    }

    /**
     * @return the delivery's normalized event id, read at the first call
     * @throws RuntimeException the same one at every call, when the delivery has no usable event id
     *                          ({@link io.github.jakartainbox.inbox.InvalidEventIdException}, or whatever reading
     *                          it threw)
     */
    public String eventId() {
        if (eventId == null && unusable == null) {
            try {
                eventId = consumer.eventId(delivery);
            } catch (RuntimeException e) {
                unusable = e;
            }
        }
        if (unusable != null) {
            throw unusable;
        }
        return eventId;
    }

    /**
     * @return the whole key: the event id, the payload's fingerprint (when the consumer keeps them) and the event's
     *         month (in partitioned mode)
     * @throws RuntimeException            what {@link #eventId()} throws
     * @throws UnprocessableEventException in partitioned mode, when the event carries no usable time
     */
    public InboxClaim.Claim claim() {
        if (claim == null) {
            String id = eventId();
            LocalDate month = inbox.partitionMonth(consumer, delivery, id);
            claim = new InboxClaim.Claim(id, consumer.fingerprint(delivery), month);
        }
        return claim;
    }
}
