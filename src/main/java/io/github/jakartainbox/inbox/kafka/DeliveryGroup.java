package io.github.jakartainbox.inbox.kafka;


/**
 * The group of deliveries the {@code inbox-kafka} connector is running in one JTA transaction on the calling thread
 * ({@code InboxKafkaConnector}, {@code group.max-size} above 1). While one is set, the interceptor hands each
 * delivery to {@link GroupPath}, which joins the group's transaction and reports a failure here instead of retrying
 * or dead-lettering: the connector then rolls the whole group back and hands each of its messages to the interceptor
 * again, one by one, outside any transaction (the own-transaction path with its retries, dead letters and
 * fingerprints).
 */
public final class DeliveryGroup {

    private final java.util.List<Runnable> afterCommit = new java.util.ArrayList<>();

    private static final ThreadLocal<DeliveryGroup> CURRENT = new ThreadLocal<>();

    /**
     * The claim of the whole group ({@link GroupClaims}, made by {@link GroupPath}): made at the group's first delivery,
     * consulted by the others; {@code null} until then, or for good when the group is claimed message by message.
     */
    interface Claims {

        /**
         * Called by the connector before it commits the group: gives back what was claimed for messages that were
         * not delivered (the group was cut short).
         *
         * @param delivered how many of the group's messages were delivered, from the first
         * @throws Exception when that fails; the group then rolls back
         */
        public void beforeCommit(int delivered) throws Exception;
    }

    private final java.util.List<org.eclipse.microprofile.reactive.messaging.Message<?>> messages;
    private final boolean multiRowClaim;
    private int position = -1;
    private Claims claims;
    private boolean claimsTried;
    private volatile Throwable failure;
    /** The record keys of this group whose consumer has an open sequence (dead-letter order), read once. */
    private java.util.Set<String> openKeys;

    /** A group claimed message by message (tests, and {@code group.claim=per-message}). */
    public DeliveryGroup() {
        this(java.util.List.of(), false);
    }

    /**
     * @param messages      the messages the connector may deliver in this group, in order
     * @param multiRowClaim whether the group's events are claimed with one statement at its first delivery
     *                      ({@code group.claim=multi-row})
     */
    public DeliveryGroup(java.util.List<org.eclipse.microprofile.reactive.messaging.Message<?>> messages,
                  boolean multiRowClaim) {
        this.messages = messages;
        this.multiRowClaim = multiRowClaim;
    }

    /** @return the messages the connector may deliver in this group, in order */
    public java.util.List<org.eclipse.microprofile.reactive.messaging.Message<?>> messages() {
        return messages;
    }

    /** @return whether the group's events are claimed with one statement */
    public boolean multiRowClaim() {
        return multiRowClaim && !messages.isEmpty();
    }

    /** @param index the index in {@link #messages()} of the message being delivered now */
    public void at(int index) {
        position = index;
    }

    /** @return the index in {@link #messages()} of the message being delivered now */
    public int position() {
        return position;
    }

    /** @return the group's claim, {@code null} when none was made */
    public Claims claims() {
        return claims;
    }

    /** @return whether a claim of the whole group was tried (made, or found impossible) */
    public boolean claimsTried() {
        return claimsTried;
    }

    /** @param claims the group's claim, {@code null} when the group is claimed message by message */
    public void claims(Claims claims) {
        this.claims = claims;
        this.claimsTried = true;
    }

    /**
     * Called by the connector just before it commits the group.
     *
     * @param delivered how many of the group's messages were delivered, from the first
     * @throws Exception when the group's claim cannot give back what it claimed for the others
     */
    public void beforeCommit(int delivered) throws Exception {
        if (claims != null) {
            claims.beforeCommit(delivered);
        }
    }

    /**
     * @param action what to do once the group's transaction has committed, such as counting a skipped duplicate: a
     *               group that rolls back is delivered again one by one, where each delivery counts for itself, so a
     *               figure counted before the commit would count twice
     */
    public void afterCommit(Runnable action) {
        afterCommit.add(action);
    }

    /** Called by the connector right after the group's transaction committed: runs the {@link #afterCommit} actions. */
    public void committed() {
        afterCommit.forEach(Runnable::run);
        afterCommit.clear();
    }

    /** @return the keys of the group's records that are parked behind a dead letter, {@code null} until read */
    public java.util.Set<String> openKeys() {
        return openKeys;
    }

    /** @param keys the keys of the group's records that are parked behind a dead letter */
    public void openKeys(java.util.Set<String> keys) {
        this.openKeys = keys;
    }

    /** @return the group running on the calling thread, {@code null} outside one */
    public static DeliveryGroup current() {
        return CURRENT.get();
    }

    /** Makes this group the calling thread's until {@link #leave()}. */
    public void enter() {
        CURRENT.set(this);
    }

    /** Ends the calling thread's group. */
    public void leave() {
        CURRENT.remove();
    }

    /** @param reason why a delivery of the group failed: the group rolls back, its first failure is kept */
    public void failed(Throwable reason) {
        if (failure == null) {
            failure = reason == null ? new IllegalStateException("failed without a reason") : reason;
        }
    }

    /** @return the first failure in the group, {@code null} while none */
    public Throwable failure() {
        return failure;
    }
}
