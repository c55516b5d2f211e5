package io.github.jakartainbox.inbox.claim;

import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.inbox.UnprocessableEventException;
import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.failure.FailureKind;
import io.github.jakartainbox.inbox.failure.FailurePolicy;
import io.github.jakartainbox.inbox.failure.Failures;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import io.github.jakartainbox.inbox.spi.DeliverySpan;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * The steps every delivery path takes around its claim in the same way (one message in its own transaction, a
 * message-driven bean's delivery): the claim key read, a delivery whose id or month is unusable dead-lettered; a
 * skipped duplicate counted and logged; a wait that uses no attempt counted and logged by its kind. Each path keeps
 * what differs: its transaction, its dead-letter writer, its acknowledgement.
 */
@ApplicationScoped
public class DeliverySteps {

    /** How a path records a dead letter. */
    @FunctionalInterface
    public interface DeadLetters {
        /**
         * @param eventId  the delivery's event id, {@code null} when it has no usable one
         * @param reason   why it is dead-lettered
         * @param attempts how many attempts failed (0: none was made)
         * @throws Exception when it could not be recorded and the delivery must stay unacknowledged
         */
        void deadLetter(String eventId, Throwable reason, int attempts) throws Exception;
    }

    @Inject
    InboxStatistics statistics;

    /**
     * Reads the delivery's claim key. A delivery without a usable id ({@code INBOX0204E}), or whose month cannot be
     * read, is dead-lettered and its span ended as dead-lettered.
     *
     * @param consumer    the consumer's settings
     * @param key         the delivery's claim key ({@link ClaimKey#of})
     * @param span        the delivery's trace span
     * @param deadLetters how the calling path records a dead letter
     * @return the key's event id, fingerprint and month, or {@code null} when the delivery was dead-lettered
     * @throws Exception what {@code deadLetters} throws
     */
    public InboxClaim.Claim identify(ConsumerSettings consumer, ClaimKey key, DeliverySpan span,
                                     DeadLetters deadLetters) throws Exception {
        String eventId;
        try {
            eventId = key.eventId();
        } catch (RuntimeException e) {
            // InvalidEventIdException, or anything else reading the id threw: never let it reach the connector
            InboxMessage.INBOX0204E.log(consumer.name(), Failures.describe(e));
            deadLetters.deadLetter(null, e, 0);
            span.outcome(DeliveryOutcome.DEAD_LETTERED, e);
            return null;
        }
        span.eventId(eventId);
        try {
            return key.claim();
        } catch (UnprocessableEventException e) {
            deadLetters.deadLetter(eventId, e, 0);
            span.outcome(DeliveryOutcome.DEAD_LETTERED, e);
            return null;
        }
    }

    /**
     * A claim that found the event's row: a duplicate is counted and logged at FINE (a replay is normal, a rewind
     * cannot flood the log); one whose payload differs from the processed one is skipped too, but logged and
     * dead-lettered for an operator ({@code INBOX0102E}, {@code INBOX0103E}).
     *
     * @param claim {@link InboxClaim.Result#DUPLICATE} or {@link InboxClaim.Result#CONFLICTING_PAYLOAD}
     * @return the span outcome of the skip
     * @throws Exception what {@code deadLetters} throws
     */
    public DeliveryOutcome skipped(ConsumerSettings consumer, String eventId, InboxClaim.Result claim,
                                   DeadLetters deadLetters) throws Exception {
        statistics.duplicateSkipped(consumer.name());
        if (claim == InboxClaim.Result.DUPLICATE) {
            InboxMessage.INBOX0101I.log(consumer.name(), eventId);
            return DeliveryOutcome.DUPLICATE;
        }
        InboxMessage.INBOX0102E.log(consumer.name(), eventId);
        deadLetters.deadLetter(eventId, new UnprocessableEventException(
                InboxMessage.INBOX0103E.format(eventId, consumer.name())), 0);
        return DeliveryOutcome.FINGERPRINT_MISMATCH;
    }

    /**
     * Counts a failed attempt's wait (retries apart from waits that use no attempt) and logs the waits every path
     * logs alike: a downstream system unavailable ({@code INBOX0227W}) and a transient database error ({@code
     * INBOX0205W}).
     *
     * @return whether it was logged here; {@code false} for an outage and an ordinary failure, which each path
     *         words itself
     */
    public boolean countedWait(ConsumerSettings consumer, String eventId, FailurePolicy.Decision decision,
                               Throwable failure, long waitMillis) {
        FailureKind kind = decision.kind();
        if (kind == FailureKind.OUTAGE || kind == FailureKind.UNAVAILABLE || kind == FailureKind.TRANSIENT) {
            statistics.transientWait(consumer.name());
        } else {
            statistics.retried(consumer.name());
        }
        String cause = Failures.describe(failure);
        if (kind == FailureKind.UNAVAILABLE) {
            InboxMessage.INBOX0227W.log(consumer.name(), eventId, String.valueOf(waitMillis), cause);
            return true;
        }
        if (kind == FailureKind.TRANSIENT) {
            InboxMessage.INBOX0205W.log(consumer.name(), eventId, FailureKind.sqlState(failure),
                    decision.waited(), consumer.failurePolicy().transientBudget(), String.valueOf(waitMillis), cause);
            return true;
        }
        return false;
    }
}
