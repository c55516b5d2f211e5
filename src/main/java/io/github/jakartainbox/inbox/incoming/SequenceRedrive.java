package io.github.jakartainbox.inbox.incoming;

/**
 * A re-drive of one key's sequence (dead-letter order by key) running on this thread: while it delivers the sequence's
 * records to the consumer's method, the delivery paths let records of that consumer and key through instead of
 * parking them, and report here how each delivery ended.
 */
public final class SequenceRedrive {

    /** How a delivery of the sequence ended. */
    public enum Outcome {
        /** Claimed and processed, committed. */
        PROCESSED,
        /** Skipped: its consumer had processed the event already. */
        DUPLICATE,
        /** Dead-lettered ({@link #deadLetterId()}). */
        DEAD_LETTERED
    }

    private static final ThreadLocal<SequenceRedrive> CURRENT = new ThreadLocal<>();

    private final String consumer;
    private final String key;
    private Outcome outcome;
    private Long deadLetterId;

    /**
     * @param consumer the consumer's stored name
     * @param key      the record key of the sequence
     */
    public SequenceRedrive(String consumer, String key) {
        this.consumer = consumer;
        this.key = key;
    }

    /**
     * @param consumer a consumer's stored name
     * @param key      a record key, may be {@code null}
     * @return whether this thread is re-driving that consumer's sequence of that key
     */
    public static boolean running(String consumer, String key) {
        SequenceRedrive current = CURRENT.get();
        return current != null && current.consumer.equals(consumer) && current.key.equals(key);
    }

    /** @return the re-drive running on this thread, {@code null} when none */
    public static SequenceRedrive current() {
        return CURRENT.get();
    }

    /**
     * Runs one delivery of the sequence on this thread.
     *
     * @param delivery what delivers the record
     * @return how it ended; {@code null} when no delivery path reported (the method was not reached through the inbox)
     * @throws Exception what the delivery threw
     */
    public Outcome run(java.util.concurrent.Callable<?> delivery) throws Exception {
        outcome = null;
        deadLetterId = null;
        CURRENT.set(this);
        try {
            delivery.call();
        } finally {
            CURRENT.remove();
        }
        return outcome;
    }

    /** @return how the delivery ended so far, {@code null} when no delivery path reported yet */
    public Outcome outcome() {
        return outcome;
    }

    /** @param outcome how the delivery ended, as a delivery path saw it; {@code null} before another attempt */
    public void ended(Outcome outcome) {
        this.outcome = outcome;
    }

    /** @param id the dead letter the delivery was recorded in */
    public void deadLettered(long id) {
        this.outcome = Outcome.DEAD_LETTERED;
        this.deadLetterId = id;
    }

    /** @return the dead letter of a delivery that ended {@link Outcome#DEAD_LETTERED}, else {@code null} */
    public Long deadLetterId() {
        return deadLetterId;
    }
}
