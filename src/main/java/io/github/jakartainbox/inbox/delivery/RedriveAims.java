package io.github.jakartainbox.inbox.delivery;

import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.consumer.IdempotentChannels;
import io.github.jakartainbox.inbox.claim.ClaimKey;
import io.github.jakartainbox.inbox.deadletter.InboxDeadLetters;
import io.github.jakartainbox.inbox.failure.FailureKind;
import io.github.jakartainbox.inbox.failure.FailurePolicy;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.incoming.RedriveAim;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import io.github.jakartainbox.inbox.text.Printable;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Decides whether a record aimed at another consumer ({@link InboxDeadLetters#REDRIVE_CONSUMER_HEADER}) may be
 * skipped: only when the database confirms that the service itself re-drove it
 * ({@link InboxDeadLetters#confirmsRedriveAim}). Any producer, or a bridge copying headers between topics, can write
 * the header; a record whose aim is not confirmed is processed as any other, and the rejection is counted and logged
 * ({@code INBOX0105W}, at most once a minute per consumer).
 */
@ApplicationScoped
public class RedriveAims {

    /** The least time between two INBOX0105W lines of one consumer: a producer that sends many cannot flood the log. */
    static final long LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    @Inject
    InboxDeadLetters deadLetters;
    @Inject
    InboxStatistics statistics;
    @Inject
    IdempotentChannels channels;

    private final Map<String, Long> lastLogged = new ConcurrentHashMap<>();

    /**
     * Whether a delivery is a re-drive aimed at another consumer that the database confirms: it is then skipped
     * without a claim and logged ({@code INBOX0104I}), its span ended as aimed elsewhere; the caller counts it when
     * its transaction commits and settles the delivery.
     *
     * @param call          the delivery
     * @param inTransaction whether a transaction is active ({@link #confirmed})
     * @return whether the delivery is to be skipped
     * @throws SQLException in a transaction, when the database cannot be read
     * @throws InterruptedException when interrupted while waiting for the database
     */
    public boolean aimedElsewhere(DeliveryCall call, boolean inTransaction) throws SQLException, InterruptedException {
        Message<?> carrier = RedriveAim.carrier(call.delivery());
        String aim = RedriveAim.aimedAt(carrier);
        String consumer = call.consumer().name();
        if (aim == null || aim.equals(consumer)
                || !confirmed(call.consumer(), call.key(), call.delivery().fingerprint(), carrier, aim, inTransaction)) {
            return false;
        }
        // a re-drive for another consumer of the topic, confirmed by its dead letter: no claim, no effect
        InboxMessage.INBOX0104I.log(consumer, String.valueOf(carrier), String.valueOf(RedriveAim.deadLetterOf(carrier)),
                aim);
        call.span().outcome(DeliveryOutcome.AIMED_ELSEWHERE, null);
        return true;
    }

    /**
     * @param consumer      the consumer the record was delivered to
     * @param key           the delivery's claim key, whose event id the dead letter must name
     * @param payloadSha256 the SHA-256 of the delivery's payload ({@link io.github.jakartainbox.inbox.incoming.Delivery#fingerprint()}),
     *                      which the dead letter's must equal; {@code null} for a null payload
     * @param carrier       the Kafka record's message
     * @param aim           the consumer named by the record's aim header, not {@code consumer}'s own name
     * @param inTransaction whether a transaction is active: a database failure is then thrown to its owner; outside
     *                      one, an outage or a transient failure waits by the consumer's failure policy, and any
     *                      other failure leaves the aim unconfirmed (the record is processed, its claim decides)
     * @return {@code true} when the database confirms the aim: the record may be skipped
     * @throws SQLException in a transaction, when the database cannot be read
     * @throws InterruptedException when interrupted while waiting for the database
     */
    boolean confirmed(ConsumerSettings consumer, ClaimKey key, byte[] payloadSha256, Message<?> carrier, String aim,
                      boolean inTransaction) throws SQLException, InterruptedException {
        String named = RedriveAim.deadLetterOf(carrier);
        Long id = deadLetterId(named);
        String eventId = null;
        if (id != null) {
            try {
                eventId = key.eventId();
            } catch (RuntimeException unusable) {
                // no usable event id: no re-drive can carry such a record (INBOX0226E); processed, it is dead-lettered
            }
        }
        String topic = Delivery.topicOf(carrier); // a re-drive to this topic, not a copy of one sent elsewhere
        // an aim at a consumer this application runs on no channel of the topic (a message-driven bean whose queue
        // bears the topic's name) is no re-drive to it here
        boolean readable = topic != null && (channels == null
                || channels.mayRead(aim, topic, ConfigProvider.getConfig()));
        boolean confirmed = eventId != null && readable
                && confirmedByDatabase(consumer, id, aim, eventId, payloadSha256, topic, inTransaction);
        if (!confirmed) {
            long rejected = statistics.redriveAimRejected(consumer.name());
            long now = System.nanoTime();
            Long last = lastLogged.get(consumer.name());
            if (last == null || now - last >= LOG_INTERVAL_NANOS) {
                lastLogged.put(consumer.name(), now);
                // the headers are the producer's: quoted escaped and cut, so that they cannot forge or flood log lines
                InboxMessage.INBOX0105W.log(consumer.name(), String.valueOf(carrier), Printable.of(aim, 60),
                        Printable.of(named, 60), String.valueOf(rejected));
            }
        }
        return confirmed;
    }

    private boolean confirmedByDatabase(ConsumerSettings consumer, long id, String aim, String eventId,
                                        byte[] payloadSha256, String topic, boolean inTransaction)
            throws SQLException, InterruptedException {
        FailurePolicy.Tracker failures = null;
        while (true) {
            try {
                return deadLetters.confirmsRedriveAim(id, aim, eventId, payloadSha256, topic);
            } catch (SQLException e) {
                if (inTransaction) {
                    throw e;
                }
                if (failures == null) {
                    failures = consumer.failurePolicy().newDelivery();
                }
                FailurePolicy.Decision decision = failures.failed(e);
                if (decision.kind() != FailureKind.OUTAGE && decision.kind() != FailureKind.TRANSIENT
                        || decision.action() == FailurePolicy.Action.DEAD_LETTER) {
                    return false;
                }
                Duration wait = decision.delay();
                InboxMessage.INBOX0206W.log(consumer.name(), eventId, String.valueOf(wait.toMillis()), e.getMessage());
                Thread.sleep(wait.toMillis());
            }
        }
    }

    /** @return the dead letter id of the header's value, {@code null} when it is none (absent, not a positive number) */
    static Long deadLetterId(String header) {
        if (header == null || header.isEmpty() || header.length() > 19) {
            return null;
        }
        for (int i = 0; i < header.length(); i++) {
            if (header.charAt(i) < '0' || header.charAt(i) > '9') {
                return null;
            }
        }
        try {
            long id = Long.parseLong(header);
            return id > 0 ? id : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
