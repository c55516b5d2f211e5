package io.github.jakartainbox.inbox.failure;

import io.github.jakartainbox.inbox.UnprocessableEventException;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Decides what happens after an attempt to process a delivery failed: try again after a wait, or dead-letter it.
 * The interceptor claims and calls; this class alone holds the rules, which depend on the {@link FailureKind}:
 *
 * <ul>
 *   <li>{@link FailureKind#OUTAGE}: wait (backing off from {@code retry.delay} up to {@code retry.max-delay}) and
 *       try again, for as long as it takes; no attempt is used up, because the event is not at fault.</li>
 *   <li>{@link FailureKind#UNAVAILABLE}: as an outage, for a system besides the database.</li>
 *   <li>{@link FailureKind#TRANSIENT}: wait and try again, backing off the same way, while the time since this
 *       delivery's first transient failure is within {@code retry.transient-budget}; then dead-letter with
 *       {@code INBOX0207E}. The budget is what ends a poison event whose own statement times out every time.</li>
 *   <li>{@link FailureKind#PERMANENT}: dead-letter at once; another identical attempt cannot succeed.</li>
 *   <li>{@link FailureKind#OTHER}: try again up to {@code retry.max-attempts} attempts in all, then
 *       dead-letter.</li>
 * </ul>
 *
 * <p>One {@link Tracker} tracks one delivery's failures; it is not thread-safe (a delivery is processed on one
 * thread).
 */
public final class FailurePolicy {

    /** What to do next. */
    public enum Action {
        /** Wait {@link Decision#delay()}, then try again in a new transaction. */
        RETRY,
        /** Record a dead letter with {@link Decision#reason()} and acknowledge the message. */
        DEAD_LETTER
    }

    /**
     * The decision after one failure.
     *
     * @param action   retry or dead-letter
     * @param kind     the failure's kind
     * @param delay    how long to wait before the next attempt; zero for a dead letter
     * @param attempts attempts used up so far (outages and transient errors do not use attempts)
     * @param reason   for a dead letter, the reason to store: the failure itself, or an {@link
     *                 UnprocessableEventException} that explains why it was not retried
     * @param waited   for a transient failure, the time since this delivery's first transient failure
     */
    public record Decision(Action action, FailureKind kind, Duration delay, int attempts, Throwable reason, Duration waited) {
    }

    private final String consumer;
    private final RetryPolicy retry;
    private final Duration transientBudget;
    private final Clock clock;

    /**
     * @param consumer        the consumer's name, for the texts
     * @param retry           its attempts and backoff
     * @param transientBudget how long one delivery may keep failing with transient database errors
     * @param clock           the clock the budget is measured with
     */
    public FailurePolicy(String consumer, RetryPolicy retry, Duration transientBudget, Clock clock) {
        this.consumer = consumer;
        this.retry = retry;
        this.transientBudget = transientBudget;
        this.clock = clock;
    }

    /** @return the retry policy */
    public RetryPolicy retry() {
        return retry;
    }

    /** @return how long one delivery may keep failing with transient database errors */
    public Duration transientBudget() {
        return transientBudget;
    }

    /** @return a tracker for a new delivery */
    public Tracker newDelivery() {
        return new Tracker(0, Integer.MAX_VALUE);
    }

    /**
     * A tracker for a delivery whose transport counts deliveries and discards a message after its limit (a Kafka
     * share group): the transport's earlier deliveries count as attempts, and no attempt is retried past the limit,
     * so that the dead letter comes before the transport discards the message.
     *
     * @param priorAttempts attempts the transport made before this delivery, 0 or more
     * @param attemptLimit  the transport's delivery limit, 1 or more ({@link Integer#MAX_VALUE}: none)
     * @return a tracker for the delivery
     * @throws IllegalArgumentException when {@code priorAttempts} is negative or {@code attemptLimit} below 1
     */
    public Tracker newDelivery(int priorAttempts, int attemptLimit) {
        if (priorAttempts < 0 || attemptLimit < 1) {
            throw new IllegalArgumentException("prior attempts must be 0 or more and the attempt limit 1 or more, not "
                    + priorAttempts + " and " + attemptLimit);
        }
        return new Tracker(priorAttempts, attemptLimit);
    }

    /** The failures of one delivery so far. */
    public final class Tracker {

        private final int attemptLimit;
        private int attempts;
        private int outages;
        private int transients;
        private Instant firstTransient;

        private Tracker(int priorAttempts, int attemptLimit) {
            this.attempts = priorAttempts;
            this.attemptLimit = attemptLimit;
        }

        /**
         * @param failure what the attempt threw
         * @return what to do next
         */
        public Decision failed(Throwable failure) {
            FailureKind kind = FailureKind.of(failure);
            switch (kind) {
                case OUTAGE:
                case UNAVAILABLE:
                    return new Decision(Action.RETRY, kind, retry.delayAfter(++outages), attempts, null, null);
                case TRANSIENT:
                    Instant now = clock.instant();
                    if (firstTransient == null) {
                        firstTransient = now;
                    }
                    Duration waited = Duration.between(firstTransient, now);
                    if (waited.compareTo(transientBudget) >= 0) {
                        return deadLetter(kind, new UnprocessableEventException(InboxMessage.INBOX0207E.format(
                                FailureKind.sqlState(failure), waited, transientBudget,
                                consumer, Failures.describe(failure)), Failures.cause(failure)), waited);
                    }
                    Duration wait = retry.delayAfter(++transients);
                    Duration left = transientBudget.minus(waited);
                    return new Decision(Action.RETRY, kind, wait.compareTo(left) > 0 ? left : wait, attempts, null,
                            waited);
                case PERMANENT:
                    attempts++;
                    Throwable cause = Failures.cause(failure);
                    String state = FailureKind.sqlState(failure);
                    if (cause instanceof UnprocessableEventException || state == null) {
                        return deadLetter(kind, cause, null);
                    }
                    return deadLetter(kind, new UnprocessableEventException(InboxMessage.INBOX0208E.format(
                            state, sqlStateName(state), Failures.describe(failure)), cause), null);
                default:
                    attempts++;
                    if (retry.retriesAfter(attempts) && attempts < attemptLimit) {
                        return new Decision(Action.RETRY, kind, retry.delayAfter(attempts), attempts, null, null);
                    }
                    return deadLetter(kind, Failures.cause(failure), null);
            }
        }

        private Decision deadLetter(FailureKind kind, Throwable reason, Duration waited) {
            return new Decision(Action.DEAD_LETTER, kind, Duration.ZERO, attempts, reason, waited);
        }
    }

    /** @return PostgreSQL's name of the SQLState's class, for the dead-letter reason */
    static String sqlStateName(String state) {
        if (state.startsWith("22")) {
            return "data exception";
        }
        if (state.startsWith("23")) {
            return "integrity constraint violation";
        }
        if (state.startsWith("54")) {
            return "program limit exceeded";
        }
        return "SQLState class " + state.substring(0, 2);
    }
}
