package io.github.jakartainbox.inbox;

/**
 * The group of deliveries the {@code inbox-kafka} connector is running in one JTA transaction on the calling thread
 * ({@link InboxKafkaConnector}, {@code group.max-size} above 1). While one is set, {@link IdempotentInterceptor}
 * joins the group's transaction and reports a failure here instead of retrying or dead-lettering: the connector then
 * rolls the whole group back and hands each of its messages to the interceptor again, one by one, outside any
 * transaction (the per-message path with its retries, dead letters and fingerprints).
 */
final class DeliveryGroup {

    private static final ThreadLocal<DeliveryGroup> CURRENT = new ThreadLocal<>();

    private volatile Throwable failure;
    private int processed;
    private int duplicates;

    /** @return the group running on the calling thread, {@code null} outside one */
    static DeliveryGroup current() {
        return CURRENT.get();
    }

    /** Makes this group the calling thread's until {@link #leave()}. */
    void enter() {
        CURRENT.set(this);
    }

    /** Ends the calling thread's group. */
    void leave() {
        CURRENT.remove();
    }

    /** @param reason why a delivery of the group failed: the group rolls back, its first failure is kept */
    void failed(Throwable reason) {
        if (failure == null) {
            failure = reason == null ? new IllegalStateException("failed without a reason") : reason;
        }
    }

    /** @return the first failure in the group, {@code null} while none */
    Throwable failure() {
        return failure;
    }

    void processed() {
        processed++;
    }

    void duplicate() {
        duplicates++;
    }

    /** @return deliveries of the group whose method ran */
    int processedCount() {
        return processed;
    }

    /** @return deliveries of the group skipped as duplicates */
    int duplicateCount() {
        return duplicates;
    }
}
