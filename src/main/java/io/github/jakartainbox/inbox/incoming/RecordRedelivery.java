package io.github.jakartainbox.inbox.incoming;

/**
 * Delivers a stored record to its consumer's method again, on the calling thread and through the inbox (the
 * method's interceptor claims it), as a re-drive of a key's sequence does. A transport brings it as a bean (the
 * {@code kafka} and {@code jms} packages), so that the dead-letter floor calls a consumer's method without naming
 * the transport.
 */
public interface RecordRedelivery {

    /**
     * @param consumer a consumer's stored name
     * @return whether this transport runs that consumer's method in this application
     */
    boolean delivers(String consumer);

    /**
     * Calls the consumer's method with the record, on the calling thread, which has no transaction: the inbox begins
     * the attempts' transactions, retries and dead-letters as for any delivery.
     *
     * @param consumer the consumer's stored name
     * @param record   the record's key, position and headers
     * @param value    its value as the channel's deserializer gave it: text, bytes, or {@code null}
     * @throws Exception what the method's call threw past the inbox (the application stopping)
     */
    void deliver(String consumer, KeyedRecord record, Object value) throws Exception;
}
