package io.github.jakartainbox.inbox.delivery;

import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.inbox.claim.DeliverySteps;
import io.github.jakartainbox.inbox.claim.InboxClaim;
import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.consumer.InboxLifecycle;
import io.github.jakartainbox.inbox.database.InboxTransactions;
import io.github.jakartainbox.inbox.deadletter.internal.DeadLetterWriter;
import io.github.jakartainbox.inbox.deadletter.internal.ParkedEvents;
import io.github.jakartainbox.inbox.failure.FailureKind;
import io.github.jakartainbox.inbox.failure.FailurePolicy;
import io.github.jakartainbox.inbox.failure.Failures;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.incoming.KeyedRecord;
import io.github.jakartainbox.inbox.incoming.SequenceRedrive;
import io.github.jakartainbox.inbox.incoming.RedriveAim;
import io.github.jakartainbox.inbox.incoming.TransportSettlement;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import io.github.jakartainbox.inbox.sqlstate.DatabaseUnavailableException;
import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A delivery on a thread without a transaction (a connector's): each attempt in a JTA transaction of its own; a
 * failure is retried as the consumer's {@link FailurePolicy} decides, then dead-lettered; the message is
 * acknowledged once its attempt committed or its dead letter was recorded, never before.
 */
@ApplicationScoped
public class OwnTransactionPath implements DeliveryPath {

    @Inject
    InboxTransactions transactions;
    @Inject
    InboxClaim inbox;
    @Inject
    DeadLetterWriter deadLetters;
    @Inject
    InboxStatistics statistics;
    @Inject
    DeliverySteps steps;
    @Inject
    RedriveAims aims;
    @Inject
    ParkedEvents parked;

    /** The consumers whose transport's limits were checked ({@link #warnOfTransportLimits}). */
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();
    /** Liberty's default transaction timeout ({@code totalTranLifetimeTimeout}), for a consumer that sets none. */
    private static final Duration SERVER_TRANSACTION_TIMEOUT = Duration.ofSeconds(120);

    /** What one committed attempt did: the claim's result, and the method's result when it ran. */
    private record Outcome(InboxClaim.Result claim, Object result) {
    }

    @Override
    public Object deliver(DeliveryCall call) throws Exception {
        ConsumerSettings consumer = call.consumer();
        if (aims.aimedElsewhere(call, false)) {
            statistics.redriveForOtherSkipped(consumer.name());
            return call.acknowledged();
        }
        awaitReady(consumer); // tables made or checked before the first transaction, never inside one
        if (parked(call)) {
            return call.acknowledged();
        }
        InboxClaim.Claim key = steps.identify(consumer, call.key(), call.span(), deadLetters(call));
        return key == null ? call.settled(DeliveryOutcome.DEAD_LETTERED) : withRetries(call, key);
    }

    /**
     * Makes or checks the inbox tables (once), waiting while the database gives no connection: a service started
     * during a database outage keeps its deliveries unacknowledged until the database answers. A misconfiguration
     * (INBOX0002E, INBOX0003E) is thrown.
     */
    private void awaitReady(ConsumerSettings consumer) throws Exception {
        for (int failures = 1; ; failures++) {
            try {
                inbox.ready();
                return;
            } catch (IllegalStateException e) {
                if (!(e.getCause() instanceof DatabaseUnavailableException)) {
                    throw e;
                }
                long waitMillis = consumer.retry().delayAfter(failures + 1).toMillis();
                InboxMessage.INBOX0206W.log(consumer.name(), "(not read yet)", String.valueOf(waitMillis),
                        e.getMessage());
                InboxLifecycle.pauseBeforeRetry(waitMillis, e);
            }
        }
    }

    /**
     * Parks the delivery behind its key's dead letter when its consumer keeps the order by key and has an open
     * sequence of the record's key ({@code dead-letter.order=key}): stored in a transaction of its own, before its
     * event id is read, so that a later record without a usable id keeps its place too. A delivery of the
     * sequence's own re-drive is not parked.
     *
     * @return whether it is parked: acknowledged without the method
     * @throws Exception when the database cannot park it: the message stays unacknowledged and comes again
     */
    private boolean parked(DeliveryCall call) throws Exception {
        ConsumerSettings consumer = call.consumer();
        if (!consumer.orderByKey() || !parked.mayHaveOpen(consumer.name())) {
            return false; // the cheap check: no statement while the consumer has no open sequence
        }
        KeyedRecord record = KeyedRecord.of(RedriveAim.carrier(call.delivery()));
        return record != null && deadLetters.parkAlone(consumer, record, call.delivery(),
                ParkedEvents.redriveOf(RedriveAim.carrier(call.delivery())), consumer.transactionTimeout());
    }

    private Object withRetries(DeliveryCall call, InboxClaim.Claim key) throws Exception {
        ConsumerSettings consumer = call.consumer();
        String eventId = key.eventId();
        TransportSettlement transport = call.transport();
        // a transport that counts deliveries (a share group) discards a message after its limit: its earlier
        // deliveries are attempts, and the last one it allows is the last attempt, dead-lettered before it is lost
        FailurePolicy.Tracker failures = transport == null ? consumer.failurePolicy().newDelivery()
                : consumer.failurePolicy().newDelivery(transport.priorAttempts(), transport.deliveryLimit());
        if (transport != null) {
            warnOfTransportLimits(consumer, transport);
        }
        while (true) {
            try {
                Outcome outcome = transactions.inOwnTransaction(consumer.transactionTimeout(), () -> {
                    InboxClaim.Result claim = inbox.claim(consumer.name(), eventId, key.fingerprint(), key.month());
                    Object result = claim == InboxClaim.Result.NEW ? call.proceed() : null;
                    if (claim == InboxClaim.Result.NEW) {
                        parked.headRedriven(consumer, call.delivery()); // the re-drive's record leaves its sequence
                    }
                    return new Outcome(claim, result);
                });
                SequenceRedrive redrive = SequenceRedrive.current();
                if (redrive != null && outcome.claim() != InboxClaim.Result.CONFLICTING_PAYLOAD) {
                    redrive.ended(outcome.claim() == InboxClaim.Result.NEW ? SequenceRedrive.Outcome.PROCESSED
                            : SequenceRedrive.Outcome.DUPLICATE);
                }
                if (outcome.claim() != InboxClaim.Result.NEW) {
                    DeliveryOutcome skipped = steps.skipped(consumer, eventId, outcome.claim(), deadLetters(call));
                    call.span().outcome(skipped, null);
                    return call.settled(skipped);
                }
                call.span().outcome(DeliveryOutcome.PROCESSED, null);
                if (call.delivery().message() == null) {
                    call.tell(DeliveryOutcome.PROCESSED);
                    return outcome.result();
                }
                return call.settled(DeliveryOutcome.PROCESSED);
            } catch (Exception failure) {
                FailurePolicy.Decision decision = failures.failed(failure);
                if (decision.action() == FailurePolicy.Action.DEAD_LETTER) {
                    deadLetter(consumer, eventId, call.delivery(), decision.reason(), Math.max(decision.attempts(), 1));
                    call.span().outcome(DeliveryOutcome.DEAD_LETTERED, decision.reason());
                    return call.settled(DeliveryOutcome.DEAD_LETTERED);
                }
                long waitMillis = decision.delay().toMillis();
                if (!steps.countedWait(consumer, eventId, decision, failure, waitMillis)) {
                    String cause = Failures.describe(failure);
                    if (decision.kind() == FailureKind.OUTAGE) {
                        InboxMessage.INBOX0206W.log(consumer.name(), eventId, String.valueOf(waitMillis), cause);
                    } else {
                        InboxMessage.INBOX0201W.log(consumer.name(), eventId,
                                String.valueOf(decision.attempts()), String.valueOf(consumer.retry().maxAttempts()),
                                String.valueOf(waitMillis), cause);
                    }
                }
                call.span().retry(decision.attempts(), failure);
                InboxLifecycle.pauseBeforeRetry(waitMillis, failure);
            }
        }
    }

    /**
     * Says once per consumer, at its first delivery over a transport that counts deliveries: that the transport
     * discards a message before the failure policy's attempts are used ({@code INBOX0241W}: the policy then
     * dead-letters at the transport's limit), and that a transaction may outlast the transport's unrenewed hold on
     * the message ({@code INBOX0242W}: the message is then handed out again while its transaction runs).
     */
    private static void warnOfTransportLimits(ConsumerSettings consumer, TransportSettlement transport) {
        if (!WARNED.add(consumer.name())) {
            return;
        }
        int maxAttempts = consumer.retry().maxAttempts();
        if (maxAttempts > transport.deliveryLimit()) {
            InboxMessage.INBOX0241W.log(consumer.name(), String.valueOf(maxAttempts),
                    String.valueOf(transport.deliveryLimit()));
        }
        Duration lock = transport.unrenewedLock();
        Duration timeout = consumer.transactionTimeout() != null ? consumer.transactionTimeout()
                : SERVER_TRANSACTION_TIMEOUT;
        if (lock != null && timeout.compareTo(lock) > 0) {
            InboxMessage.INBOX0242W.log(consumer.name(), timeout.toString(), lock.toString(),
                    consumer.transactionTimeout() != null ? "its transaction-timeout"
                            : "the server's default, assumed");
        }
    }

    /**
     * @param call a delivery
     * @return this path's dead-letter writer for it, in a transaction of its own, retried while the database is
     *         away; the caller's-transaction path writes its dead letters with it too
     */
    DeliverySteps.DeadLetters deadLetters(DeliveryCall call) {
        return (eventId, reason, attempts) -> deadLetter(call.consumer(), eventId, call.delivery(), reason, attempts);
    }

    /**
     * Records the failed delivery in its own transaction, trying again while that is impossible: nothing is
     * acknowledged that was not recorded ({@link DeadLetterWriter#writeUntilRecorded}).
     */
    private void deadLetter(ConsumerSettings consumer, String eventId, Delivery delivery, Throwable reason,
                            int attempts) throws Exception {
        // a method taking the payload only: on inbox-kafka the record being delivered still says where it came from
        String location = delivery.location() != null ? delivery.location()
                : Delivery.locationOf(RedriveAim.carrier(delivery));
        deadLetters.writeUntilRecorded(consumer, eventId, delivery, KeyedRecord.of(RedriveAim.carrier(delivery)),
                DeadLetterWriter.reason(reason, attempts, location), attempts);
    }
}
