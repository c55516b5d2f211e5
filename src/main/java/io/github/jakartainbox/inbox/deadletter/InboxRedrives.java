package io.github.jakartainbox.inbox.deadletter;

import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.database.InboxTransactions;
import io.github.jakartainbox.inbox.incoming.RedriveAim;
import io.github.jakartainbox.inbox.logging.InboxLog;
import io.github.jakartainbox.inbox.text.Utf8;
import io.github.jakartainbox.inbox.deadletter.InboxDeadLetters.DeadLetter;
import io.github.jakartainbox.inbox.deadletter.InboxDeadLetters.RedriveClaim;
import io.github.jakartainbox.inbox.deadletter.InboxDeadLetters.SentRecord;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Re-drives dead letters by the rules every adopter needs: refuses one that would fail again or be skipped, or that
 * would undo an operator's discard; claims the row exclusively ({@link InboxDeadLetters#claimRedrive}); sends the
 * stored payload through the application's {@link Sender}; marks the row with a history entry, or gives the claim
 * back. The application maps each {@link Status} to its own answer (the example: HTTP status and message id).
 *
 * <p>A re-drive is <em>aimed</em> at the dead letter's own consumer by default: the record carries header
 * {@link InboxDeadLetters#REDRIVE_CONSUMER_HEADER}, and every other {@code @Idempotent} consumer of the topic
 * acknowledges and skips it without effect ({@code INBOX0104I}, level FINE), whatever its inbox holds, once the
 * database confirms the aim ({@link InboxDeadLetters#confirmsRedriveAim}); a record whose aim it does not confirm is
 * processed as any other ({@code INBOX0105W}). The aimed
 * consumer processes it unless its inbox already holds the event (then it is a duplicate, which the rules refuse
 * before sending). An un-aimed re-drive reaches every consumer of the destination, each deciding by its inbox; it is
 * refused when a consumer whose dead letter for the event was discarded would process it.
 */
@ApplicationScoped
public class InboxRedrives {

    /**
     * Sends a dead letter's payload again; called after the row is claimed.
     */
    @FunctionalInterface
    public interface Sender {
        /**
         * @param letter  the dead letter
         * @param payload its stored payload, byte for byte as it arrived
         * @param headers the Kafka headers the record must carry (UTF-8 values):
         *                {@link InboxDeadLetters#REDRIVE_DEAD_LETTER_HEADER}, and
         *                {@link InboxDeadLetters#REDRIVE_CONSUMER_HEADER} when aimed. A JMS queue has one consumer,
         *                so nothing needs aiming there (and these names are no valid JMS property names)
         * @return where the record went, {@code null} when not known
         * @throws Exception when the send failed or its outcome is unknown: the claim is given back, the row stays open
         */
        SentRecord send(DeadLetter letter, byte[] payload, Map<String, String> headers) throws Exception;
    }

    /**
     * Where one consumer's dead letters are sent again.
     *
     * @param destination   the topic or queue, for the history
     * @param readers       the inbox names of every consumer that reads the destination, the consumer's own included
     * @param textOnly      whether the destination takes UTF-8 text only (a JMS text message, an outbox row): a
     *                      payload that is no such text is refused ({@link Status#NOT_TEXT})
     * @param transactional whether the send joins a JTA transaction that also marks the row (an outbox row): the
     *                      library begins it; the send and the mark commit together or not at all
     * @param sender        the send
     */
    public record Route(String destination, Set<String> readers, boolean textOnly, boolean transactional,
                        Sender sender) {
        /**
         * @throws NullPointerException     when a part is {@code null}
         * @throws IllegalArgumentException when {@code readers} is empty
         */
        public Route {
            Objects.requireNonNull(destination, "destination");
            Objects.requireNonNull(sender, "sender");
            readers = Set.copyOf(readers);
            if (readers.isEmpty()) {
                throw new IllegalArgumentException("a route needs at least one reader");
            }
        }
    }

    /** How a re-drive ended; every status but {@link #REDRIVEN} left the row as it was. */
    public enum Status {
        /** Sent and marked re-driven. */
        REDRIVEN,
        /** No dead letter with that id. */
        NOT_FOUND,
        /** Already re-driven or discarded ({@link Outcome#letter()} says by whom). */
        NOT_OPEN,
        /** Its consumer has no route in this application: re-drive it from the application that runs it. */
        UNKNOWN_CONSUMER,
        /** It has no usable event id: a redelivery could not be told from another event; it would fail again. */
        NO_EVENT_ID,
        /** Its consumer processed the event after this delivery first failed: nothing is left to do. */
        PROCESSED_SINCE,
        /**
         * Its consumer had processed the event before this payload arrived under the same id (INBOX0103E): the
         * re-drive would be skipped as a duplicate.
         */
        PROCESSED_BEFORE,
        /**
         * Un-aimed only: another reader, whose dead letter for the event was discarded and which has not processed
         * it, would process it ({@link Outcome#otherDiscarded()}).
         */
        DISCARDED_ELSEWHERE,
        /** No payload was stored with it. */
        NO_PAYLOAD,
        /** The route takes UTF-8 text and the payload is none (or holds U+0000). */
        NOT_TEXT,
        /** Another re-drive holds a live claim on it ({@link Outcome#claim()} says who, since and until when). */
        TAKEN,
        /** The send (or, transactional, its commit) failed ({@link Outcome#failure()}); the claim was given back. */
        SEND_FAILED,
        /** The row changed between the claim and the mark (it failed again, or was resolved). */
        CHANGED,
        /** {@link #discard}: discarded. */
        DISCARDED
    }

    /**
     * The outcome of {@link #check} or {@link #redrive}.
     *
     * @param status         how it ended
     * @param id             the dead letter's id
     * @param letter         the row as read (after a refused claim: as it is now); {@code null} for
     *                       {@link Status#NOT_FOUND}
     * @param target         the consumer the record is (or would be) aimed at, {@code null} when un-aimed
     * @param processedAt    {@link Status#PROCESSED_SINCE}, {@link Status#PROCESSED_BEFORE}: when the consumer
     *                       processed the event
     * @param otherDiscarded {@link Status#DISCARDED_ELSEWHERE}: the other consumer's discarded dead letter
     * @param claim          {@link Status#TAKEN}: who holds the claim; {@link Status#REDRIVEN}: the claim used
     * @param failure        {@link Status#SEND_FAILED}: why
     * @param sent           {@link Status#REDRIVEN}: where the record went, {@code null} when not known
     * @param route          the consumer's route, {@code null} before it was known
     */
    public record Outcome(Status status, long id, DeadLetter letter, String target, OffsetDateTime processedAt,
                          DeadLetter otherDiscarded, RedriveClaim claim, Throwable failure, SentRecord sent,
                          Route route) {

        /** @return whether the rules let it be sent ({@link #check}: it would be claimed next) */
        public boolean allowed() {
            return status == Status.REDRIVEN;
        }
    }

    /** The row changed between the claim and the mark, inside a transactional send: rolls it back. */
    private static final class Changed extends Exception {
        Changed() {
            super("the dead letter changed while it was re-driven", null, false, false);
        }
    }

    @Inject
    InboxDeadLetters deadLetters;

    @Inject
    InboxTransactions transactions;

    /**
     * The rules alone, without claiming or sending: what {@link #redrive} would refuse, in the order it checks.
     *
     * @param id     the dead letter's id
     * @param routes the route of a consumer (by inbox name); empty for a consumer this application does not run
     * @param aimed  {@code true}: aimed at the dead letter's own consumer, the other readers skip the record;
     *               {@code false}: every reader of the destination may process it
     * @return {@link Status#REDRIVEN} (read: allowed) with the row and route, or the refusal
     * @throws SQLException when the database cannot be read
     */
    public Outcome check(long id, Function<String, Optional<Route>> routes, boolean aimed) throws SQLException {
        return plan(id, routes, aimed).outcome;
    }

    /**
     * Re-drives one dead letter: {@link #check}, then {@link InboxDeadLetters#claimRedrive} in a transaction of its
     * own, the send, and {@link InboxDeadLetters#markRedriven(RedriveClaim, String, String, SentRecord)}; a failed
     * send or a changed row gives the claim back. Must run without a JTA transaction.
     *
     * @param id       the dead letter's id
     * @param routes   the route of a consumer (by inbox name); empty for a consumer this application does not run
     * @param aimed    {@code true}: aimed at the dead letter's own consumer (the default an application should
     *                 offer: the others are left alone); {@code false}: every reader of the destination
     * @param operator who re-drives it (the caller's principal), for the claim, {@code resolved_by} and the history
     * @return how it ended
     * @throws IllegalStateException (INBOX0240E) inside a JTA transaction
     * @throws SQLException when the database cannot be read or written (the claim, if taken, expires after
     *                      {@code inbox.dead-letter.redrive-lease})
     */
    public Outcome redrive(long id, Function<String, Optional<Route>> routes, boolean aimed, String operator)
            throws SQLException {
        Plan plan = plan(id, routes, aimed);
        if (!plan.outcome.allowed()) {
            return plan.outcome;
        }
        Outcome checked = plan.outcome;
        RedriveClaim claim = deadLetters.claimRedrive(id, operator);
        switch (claim.status()) {
            case CLAIMED:
                break;
            case TAKEN:
                return new Outcome(Status.TAKEN, id, checked.letter(), checked.target(), null, null, claim, null, null,
                        checked.route());
            case NOT_OPEN:
                return new Outcome(Status.NOT_OPEN, id, deadLetters.find(id).orElse(checked.letter()), checked.target(),
                        null, null, null, null, null, checked.route());
            default:
                return new Outcome(Status.NOT_FOUND, id, null, null, null, null, null, null, null, checked.route());
        }
        Route route = checked.route();
        Map<String, String> headers = headers(checked.letter(), checked.target());
        try {
            SentRecord sent;
            if (route.transactional()) {
                sent = transactions.inOwnTransaction(() -> {
                    SentRecord s = route.sender().send(checked.letter(), plan.payload, headers);
                    if (!deadLetters.markRedriven(claim, operator, checked.target(), s)) {
                        throw new Changed(); // rolls the send back with it
                    }
                    return s;
                });
            } else {
                sent = route.sender().send(checked.letter(), plan.payload, headers);
                if (!deadLetters.markRedriven(claim, operator, checked.target(), sent)) {
                    release(claim);
                    recordSent(claim, operator, checked.target(), sent); // it went out: the history says so
                    return new Outcome(Status.CHANGED, id, checked.letter(), checked.target(), null, null, claim, null,
                            sent, route);
                }
            }
            return new Outcome(Status.REDRIVEN, id, checked.letter(), checked.target(), null, null, claim, null, sent,
                    route);
        } catch (Changed e) {
            release(claim);
            return new Outcome(Status.CHANGED, id, checked.letter(), checked.target(), null, null, claim, null, null,
                    route);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            release(claim); // the row stays open, and the next re-drive may claim it at once
            return new Outcome(Status.SEND_FAILED, id, checked.letter(), checked.target(), null, null, claim, e, null,
                    route);
        }
    }

    /**
     * Discards an open dead letter ({@link InboxDeadLetters#discard}), saying why not when it cannot.
     *
     * @param id       the dead letter's id
     * @param operator who discards it (the caller's principal), for {@code resolved_by} and the history
     * @return {@link Status#DISCARDED}; {@link Status#NOT_FOUND}; {@link Status#NOT_OPEN} (the row as it is, naming
     *         who resolved it); {@link Status#TAKEN} when a re-drive holds a live claim on it ({@link Outcome#claim()}
     *         says who, since and until when: its record may be on its way); {@link Status#CHANGED} otherwise
     * @throws SQLException when the database cannot be read or written
     */
    public Outcome discard(long id, String operator) throws SQLException {
        Optional<DeadLetter> found = deadLetters.find(id);
        if (found.isEmpty()) {
            return refused(Status.NOT_FOUND, id, null, null, null).outcome;
        }
        if (!found.get().open()) {
            return refused(Status.NOT_OPEN, id, found.get(), null, null).outcome;
        }
        if (deadLetters.discard(id, operator)) {
            return refused(Status.DISCARDED, id, found.get(), null, null).outcome;
        }
        DeadLetter now = deadLetters.find(id).orElse(null);
        if (now == null) {
            return refused(Status.NOT_FOUND, id, null, null, null).outcome;
        }
        if (!now.open()) {
            return refused(Status.NOT_OPEN, id, now, null, null).outcome;
        }
        if (now.redriveClaimedAt() != null) {
            RedriveClaim claim = new RedriveClaim(InboxDeadLetters.ClaimStatus.TAKEN, id, now.redriveClaimedBy(),
                    now.redriveClaimedAt(), now.redriveClaimedAt().plus(deadLetters.redriveLease()),
                    now.lastFailedAt());
            return new Outcome(Status.TAKEN, id, now, null, null, null, claim, null, null, null);
        }
        return refused(Status.CHANGED, id, now, null, null).outcome;
    }

    /**
     * @param letter the dead letter
     * @param target the consumer the record is aimed at, {@code null} for every consumer
     * @return the Kafka headers its re-sent record carries
     */
    public static Map<String, String> headers(DeadLetter letter, String target) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(InboxDeadLetters.REDRIVE_DEAD_LETTER_HEADER, String.valueOf(letter.id()));
        if (target != null) {
            headers.put(InboxDeadLetters.REDRIVE_CONSUMER_HEADER, target);
        }
        return headers;
    }

    /**
     * The consumer a re-driven Kafka record is aimed at: the UTF-8 value of its last
     * {@link InboxDeadLetters#REDRIVE_CONSUMER_HEADER} header, as written: any producer can write it. A consumer
     * without the inbox (its method reads the record through {@code Message}) that skips records aimed at others must
     * confirm the aim with {@link InboxDeadLetters#confirmsRedriveAim} first, as the inbox does. The inbox
     * reaches the record through a method's {@code Message} argument, or, on the {@code inbox-kafka} connector, for a
     * method taking only the payload too; on {@code liberty-kafka} such a method's records cannot be told apart.
     *
     * @param message a delivered message, may be {@code null}
     * @return the consumer's inbox name; {@code null} when the message is no Kafka record or carries no such header
     */
    public static String aimedAt(Message<?> message) {
        return RedriveAim.aimedAt(message);
    }

    /**
     * @param delivery a delivery to an {@code @Idempotent} method
     * @return the message that carries it: the method's {@code Message} argument, else the record the
     *         {@code inbox-kafka} connector is delivering on this thread; {@code null} when neither
     */
    public static Message<?> carrier(Delivery delivery) {
        return RedriveAim.carrier(delivery);
    }

    /** @return the dead letter id a re-driven Kafka record names, {@code null} when none */
    public static String deadLetterOf(Message<?> message) {
        return RedriveAim.deadLetterOf(message);
    }

    /** The rules' outcome and, when allowed, the payload to send. */
    private record Plan(Outcome outcome, byte[] payload) {
    }

    private Plan plan(long id, Function<String, Optional<Route>> routes, boolean aimed) throws SQLException {
        Optional<DeadLetter> found = deadLetters.find(id);
        if (found.isEmpty()) {
            return refused(Status.NOT_FOUND, id, null, null, null);
        }
        DeadLetter letter = found.get();
        if (!letter.open()) {
            return refused(Status.NOT_OPEN, id, letter, null, null);
        }
        Route route = routes.apply(letter.consumer()).orElse(null);
        if (route == null) {
            return refused(Status.UNKNOWN_CONSUMER, id, letter, null, null);
        }
        String target = aimed ? letter.consumer() : null;
        if (letter.eventId() == null) {
            return refused(Status.NO_EVENT_ID, id, letter, target, route);
        }
        Optional<OffsetDateTime> processed = deadLetters.processedAt(letter.consumer(), letter.eventId());
        if (processed.isPresent()) {
            Status status = processed.get().isAfter(letter.firstFailedAt()) ? Status.PROCESSED_SINCE
                    : Status.PROCESSED_BEFORE;
            return new Plan(new Outcome(status, id, letter, target, processed.get(), null, null, null, null, route),
                    null);
        }
        if (!aimed) {
            // every reader gets the record: one that has not processed the event would process it now, undoing the
            // discard of its own dead letter for it
            for (String other : route.readers().stream().sorted().toList()) {
                if (other.equals(letter.consumer())
                        || deadLetters.processedAt(other, letter.eventId()).isPresent()) {
                    continue;
                }
                Optional<DeadLetter> discarded = deadLetters.discarded(other, letter.eventId());
                if (discarded.isPresent()) {
                    return new Plan(new Outcome(Status.DISCARDED_ELSEWHERE, id, letter, null, null, discarded.get(),
                            null, null, null, route), null);
                }
            }
        }
        byte[] payload = deadLetters.payload(id).orElse(null);
        if (payload == null) {
            return refused(Status.NO_PAYLOAD, id, letter, target, route);
        }
        if (route.textOnly()) {
            String text = Utf8.decode(payload);
            if (text == null || text.indexOf('\0') >= 0) {
                return refused(Status.NOT_TEXT, id, letter, target, route);
            }
        }
        return new Plan(new Outcome(Status.REDRIVEN, id, letter, target, null, null, null, null, null, route), payload);
    }

    private static Plan refused(Status status, long id, DeadLetter letter, String target, Route route) {
        return new Plan(new Outcome(status, id, letter, target, null, null, null, null, null, route), null);
    }

    /** The history entry of a record sent for a row that changed before its mark; best effort. */
    private void recordSent(RedriveClaim claim, String operator, String target, SentRecord sent) {
        try {
            deadLetters.recordRedriveSent(claim, operator, target, sent);
        } catch (SQLException | RuntimeException e) {
            InboxLog.LOG.log(java.util.logging.Level.FINE, "a sent re-drive's history entry could not be written", e);
        }
    }

    /** Gives the claim back; a failure to do so leaves it to expire after the lease. */
    private void release(RedriveClaim claim) {
        try {
            deadLetters.releaseRedrive(claim);
        } catch (SQLException | RuntimeException e) {
            InboxLog.LOG.log(java.util.logging.Level.FINE, "a re-drive claim could not be given back; it expires "
                    + "after inbox.dead-letter.redrive-lease", e);
        }
    }
}
