package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.claim.ClaimKey;
import io.github.jakartainbox.inbox.claim.InboxClaim;
import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.incoming.RedriveAim;
import java.lang.reflect.Method;
import java.sql.SQLException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * The claim of a whole group of the {@code inbox-kafka} connector ({@code group.claim=multi-row}): at the group's
 * first delivery the event ids, fingerprints and months of all its messages are read as the method will receive
 * them, and claimed with one statement ({@link InboxClaim#claimAll}); each delivery then takes its result instead
 * of an INSERT of its own. A delivery that is not, by reference, the message and payload read ahead (a converter
 * between the Kafka value and the method's parameter type makes a new one) reads its own event id, and if it differs
 * from the one read ahead the group fails and rolls back, so that no event is ever claimed that was not the one
 * processed. Before it commits ({@link #beforeCommit}) a group gives back the claims of the messages it did not
 * deliver (it was cut short), and resolves the open dead letters of the events it processed.
 */
public final class GroupClaims implements DeliveryGroup.Claims {

    private final InboxClaim inbox;
    private final String consumer;
    private final List<InboxClaim.Claim> claims;
    private final InboxClaim.Result[] results;
    /** What each message's delivery was predicted to be when its event id was read ahead. */
    private final List<Delivery> predicted;
    /** The positions whose records were parked behind a dead letter instead of being delivered. */
    private final java.util.BitSet parked = new java.util.BitSet();

    GroupClaims(InboxClaim inbox, String consumer, List<InboxClaim.Claim> claims,
                        InboxClaim.Result[] results, List<Delivery> predicted) {
        this.inbox = inbox;
        this.consumer = consumer;
        this.claims = claims;
        this.results = results;
        this.predicted = predicted;
    }

    /**
     * Reads every message's event id ahead and claims them all in the current transaction.
     *
     * @param method   the channel's method
     * @param consumer its consumer's settings
     * @param messages the group's messages, in order
     * @param inbox    the claim
     * @return the group's claims, or {@code null} when a message's event id (or month) cannot be read: the group
     *         is then claimed message by message, and that message fails it as it would have
     * @throws SQLException when the claim fails; the group rolls back
     */
    public static GroupClaims claim(Method method, ConsumerSettings consumer, List<Message<?>> messages, InboxClaim inbox)
            throws SQLException {
        List<InboxClaim.Claim> claims = new ArrayList<>(messages.size());
        List<Delivery> predicted = new ArrayList<>(messages.size());
        for (Message<?> message : messages) {
            if (RedriveAim.aimedAt(message) != null) {
                // a re-drive aimed at one consumer: the others must not claim it, so the group claims one by one
                return null;
            }
            Delivery delivery = Delivery.predicted(method, message);
            predicted.add(delivery);
            try {
                claims.add(ClaimKey.of(consumer, delivery, inbox).claim());
            } catch (RuntimeException e) {
                return null;
            }
        }
        return new GroupClaims(inbox, consumer.name(), claims, inbox.claimAll(consumer.name(), claims), predicted);
    }

    /**
     * The claim read ahead for a delivery that is the very one predicted: the same message object and the same
     * payload object (by reference), as when no converter stands between the record and the method. Its event id,
     * fingerprint and month were read from these same objects, so they are not read again.
     *
     * @param position the message's index in the group
     * @param delivery the delivery the method receives
     * @return the claim read ahead, or {@code null} when the delivery differs from the prediction by reference (the
     *         caller then reads the event id itself and checks it with {@link #result})
     */
    public InboxClaim.Claim readAheadFor(int position, Delivery delivery) {
        Delivery ahead = predicted.get(position);
        return ahead.payload() == delivery.payload() && ahead.message() == delivery.message()
                && ahead.payload() != null ? claims.get(position) : null;
    }

    /**
     * @param position    the message's index in the group
     * @param eventId     the event id the delivery read
     * @param fingerprint its fingerprint
     * @param month       its month in partitioned mode, else {@code null}
     * @return what the group's claim found for it
     * @throws ReadAheadMismatch when the delivery's event differs from the one read ahead for it
     */
    public InboxClaim.Result result(int position, String eventId, byte[] fingerprint, LocalDate month) {
        InboxClaim.Claim ahead = claims.get(position);
        if (!ahead.sameAs(eventId, fingerprint, month)) {
            throw new ReadAheadMismatch(KafkaMessage.INBOX0610W.format(consumer, ahead.eventId(), eventId));
        }
        return results[position];
    }

    /** @param position a message of the group that was parked, not delivered: its claim is given back */
    public void parked(int position) {
        parked.set(position);
    }

    @Override
    public void beforeCommit(int delivered) throws SQLException {
        List<InboxClaim.Claim> processed = new ArrayList<>();
        List<InboxClaim.Claim> undelivered = new ArrayList<>();
        for (int i = 0; i < claims.size(); i++) {
            if (results[i] == InboxClaim.Result.NEW) {
                (i < delivered && !parked.get(i) ? processed : undelivered).add(claims.get(i));
            }
        }
        inbox.release(consumer, undelivered);
        inbox.resolveDeadLetters(consumer, processed);
    }

    /** A delivery's event is not the one read ahead for it: the group rolls back. */
    public static final class ReadAheadMismatch extends IllegalStateException {
      public   ReadAheadMismatch(String message) {
            super(message);
        }
    }
}
