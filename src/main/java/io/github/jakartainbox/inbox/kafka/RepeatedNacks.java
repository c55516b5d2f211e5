package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.failure.Failures;

/**
 * The one message a channel's consumer keeps failing on, so that its log says so once and then in summaries: a
 * method without {@code @Idempotent} that fails on a record each time (one writing through JPA with no transaction)
 * gave an {@code INBOX0604E} line every second, for as long as it ran. Used by the consumer's poll thread only.
 */
final class RepeatedNacks {

    private String position;
    private long deliveries;

    /**
     * @param at where the message failed, {@code <topic>-<partition>@<offset>}
     * @return how often it has failed in a row, this time included
     */
    long failed(String at) {
        if (!at.equals(position)) {
            position = at;
            deliveries = 0;
        }
        return ++deliveries;
    }

    /**
     * Counts a failed delivery and logs it the first time ({@code INBOX0604E}) and then at 10, 100, 1,000 failures in
     * a row ({@code INBOX0620E}); the caller waits {@link InboxKafkaChannel#RETRY_MILLIS} before the next delivery.
     *
     * @param channel the channel's name
     * @param at      where the message failed, {@code <topic>-<partition>@<offset>}
     * @param reason  why it failed: the nack's reason
     */
    void failed(String channel, String at, Throwable reason) {
        long times = failed(at);
        if (times == 1) {
            KafkaMessage.INBOX0604E.log(channel, at, Failures.describe(reason),
                    String.valueOf(InboxKafkaChannel.RETRY_MILLIS));
        } else if (worthALine(times)) {
            KafkaMessage.INBOX0620E.log(channel, at, String.valueOf(times), Failures.describe(reason),
                    String.valueOf(InboxKafkaChannel.RETRY_MILLIS), String.valueOf(nextLine(times)));
        }
    }

    /** The message at the head went through: the next failure is news. */
    void settled() {
        position = null;
        deliveries = 0;
    }

    /** @return whether a message failing for the given time in a row is worth a log line: 1, 10, 100, 1,000 ... */
    static boolean worthALine(long deliveries) {
        long power = 1;
        while (power < deliveries) {
            power *= 10;
        }
        return power == deliveries;
    }

    /** @return the next count {@link #worthALine} answers true for after {@code deliveries} */
    static long nextLine(long deliveries) {
        long power = 1;
        while (power <= deliveries) {
            power *= 10;
        }
        return power;
    }
}
