package io.github.jakartainbox.inbox.spi;

/**
 * How one delivery through {@code @Idempotent} ended, as span attribute {@code inbox.outcome}.
 */
public enum DeliveryOutcome {
    /** The method ran and its transaction committed; the message is acknowledged. */
    PROCESSED("processed"),
    /** The consumer had already processed the event id with the same payload: skipped and acknowledged. */
    DUPLICATE("duplicate"),
    /**
     * The consumer had already processed the event id with a different payload (its SHA-256 differs): skipped,
     * dead-lettered with the details (INBOX0102E / INBOX0103E) and acknowledged.
     */
    FINGERPRINT_MISMATCH("fingerprint-mismatch"),
    /**
     * A re-driven record aimed at another consumer of the topic (header {@code inbox-redrive-consumer}): skipped
     * without a claim or effect, and acknowledged.
     */
    AIMED_ELSEWHERE("aimed-elsewhere"),
    /** Recorded as a dead letter (failure policy, unusable event id, unprocessable event) and acknowledged. */
    DEAD_LETTERED("dead-lettered"),
    /**
     * A failure left the interceptor: the message stays unacknowledged and is delivered again (the application
     * stopped during a retry wait, or the caller's own transaction failed).
     */
    RETRIED("retried");

    private final String value;

    DeliveryOutcome(String value) {
        this.value = value;
    }

    /** @return the attribute value: {@code processed}, {@code duplicate}, ... */
    public String value() {
        return value;
    }
}
