package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.inbox.UnprocessableEventException;
import io.github.jakartainbox.inbox.claim.ClaimKey;
import io.github.jakartainbox.inbox.claim.InboxClaim;
import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.database.InboxTransactions;
import io.github.jakartainbox.inbox.deadletter.internal.ParkedEvents;
import io.github.jakartainbox.inbox.incoming.KeyedRecord;
import io.github.jakartainbox.inbox.incoming.RedriveAim;
import io.github.jakartainbox.inbox.delivery.DeliveryCall;
import io.github.jakartainbox.inbox.delivery.DeliveryPath;
import io.github.jakartainbox.inbox.delivery.RedriveAims;
import io.github.jakartainbox.inbox.logging.InboxLog;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One delivery of a group the connector runs in one transaction ({@link DeliveryGroup}, {@code group.max-size}
 * above 1). Never throws and never retries: a failure, or anything that needs a dead letter (no usable event id, a
 * payload differing from the processed one), is reported to the group; the connector rolls the group back and hands
 * each of its messages to the interceptor again outside any transaction, where the own-transaction path handles it.
 * A duplicate is skipped here, as there.
 */
@ApplicationScoped
public class GroupPath implements DeliveryPath.Enclosing {

    @Inject
    InboxTransactions transactions;
    @Inject
    InboxClaim inbox;
    @Inject
    InboxStatistics statistics;
    @Inject
    RedriveAims aims;
    @Inject
    ParkedEvents parked;
    /** Consumers whose deliveries did not match what was read ahead for a group's claim (INBOX0610W). */
    private final Set<String> perMessageClaims = ConcurrentHashMap.newKeySet();

    @Override
    public boolean encloses() {
        return DeliveryGroup.current() != null && transactions.isActive();
    }

    @Override
    public Object deliver(DeliveryCall call) {
        DeliveryGroup group = DeliveryGroup.current();
        ConsumerSettings consumer = call.consumer();
        try {
            if (aimedElsewhere(group, call)) {
                // settled; its offset moves with the group's commit, and it is counted once that commit is made
                group.afterCommit(() -> statistics.redriveForOtherSkipped(consumer.name()));
                return call.acknowledged();
            }
            KeyedRecord record = parkedInGroup(group, call);
            if (record != null) {
                // its offset moves with the group's commit; the method sees it when its key's sequence is re-driven
                group.afterCommit(() -> InboxMessage.INBOX0235I.log(consumer.name(), record.location(), record.key()));
                return call.acknowledged();
            }
            GroupClaims claims = groupClaims(group, call);
            // the very message and payload the group's claim read: its event id, fingerprint and month, not read again
            InboxClaim.Claim ahead = claims == null ? null : claims.readAheadFor(group.position(), call.delivery());
            ClaimKey key = ahead != null ? ClaimKey.readAhead(ahead) : call.key();
            String eventId = key.eventId();
            call.span().eventId(eventId);
            InboxClaim.Claim claim = key.claim();
            InboxClaim.Result result = claims == null
                    ? inbox.claim(consumer.name(), eventId, claim.fingerprint(), claim.month())
                    : groupClaim(claims, group.position(), consumer, claim);
            switch (result) {
                case NEW -> {
                    call.proceed();
                    parked.headRedriven(consumer, call.delivery()); // a re-drive's record leaves its sequence
                    // as far as the inbox knows: the group commits
                    call.span().outcome(DeliveryOutcome.PROCESSED, null);
                    call.tell(DeliveryOutcome.PROCESSED); // a share record is accepted after the group's commit
                }
                case DUPLICATE -> {
                    call.span().outcome(DeliveryOutcome.DUPLICATE, null);
                    call.tell(DeliveryOutcome.DUPLICATE);
                    group.afterCommit(() -> statistics.duplicateSkipped(consumer.name()));
                    InboxMessage.INBOX0101I.log(consumer.name(), eventId);
                }
                default -> group.failed(new UnprocessableEventException(
                        InboxMessage.INBOX0103E.format(eventId, consumer.name())));
            }
        } catch (Exception | Error e) {
            group.failed(e);
        }
        if (group.failure() != null) {
            // the group rolls back and this message is delivered again, alone, in a span of its own
            call.span().outcome(DeliveryOutcome.RETRIED, group.failure());
        }
        // the connector acknowledges after the group's commit; this acknowledgement only settles the message
        return call.acknowledged();
    }

    /**
     * Parks the delivery in the group's transaction when its consumer keeps the order by key and has an open sequence
     * of the record's key. The cheap check first: no statement while the consumer has no open sequence; else one
     * statement per group reads (and locks) the open sequences among the group's keys.
     *
     * @return the parked record, {@code null} when the delivery goes on
     */
    private KeyedRecord parkedInGroup(DeliveryGroup group, DeliveryCall call) throws SQLException {
        ConsumerSettings consumer = call.consumer();
        if (!consumer.orderByKey() || !parked.mayHaveOpen(consumer.name())) {
            return null;
        }
        KeyedRecord record = KeyedRecord.of(RedriveAim.carrier(call.delivery()));
        if (record == null) {
            return null;
        }
        if (!group.messages().isEmpty()) {
            java.util.Set<String> open = group.openKeys();
            if (open == null) {
                java.util.Set<String> keys = new java.util.HashSet<>();
                keys.add(record.key());
                for (org.eclipse.microprofile.reactive.messaging.Message<?> message : group.messages()) {
                    KeyedRecord other = KeyedRecord.of(message);
                    if (other != null) {
                        keys.add(other.key());
                    }
                }
                open = parked.openKeys(consumer.name(), keys);
                group.openKeys(open);
            }
            if (!open.contains(record.key())) {
                return null;
            }
        }
        if (!parked.parkIfOpen(consumer.name(), null, record, call.delivery(),
                ParkedEvents.redriveOf(RedriveAim.carrier(call.delivery())))) {
            return null;
        }
        if (group.claims() instanceof GroupClaims claims) {
            claims.parked(group.position());
        }
        return record;
    }

    /** A re-drive aimed at another consumer, confirmed by the database; a database failure fails the group. */
    private boolean aimedElsewhere(DeliveryGroup group, DeliveryCall call) throws InterruptedException {
        try {
            return aims.aimedElsewhere(call, true);
        } catch (SQLException e) {
            group.failed(e);
            return false;
        }
    }

    /**
     * The claim of a group's delivery when the group is claimed with one statement ({@code group.claim=multi-row}),
     * made at the group's first delivery for all of its messages.
     *
     * @throws GroupClaims.ReadAheadMismatch when the delivery is not the event read ahead for it (INBOX0610W): the
     *                                       group rolls back, and the consumer claims message by message from now on
     */
    private InboxClaim.Result groupClaim(GroupClaims claims, int position, ConsumerSettings consumer,
                                         InboxClaim.Claim claim) {
        try {
            return claims.result(position, claim.eventId(), claim.fingerprint(), claim.month());
        } catch (GroupClaims.ReadAheadMismatch e) {
            if (perMessageClaims.add(consumer.name())) {
                InboxLog.LOG.warning(e.getMessage());
            }
            throw e;
        }
    }

    /**
     * @return the group's claims, made at its first delivery with one statement; {@code null} when the group is
     *         claimed message by message
     */
    private GroupClaims groupClaims(DeliveryGroup group, DeliveryCall call) throws SQLException {
        if (!group.multiRowClaim() || perMessageClaims.contains(call.consumer().name())) {
            return null;
        }
        if (!group.claimsTried()) {
            group.claims(group.position() == 0
                    ? GroupClaims.claim(call.context().getMethod(), call.consumer(), group.messages(), inbox) : null);
        }
        return group.claims() instanceof GroupClaims claims ? claims : null;
    }
}
