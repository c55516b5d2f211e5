package io.github.jakartainbox.inbox.deadletter.internal;

import io.github.jakartainbox.inbox.UnprocessableEventException;
import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.consumer.InboxLifecycle;
import io.github.jakartainbox.inbox.database.InboxTransactions;
import io.github.jakartainbox.inbox.failure.FailureKind;
import io.github.jakartainbox.inbox.failure.Failures;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.incoming.KeyedRecord;
import io.github.jakartainbox.inbox.incoming.SequenceRedrive;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.time.Duration;

/**
 * What a delivery path writes when a delivery does not reach its method: the dead letter of a failed delivery (which
 * opens its key's sequence when the consumer keeps the order by key), and a record parked behind its key's open
 * sequence. The own-transaction path and the message-driven bean's path write through it, so that both keep the
 * same order of statements, commits and notices.
 */
@ApplicationScoped
public class DeadLetterWriter {

    private InboxTransactions transactions;
    private DeadLetterStore deadLetters;
    private ParkedEvents parked;

    /** For the container's proxy. */
    protected DeadLetterWriter() {
    }

    /**
     * @param transactions the inbox's transactions
     * @param deadLetters  the dead-letter table
     * @param parked       the sequences and parked records of dead-letter order by key
     */
    @Inject
    public DeadLetterWriter(InboxTransactions transactions, DeadLetterStore deadLetters, ParkedEvents parked) {
        this.transactions = transactions;
        this.deadLetters = deadLetters;
        this.parked = parked;
    }

    /**
     * @param reason   why the delivery failed
     * @param attempts how many attempts failed
     * @param location the Kafka record's {@code <topic>-<partition>@<offset>}, or {@code null}
     * @return the dead letter's reason: always starting with a message id, so that operators can search and group
     *         it ({@code INBOX0229E} for an {@link UnprocessableEventException} whose message has none: the method
     *         declared the event unprocessable; {@code INBOX0228E} for a failure the policy does not classify, such as
     *         a {@code NumberFormatException} in the method), ending with the record's location when it has one
     */
    public static String reason(Throwable reason, int attempts, String location) {
        String error = Failures.describe(reason);
        if (!Failures.namesItself(error)) {
            String declared = UnprocessableEventException.class.getName() + ": ";
            error = reason instanceof UnprocessableEventException
                    ? InboxMessage.INBOX0229E.format(error.startsWith(declared) ? error.substring(declared.length())
                            : error)
                    : InboxMessage.INBOX0228E.format(String.valueOf(attempts), error);
        }
        return location == null ? error : error + " [" + location + "]";
    }

    /**
     * Records a failed delivery's dead letter in a transaction of its own (the thread's transaction, if any, is
     * suspended meanwhile), with the sequence it opens for a keyed record of a consumer that keeps the order by key
     * ({@link ParkedEvents#opening}); after the commit tells {@link ParkedEvents#openedBy} and the re-drive running
     * on this thread ({@link SequenceRedrive#deadLettered}). One attempt: the caller decides what follows a failure.
     *
     * @param consumer    the delivery's consumer
     * @param eventId     the normalized event id, {@code null} when it was unusable
     * @param delivery    the delivery, for its payload and fingerprint
     * @param record      its key and position, {@code null} for a message without a key
     * @param error       the reason, starting with a message id
     * @param attempts    how many attempts failed
     * @param withPayload whether the payload is stored; {@code false} after the row was refused with it
     * @return the dead letter's id
     * @throws Exception what the transaction threw (after its rollback): nothing was recorded
     */
    public long write(ConsumerSettings consumer, String eventId, Delivery delivery, KeyedRecord record, String error,
                      int attempts, boolean withPayload) throws Exception {
        KeyedRecord opening = ParkedEvents.opening(consumer, record);
        long id = transactions.inOwnTransaction(() -> deadLetters.recordOpening(consumer.name(), eventId, delivery,
                error, attempts, withPayload, opening, parked));
        if (opening != null) {
            parked.openedBy(consumer.name(), opening.key(), id);
        }
        SequenceRedrive redrive = SequenceRedrive.current();
        if (redrive != null) {
            redrive.deadLettered(id);
        }
        return id;
    }

    /**
     * Records a failed delivery's dead letter as {@link #write} does until it is recorded, and says so
     * ({@code INBOX0202E}; {@code INBOX0226E} without an event id). After a failure ({@code INBOX0203E}) it waits as
     * the consumer's retry policy says after its attempts and tries again: with the payload when the database was away
     * or busy, without it when the row itself was refused.
     *
     * @param consumer the delivery's consumer
     * @param eventId  the normalized event id, {@code null} when it was unusable
     * @param delivery the delivery, for its payload and fingerprint
     * @param record   its key and position, {@code null} for a message without a key
     * @param error    the reason, starting with a message id
     * @param attempts how many attempts failed
     * @throws Exception the last failure, when the application stops during a wait: nothing was recorded, and the
     *                   delivery stays unacknowledged
     */
    public void writeUntilRecorded(ConsumerSettings consumer, String eventId, Delivery delivery, KeyedRecord record,
                                   String error, int attempts) throws Exception {
        String shownId = eventId == null ? "(no usable id)" : eventId;
        boolean withPayload = true;
        for (int failures = 1; ; failures++) {
            try {
                write(consumer, eventId, delivery, record, error, attempts, withPayload);
                if (eventId == null) {
                    InboxMessage.INBOX0226E.log(consumer.name(), error);
                } else {
                    InboxMessage.INBOX0202E.log(consumer.name(), shownId, String.valueOf(attempts), error);
                }
                return;
            } catch (Exception e) {
                FailureKind kind = FailureKind.of(e);
                withPayload = kind == FailureKind.OUTAGE || kind == FailureKind.TRANSIENT;
                long waitMillis = consumer.retry().delayAfter(failures + 1).toMillis();
                InboxMessage.INBOX0203E.log(consumer.name(), shownId, Failures.describe(e),
                        String.valueOf(waitMillis));
                InboxLifecycle.pauseBeforeRetry(waitMillis, e);
            }
        }
    }

    /**
     * Parks a keyed record behind its key's open sequence, in the caller's transaction, and says so
     * ({@code INBOX0235I}); a record of the key whose sequence this thread re-drives is not parked.
     *
     * @param consumer  the delivery's consumer, which keeps the order by key
     * @param record    the record's key and position
     * @param delivery  the delivery, for its payload
     * @param redriveOf the dead letter a re-driven record names, {@code null} for none
     *                  ({@link ParkedEvents#redriveOf})
     * @return whether it is parked: the method must not see it
     * @throws SQLException when the database cannot park it: the delivery stays unacknowledged
     */
    public boolean park(ConsumerSettings consumer, KeyedRecord record, Delivery delivery, Long redriveOf)
            throws SQLException {
        boolean done = !SequenceRedrive.running(consumer.name(), record.key())
                && parked.parkIfOpen(consumer.name(), null, record, delivery, redriveOf);
        return parkedSaid(done, consumer, record);
    }

    /**
     * As {@link #park}, in a transaction of its own, said after its commit.
     *
     * @param consumer  the delivery's consumer, which keeps the order by key
     * @param record    the record's key and position
     * @param delivery  the delivery, for its payload
     * @param redriveOf the dead letter a re-driven record names, {@code null} for none
     * @param timeout   the transaction's timeout, {@code null} for the server's default
     * @return whether it is parked
     * @throws Exception what the transaction threw (after its rollback): nothing was parked
     */
    public boolean parkAlone(ConsumerSettings consumer, KeyedRecord record, Delivery delivery, Long redriveOf,
                             Duration timeout) throws Exception {
        boolean done = !SequenceRedrive.running(consumer.name(), record.key())
                && transactions.inOwnTransaction(timeout,
                        () -> parked.parkIfOpen(consumer.name(), null, record, delivery, redriveOf));
        return parkedSaid(done, consumer, record);
    }

    private static boolean parkedSaid(boolean done, ConsumerSettings consumer, KeyedRecord record) {
        if (done) {
            InboxMessage.INBOX0235I.log(consumer.name(), record.location(), record.key());
        }
        return done;
    }
}
