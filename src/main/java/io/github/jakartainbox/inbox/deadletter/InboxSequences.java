package io.github.jakartainbox.inbox.deadletter;

import io.github.jakartainbox.inbox.database.InboxTransactions;
import io.github.jakartainbox.inbox.deadletter.internal.ParkedEvents;
import io.github.jakartainbox.inbox.incoming.RecordRedelivery;
import io.github.jakartainbox.inbox.incoming.SequenceRedrive;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import io.github.jakartainbox.inbox.text.Printable;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The sequences of dead-letter order by key ({@code inbox.consumer.<c>.dead-letter.order=key}): a dead letter of a
 * Kafka record with key K heads its consumer's sequence of K, and the consumer's later records of K are parked behind
 * it. This lists the open sequences, one item each, and re-drives them: the head and then the parked records are
 * delivered to the consumer's method in their order, on the calling thread, each through the inbox's claim (a
 * duplicate is skipped). A record that is dead-lettered again stops the re-drive and heads the sequence; the rest
 * stay parked. Records of K parked while the re-drive runs are delivered before it ends; once none is left, the
 * sequence closes and K's records are processed as they come. An operator who decides none of them needs processing
 * discards the whole sequence instead ({@link #discard}); {@link #bulk} does either for many sequences.
 *
 * <p>One re-drive of a sequence runs at a time, on any server: it takes the sequence's lease
 * ({@code inbox.dead-letter.redrive-lease}, renewed per record); another re-drive of the same sequence meanwhile is
 * refused with {@link Status#TAKEN}. A re-drive cut short (the server stopped) is taken over once its lease expires,
 * and delivers again from the first record not yet removed: a record it had processed is skipped as a duplicate.
 *
 * <p>Call it outside any JTA transaction: each delivery commits on its own.
 */
@ApplicationScoped
public class InboxSequences {

    /** Records read per round of a re-drive. */
    private static final int BATCH = 100;

    /** How a re-drive or a discard ended. */
    public enum Status {
        /** Every record was delivered (processed or skipped as a duplicate) and the sequence is closed. */
        CLOSED,
        /** A record was dead-lettered again: it heads the sequence now ({@link Outcome#newHead()}). */
        STOPPED,
        /** The consumer has no open sequence of that key. */
        NOT_FOUND,
        /** Another re-drive of the sequence holds its lease ({@link Outcome#sequence()} says who). */
        TAKEN,
        /** The consumer's method is not in this application: re-drive it from the application that runs it. */
        UNKNOWN_CONSUMER
    }

    /**
     * One open sequence.
     *
     * @param consumer       the consumer's stored name
     * @param key            the Kafka record key (text; bytes that are no UTF-8 as {@code 0x} and hex digits)
     * @param headDeadLetter the head's dead letter id ({@link InboxDeadLetters#find})
     * @param headError      the head's reason
     * @param parked         how many records wait behind the head
     * @param openedAt       when the sequence opened
     * @param oldestParkedAt when its oldest parked record was parked, {@code null} when none is
     * @param redrivenBy     who holds, or last held, its re-drive lease; {@code null} when no re-drive holds it
     * @param redriveSince   when that lease was taken or last renewed, {@code null} with {@code redrivenBy}
     */
    public record Sequence(String consumer, String key, long headDeadLetter, String headError, long parked,
                           OffsetDateTime openedAt, OffsetDateTime oldestParkedAt, String redrivenBy,
                           OffsetDateTime redriveSince) {
    }

    /**
     * The figures of all consumers, for metrics and health.
     *
     * @param sequences       sequences open
     * @param parked          records parked behind their heads
     * @param oldestParkedAge the age of the oldest parked record, zero when none is
     */
    public record Figures(long sequences, long parked, Duration oldestParkedAge) {
    }

    /**
     * How a re-drive ended.
     *
     * @param status    how
     * @param consumer  the consumer
     * @param key       the key
     * @param delivered records delivered to the method (processed or skipped as duplicates) by this re-drive
     * @param discarded records of the sequence discarded unprocessed by this call: the head by {@link #discardHead};
     *                  the head and every parked record by {@link #discard}
     * @param newHead   {@link Status#STOPPED}: the dead letter heading the sequence now
     * @param sequence  the sequence as it is after the re-drive; {@code null} when closed or not found
     */
    public record Outcome(Status status, String consumer, String key, int delivered, int discarded, Long newHead,
                          Sequence sequence) {
    }

    /**
     * What a bulk call on sequences did ({@link #bulk}).
     *
     * @param action       re-drive or discard
     * @param selected     the sequences selected: one per id given, or the open sequences headed by the group's
     *                     open dead letters (of at most {@value InboxDeadLetters#MAX_BULK} read)
     * @param closed       the sequences re-driven or discarded to their end and closed
     * @param stopped      the re-drives stopped at a new head ({@link Status#STOPPED}); the rest of each stays parked
     * @param alreadyTaken the sequences another re-drive held ({@link Status#TAKEN}), left to it
     * @param refused      the refused ones by key: the message id their text starts with ({@code INBOX0247E}: an
     *                     id that heads no open sequence; {@code INBOX0248W}: the call stopped there), else their
     *                     {@link Status} name; sorted by key
     * @param notTried     the sequences left alone after a failure that stopped the call
     * @param moreInGroup  whether the group may hold more open dead letters than were read: call again
     * @param delivered    records delivered to the method, all sequences together
     * @param discarded    records discarded unprocessed, heads included, all sequences together
     */
    public record BulkResult(DeadLetterBulk.Action action, int selected, int closed, int stopped, int alreadyTaken,
                             SortedMap<String, DeadLetterBulk.Refusal> refused, int notTried, boolean moreInGroup,
                             long delivered, long discarded) {

        /** Keeps the refusals as given, unmodifiable. */
        public BulkResult {
            refused = Collections.unmodifiableSortedMap(new TreeMap<>(refused));
        }

        /** @return the refused sequences, all reasons together */
        public int refusedCount() {
            return refused.values().stream().mapToInt(DeadLetterBulk.Refusal::count).sum();
        }
    }

    @Inject
    ParkedEvents parked;
    @Inject
    InboxDeadLetters deadLetters;
    @Inject
    InboxTransactions transactions;
    @Inject
    @Any
    Instance<RecordRedelivery> transports;

    /**
     * @param consumer a consumer's stored name, {@code null} for all
     * @param limit    the most sequences returned, 1 to {@value InboxDeadLetters#MAX_LIMIT}
     * @return the open sequences, oldest first
     * @throws IllegalArgumentException (INBOX0401E) when {@code limit} is out of range
     * @throws SQLException when the database cannot be read
     */
    public List<Sequence> list(String consumer, int limit) throws SQLException {
        InboxDeadLetters.checkLimit(limit, InboxDeadLetters.MAX_LIMIT);
        return parked.list(consumer, limit).stream().map(InboxSequences::shown).toList();
    }

    /**
     * @param consumer a consumer's stored name
     * @param key      a record key
     * @return its open sequence, empty when none is open
     * @throws SQLException when the database cannot be read
     */
    public Optional<Sequence> find(String consumer, String key) throws SQLException {
        return parked.find(consumer, key).map(InboxSequences::shown);
    }

    /**
     * @return sequences open, records parked and the oldest parked record's age, over all consumers
     * @throws SQLException when the database cannot be read
     */
    public Figures figures() throws SQLException {
        ParkedEvents.Figures figures = parked.figures();
        return new Figures(figures.sequences(), figures.parked(), figures.oldestParkedAge());
    }

    /**
     * Re-drives the consumer's sequence of a key: its head, then its parked records, in order.
     *
     * @param consumer the consumer's stored name
     * @param key      the record key
     * @param operator who re-drives (the caller's principal), kept on the sequence while it runs
     * @return how it ended
     * @throws NullPointerException when an argument is {@code null}
     * @throws SQLException         when the database fails between deliveries; the lease is given back, and the
     *                              sequence stays open from the first record not yet delivered
     * @throws Exception            what a delivery threw past the inbox (the application stopping)
     */
    public Outcome redrive(String consumer, String key, String operator) throws Exception {
        return run(consumer, key, operator, false);
    }

    /**
     * Discards the head of the consumer's sequence of a key (its dead letter is discarded, as
     * {@link InboxRedrives#discard} does) and delivers the parked records behind it, in order, as {@link #redrive}:
     * discarding a head releases what waited for it. A parked record that fails becomes the new head.
     *
     * @param consumer the consumer's stored name
     * @param key      the record key
     * @param operator who discards
     * @return how it ended
     * @throws NullPointerException when an argument is {@code null}
     * @throws Exception            as {@link #redrive}
     */
    public Outcome discardHead(String consumer, String key, String operator) throws Exception {
        return run(consumer, key, operator, true);
    }

    /**
     * Discards the consumer's whole sequence of a key, unprocessed: the head's dead letter is discarded (as
     * {@link InboxRedrives#discard} does), and every record parked behind it is kept as a dead letter discarded by
     * {@code operator}, with its payload and a history entry (reason {@code INBOX0246W}), so that nothing leaves
     * without a trace; then the sequence closes and the key's records are processed as they come. Records of the key
     * parked while it runs are discarded with the rest. It takes the sequence's re-drive lease: refused with
     * {@link Status#TAKEN} while a re-drive of the sequence, or of its head's dead letter, runs.
     *
     * @param consumer the consumer's stored name
     * @param key      the record key
     * @param operator who discards (the caller's principal), for the dead letters' {@code resolved_by} and history
     * @return how it ended: {@link Status#CLOSED} with {@link Outcome#discarded()} (the head included),
     *         {@link Status#TAKEN} or {@link Status#NOT_FOUND}
     * @throws NullPointerException when an argument is {@code null}
     * @throws Exception            when the database fails (a {@link SQLException}): the lease is given back, the
     *                              records discarded so far stay discarded and the rest stay parked; call again
     */
    public Outcome discard(String consumer, String key, String operator) throws Exception {
        Objects.requireNonNull(consumer, "consumer");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(operator, "operator");
        OptionalLong claimed = parked.claim(consumer, key, operator, deadLetters.redriveLease());
        if (claimed.isEmpty()) {
            return refused(consumer, key);
        }
        long sequence = claimed.getAsLong();
        int discarded = 0;
        try {
            while (true) {
                List<ParkedEvents.Stored> records = parked.records(sequence, BATCH);
                if (records.isEmpty()) {
                    if (transactions.inOwnTransaction(() -> parked.closeIfEmpty(sequence))) {
                        parked.forget();
                        InboxMessage.INBOX0245I.log(consumer, key, operator, String.valueOf(discarded));
                        return new Outcome(Status.CLOSED, consumer, key, 0, discarded, null, null);
                    }
                    continue; // parked meanwhile: discarded with the rest
                }
                long head = records.get(0).deadLetterId() != null ? records.get(0).deadLetterId()
                        : find(consumer, key).map(Sequence::headDeadLetter).orElse(0L);
                for (ParkedEvents.Stored record : records) {
                    if (record.deadLetterId() != null) {
                        Optional<InboxDeadLetters.DeadLetter> busy = discardDeadLetter(record.deadLetterId(),
                                operator);
                        if (busy.isPresent()) {
                            // the dead letter's own re-drive (InboxRedrives) holds its claim: its record may be on
                            // its way, so the sequence is left to it
                            parked.lease(sequence, operator, false);
                            InboxDeadLetters.DeadLetter letter = busy.get();
                            InboxMessage.INBOX0239E.log(consumer, key, String.valueOf(letter.redriveClaimedBy()),
                                    String.valueOf(letter.redriveClaimedAt()));
                            Sequence open = find(consumer, key).map(q -> new Sequence(q.consumer(), q.key(),
                                    q.headDeadLetter(), q.headError(), q.parked(), q.openedAt(), q.oldestParkedAt(),
                                    letter.redriveClaimedBy(), letter.redriveClaimedAt())).orElse(null);
                            return new Outcome(Status.TAKEN, consumer, key, 0, discarded, null, open);
                        }
                        parked.remove(record.id());
                    } else {
                        String error = InboxMessage.INBOX0246W.format(consumer, record.record().location(), String.valueOf(head),
                                key, operator);
                        transactions.inOwnTransaction(() -> parked.discardParked(record.id(), consumer, error,
                                operator));
                    }
                    discarded++;
                }
                parked.lease(sequence, operator, true);
            }
        } catch (Exception | Error e) {
            try {
                parked.lease(sequence, operator, false);
            } catch (SQLException again) {
                e.addSuppressed(again); // the lease expires by itself
            }
            throw e;
        }
    }

    /**
     * Discards a dead letter of a sequence being discarded.
     *
     * @return the dead letter when it stays open because its own re-drive holds its claim; empty when it is
     *         discarded now or was not open
     */
    private Optional<InboxDeadLetters.DeadLetter> discardDeadLetter(long id, String operator) throws SQLException {
        if (deadLetters.discard(id, operator)) {
            return Optional.empty();
        }
        return deadLetters.find(id).filter(InboxDeadLetters.DeadLetter::open);
    }

    /** A sequence's lease was not taken: another re-drive holds it, or no sequence of the key is open. */
    private Outcome refused(String consumer, String key) throws SQLException {
        Optional<Sequence> open = find(consumer, key);
        if (open.isPresent()) {
            InboxMessage.INBOX0239E.log(consumer, key, String.valueOf(open.get().redrivenBy()),
                    String.valueOf(open.get().redriveSince()));
        }
        return new Outcome(open.isPresent() ? Status.TAKEN : Status.NOT_FOUND, consumer, key, 0, 0, null,
                open.orElse(null));
    }

    /**
     * Re-drives ({@link #redrive}) or discards ({@link #discard}) many sequences, one after the other, by the rules of
     * {@link DeadLetterBulk}: selected by their heads' dead-letter ids ({@link Sequence#headDeadLetter()}) or by a
     * dead-letter group (the open sequences headed by the group's open dead letters); refusals counted by message
     * id with one example each; after a sequence whose re-drive or discard failed (the database or the application
     * away, {@code INBOX0248W}) the rest is not tried. Must run without a JTA transaction.
     *
     * @param action   re-drive or discard
     * @param select   the heads' dead-letter ids, or a group ({@link DeadLetterBulk.Selection})
     * @param operator who acts (the caller's principal)
     * @param report   called once with each tried sequence's outcome, in order (log it there); for an outcome other
     *                 than {@link Status#CLOSED}, {@link Status#STOPPED} and {@link Status#TAKEN} it returns the
     *                 refusal's text, whose leading message id is the key it is counted under ({@code null}, or a
     *                 text without one: the status name)
     * @return the counts
     * @throws NullPointerException when an argument is {@code null}
     * @throws SQLException         when the selection cannot be read; nothing was done
     */
    public BulkResult bulk(DeadLetterBulk.Action action, DeadLetterBulk.Selection select, String operator,
                           Function<Outcome, String> report) throws SQLException {
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(select, "select");
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(report, "report");
        List<Long> heads = select.byGroup()
                ? deadLetters.openIds(select.consumer(), select.failure(), InboxDeadLetters.MAX_BULK) : select.ids();
        boolean moreInGroup = select.byGroup() && heads.size() == InboxDeadLetters.MAX_BULK;
        Map<Long, ParkedEvents.Sequence> found = parked.headedBy(heads);
        List<Long> chosen = select.byGroup() ? heads.stream().filter(found::containsKey).toList() : heads;
        int closed = 0;
        int stopped = 0;
        int taken = 0;
        int notTried = 0;
        long delivered = 0;
        long discarded = 0;
        boolean away = false;
        SortedMap<String, DeadLetterBulk.Refusal> refused = new TreeMap<>();
        for (long head : chosen) {
            if (away) {
                notTried++; // the database or the application is away: the rest would fail the same way
                continue;
            }
            ParkedEvents.Sequence sequence = found.get(head);
            if (sequence == null) {
                DeadLetterBulk.refuse(refused, InboxMessage.INBOX0247E.format(String.valueOf(head)),
                        Status.NOT_FOUND.name());
                continue;
            }
            Outcome outcome;
            try {
                outcome = action == DeadLetterBulk.Action.REDRIVE ? redrive(sequence.consumer(), sequence.key(),
                        operator) : discard(sequence.consumer(), sequence.key(), operator);
            } catch (Exception e) {
                String why = Printable.of(String.valueOf(e), 200);
                InboxMessage.INBOX0248W.log(sequence.consumer(), action.name().toLowerCase(java.util.Locale.ROOT),
                        sequence.key(), why);
                DeadLetterBulk.refuse(refused, InboxMessage.INBOX0248W.format(sequence.consumer(),
                        action.name().toLowerCase(java.util.Locale.ROOT), sequence.key(), why), "FAILED");
                away = true;
                continue;
            }
            delivered += outcome.delivered();
            discarded += outcome.discarded();
            String text = report.apply(outcome);
            switch (outcome.status()) {
                case CLOSED -> closed++;
                case STOPPED -> stopped++;
                case TAKEN -> taken++;
                default -> DeadLetterBulk.refuse(refused, text, outcome.status().name());
            }
        }
        return new BulkResult(action, chosen.size(), closed, stopped, taken, refused, notTried, moreInGroup,
                delivered, discarded);
    }

    private Outcome run(String consumer, String key, String operator, boolean discardHead) throws Exception {
        Objects.requireNonNull(consumer, "consumer");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(operator, "operator");
        RecordRedelivery transport = transports.stream().filter(t -> t.delivers(consumer)).findFirst().orElse(null);
        if (transport == null) {
            return new Outcome(Status.UNKNOWN_CONSUMER, consumer, key, 0, 0, null, find(consumer, key).orElse(null));
        }
        OptionalLong claimed = parked.claim(consumer, key, operator, deadLetters.redriveLease());
        if (claimed.isEmpty()) {
            return refused(consumer, key);
        }
        long sequence = claimed.getAsLong();
        int discarded = 0;
        SequenceRedrive redrive = new SequenceRedrive(consumer, key);
        int delivered = 0;
        boolean first = true;
        try {
            while (true) {
                List<ParkedEvents.Stored> records = parked.records(sequence, BATCH);
                if (records.isEmpty()) {
                    if (transactions.inOwnTransaction(() -> parked.closeIfEmpty(sequence))) {
                        parked.forget(); // this consumer may have no open sequence left: read again when asked
                        InboxMessage.INBOX0237I.log(consumer, key, operator, String.valueOf(delivered));
                        return new Outcome(Status.CLOSED, consumer, key, delivered, discarded, null, null);
                    }
                    continue; // parked while the last ones were delivered: they come next
                }
                for (ParkedEvents.Stored record : records) {
                    boolean head = first;
                    first = false;
                    if (head && record.deadLetterId() != null && (discardHead || discarded(record.deadLetterId()))) {
                        if (discardHead) {
                            deadLetters.discard(record.deadLetterId(), operator);
                            discarded++;
                        }
                        parked.remove(record.id());
                        continue;
                    }
                    SequenceRedrive.Outcome outcome = redrive.run(() -> {
                        transport.deliver(consumer, record.record(), record.value());
                        return null;
                    });
                    if (outcome == SequenceRedrive.Outcome.PROCESSED || outcome == SequenceRedrive.Outcome.DUPLICATE) {
                        parked.remove(record.id());
                        parked.lease(sequence, operator, true);
                        delivered++;
                        continue;
                    }
                    Long deadLetter = redrive.deadLetterId();
                    if (deadLetter != null) {
                        parked.newHead(sequence, record.id(), deadLetter);
                    }
                    parked.lease(sequence, operator, false);
                    InboxMessage.INBOX0238W.log(consumer, key, operator, String.valueOf(deadLetter),
                            String.valueOf(delivered));
                    return new Outcome(Status.STOPPED, consumer, key, delivered, discarded, deadLetter,
                            find(consumer, key).orElse(null));
                }
            }
        } catch (Exception | Error e) {
            try {
                parked.lease(sequence, operator, false);
            } catch (SQLException again) {
                e.addSuppressed(again); // the lease expires by itself
            }
            throw e;
        }
    }

    /** @return whether the dead letter was discarded (an operator decided the head needs no processing) */
    private boolean discarded(long deadLetter) throws SQLException {
        return deadLetters.find(deadLetter).map(d -> d.discardedAt() != null).orElse(false);
    }

    private static Sequence shown(ParkedEvents.Sequence s) {
        return new Sequence(s.consumer(), s.key(), s.headDeadLetter(), s.headError(), s.parked(), s.openedAt(),
                s.oldestParkedAt(), s.claimedBy(), s.claimedAt());
    }
}
