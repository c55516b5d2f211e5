package io.github.jakartainbox.inbox.jms;

import io.github.jakartainbox.inbox.InboxConfig;
import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.claim.ClaimKey;
import io.github.jakartainbox.inbox.claim.InboxClaim;
import io.github.jakartainbox.inbox.database.InboxDatabase;
import io.github.jakartainbox.inbox.database.InboxTransactions;
import io.github.jakartainbox.inbox.deadletter.internal.DeadLetterWriter;
import io.github.jakartainbox.inbox.deadletter.internal.ParkedEvents;
import io.github.jakartainbox.inbox.incoming.KeyedRecord;
import io.github.jakartainbox.inbox.incoming.SequenceRedrive;
import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.delivery.DeliveryCall;
import io.github.jakartainbox.inbox.delivery.DeliveryPath;
import io.github.jakartainbox.inbox.claim.DeliverySteps;
import io.github.jakartainbox.inbox.consumer.InboxConsumers;
import io.github.jakartainbox.inbox.consumer.InboxLifecycle;
import io.github.jakartainbox.inbox.failure.FailureKind;
import io.github.jakartainbox.inbox.failure.FailurePolicy;
import io.github.jakartainbox.inbox.failure.Failures;
import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import io.github.jakartainbox.inbox.spi.DeliverySpan;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.interceptor.InvocationContext;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.Connection;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * A message-driven bean's {@code @Idempotent onMessage(jakarta.jms.Message)}: the claim joins the bean's
 * container-managed transaction (attribute REQUIRED), which also holds the message's consumption, so the inbox row,
 * the business change and the consumption commit together.
 *
 * <ul>
 *   <li>A duplicate (its event id already in the inbox) is consumed without calling the method.</li>
 *   <li>A delivery whose event id is unusable, or whose payload differs from the processed one, is dead-lettered at
 *       once (in its own transaction) and consumed: no work was done in the bean's transaction.</li>
 *   <li>A failed attempt marks the bean's transaction rollback-only and returns: the container rolls back the claim,
 *       the work and the consumption, and the provider redelivers the message ({@code JMSXDeliveryCount} + 1). The
 *       decision is {@link FailurePolicy}'s, as for the Kafka path: an unclassified failure uses one of
 *       {@code retry.max-attempts}; a permanent one (data the database refuses, {@link io.github.jakartainbox.inbox.UnprocessableEventException})
 *       ends at once; transient errors are retried within {@code retry.transient-budget}; an outage uses no attempt
 *       (the delivery waits in place up to {@code jms.outage-wait} first, so that redeliveries do not spin).</li>
 *   <li>A transaction that does not commit after the method returned (a deferred constraint, a flush or the commit
 *       itself failing) counts as a failed attempt too (a JTA synchronization sees it, {@code INBOX0710E}).</li>
 *   <li>When the policy decides on a dead letter, the work cannot be undone while the consumption commits in the same
 *       transaction: the decision is kept, the transaction rolls back, and the <em>next</em> delivery of the message
 *       records the dead letter (its own transaction) and is consumed without calling the method. Never an endless
 *       redelivery loop.</li>
 *   <li>With {@code dead-letter.order=key}, a message's key is its property {@code dead-letter.order.jms-property}
 *       ({@code JMSXGroupID} by default): a dead letter of a keyed message opens its key's sequence, and the
 *       consumer's later messages of that key are parked behind it in the bean's transaction (stored, not passed to
 *       the method, consumed) until the sequence is re-driven ({@link JmsRedelivery}).</li>
 * </ul>
 *
 * <p>The failures of a message are counted in this server's memory, per consumer and {@code JMSMessageID} (the
 * provider redelivers a message to the server that holds its queue). After a restart a message gets
 * {@code retry.max-attempts} attempts again; the count stays bounded. No class here names a Jakarta Messaging type
 * (only {@link JmsMessages} does), so the library loads on servers without a messaging feature.
 *
 * <p>Which messages are parked is decided per server: a sequence another server opened for the same consumer is seen
 * here once this server's knowledge is read again (after a re-drive closed a sequence). The embedded engine delivers a
 * queue's messages to the server that holds it, where that is always the case.
 */
@ApplicationScoped
public class JmsDeliveries implements DeliveryPath.Transport {

    /** The most messages whose failures are remembered at once; the oldest are forgotten first. */
    static final int MAX_TRACKED = 10_000;

    @Inject
    InboxTransactions transactions;
    @Inject
    InboxClaim inbox;
    @Inject
    InboxDatabase database;
    @Inject
    DeadLetterWriter deadLetters;
    @Inject
    InboxStatistics statistics;
    @Inject
    DeliverySteps steps;
    @Inject
    ParkedEvents parked;
    @Resource
    TransactionSynchronizationRegistry registry;

    /** A message that failed before: its policy tracker, and a dead letter decided for its next delivery. */
    private static final class Failing {
        final FailurePolicy.Tracker tracker;
        String eventId;
        Throwable verdict;
        int attempts;

        Failing(FailurePolicy.Tracker tracker) {
            this.tracker = tracker;
        }
    }

    private final Map<String, Failing> failing = java.util.Collections.synchronizedMap(
            new LinkedHashMap<>(64, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Failing> eldest) {
                    return size() > MAX_TRACKED;
                }
            });

    private final Map<java.lang.reflect.Method, Duration> outageWaits = new ConcurrentHashMap<>();

    /** Per method: {@code dead-letter.order.jms-property} of its consumer. */
    final Map<java.lang.reflect.Method, String> keyProperties = new ConcurrentHashMap<>();

    /** @return whether the delivery carries a JMS message: a message-driven bean's {@code onMessage} */
    @Override
    public boolean takes(Delivery delivery) {
        return delivery.jms() != null;
    }

    /**
     * @param call the intercepted {@code onMessage}, its delivery's {@link Delivery#jms()} set
     * @return the method's result, {@code null} when it was not called
     * @throws IllegalStateException (INBOX0706E) when no JTA transaction is active
     */
    @Override
    public Object deliver(DeliveryCall call) throws Exception {
        InvocationContext context = call.context();
        ConsumerSettings consumer = call.consumer();
        DeliverySpan span = call.span();
        Delivery delivery = JmsMessages.withBody(call.delivery());
        if (!transactions.active()) {
            throw new IllegalStateException(JmsMessage.INBOX0706E.format(consumer.name(),
                    context.getMethod().getDeclaringClass().getName() + "." + context.getMethod().getName()));
        }
        String messageId = messageId(delivery);
        String key = consumer.name() + '\u0000' + messageId;
        // dead-letter order by key: the message's key, position and properties, read only when the consumer keeps it
        KeyedRecord record = consumer.orderByKey()
                ? JmsMessages.keyed(delivery.jms(), keyProperty(context.getMethod())) : null;
        try {
            if (parked(consumer, record, delivery)) {
                failing.remove(key);
                return null;
            }
        } catch (java.sql.SQLException | RuntimeException e) {
            // the order is not known: nothing may run; the rollback brings the message again
            rollbackOnly();
            JmsMessage.INBOX0712W.log(consumer.name(), messageId, Failures.describe(e));
            if (FailureKind.of(e) == FailureKind.OUTAGE) {
                waitForDatabase(consumer, outageWait(context.getMethod()));
            } else {
                InboxLifecycle.pause(consumer.retry().delayAfter(2).toMillis());
            }
            return null;
        }
        Failing before = failing.get(key);
        if (before != null && before.verdict != null) {
            JmsMessage.INBOX0707E.log(consumer.name(), messageId, before.attempts,
                    JmsMessages.deliveryCount(delivery.jms()), Failures.describe(before.verdict));
            span.eventId(before.eventId);
            if (deadLetter(consumer, before.eventId, delivery, record, messageId, before.verdict, before.attempts)) {
                failing.remove(key);
                span.outcome(DeliveryOutcome.DEAD_LETTERED, before.verdict);
            }
            return null;
        }
        DeliverySteps.DeadLetters deadLetters = (id, reason, attempts) ->
                deadLetter(consumer, id, delivery, record, messageId, reason, attempts);
        InboxClaim.Claim event = steps.identify(consumer, ClaimKey.of(consumer, delivery, inbox), span, deadLetters);
        if (event == null) {
            return null;
        }
        String eventId = event.eventId();
        try {
            InboxClaim.Result claim = inbox.claim(consumer.name(), eventId, event.fingerprint(), event.month());
            if (claim != InboxClaim.Result.NEW) {
                failing.remove(key);
                span.outcome(steps.skipped(consumer, eventId, claim, deadLetters), null);
                ended(SequenceRedrive.Outcome.DUPLICATE);
                return null;
            }
            Object result = context.proceed();
            failing.remove(key);
            ended(SequenceRedrive.Outcome.PROCESSED); // a re-drive sees the commit itself
            watchCommit(consumer, key, messageId, eventId);
            span.outcome(DeliveryOutcome.PROCESSED, null); // as far as the inbox knows: the container commits
            return result;
        } catch (Exception failure) {
            span.outcome(DeliveryOutcome.RETRIED, failure); // rolled back: the provider redelivers the message
            failed(context.getMethod(), consumer, key, messageId, eventId, delivery, failure);
            return null;
        }
    }

    /** The attempt failed: decide, wait where the policy says so, and have the container roll back. */
    private void failed(java.lang.reflect.Method method, ConsumerSettings consumer, String key, String messageId, String eventId, Delivery delivery,
                        Exception failure) {
        rollbackOnly();
        Failing state = failing.computeIfAbsent(key, k -> new Failing(consumer.failurePolicy().newDelivery()));
        FailurePolicy.Decision decision;
        synchronized (state) {
            decision = state.tracker.failed(failure);
            state.eventId = eventId;
            if (decision.action() == FailurePolicy.Action.DEAD_LETTER) {
                state.verdict = decision.reason();
                state.attempts = Math.max(decision.attempts(), 1);
            }
        }
        int deliveryCount = JmsMessages.deliveryCount(delivery.jms());
        String cause = Failures.describe(failure);
        if (decision.action() == FailurePolicy.Action.DEAD_LETTER) {
            JmsMessage.INBOX0704W.log(consumer.name(), eventId, messageId, deliveryCount,
                    decision.attempts(), consumer.retry().maxAttempts(), 0, cause);
            return;
        }
        if (decision.kind() == FailureKind.OUTAGE) {
            steps.countedWait(consumer, eventId, decision, failure, 0);
            Duration wait = outageWait(method);
            JmsMessage.INBOX0705W.log(consumer.name(), eventId, messageId, wait, cause);
            waitForDatabase(consumer, wait);
            return;
        }
        long waitMillis = decision.delay().toMillis();
        if (!steps.countedWait(consumer, eventId, decision, failure, waitMillis)) {
            JmsMessage.INBOX0704W.log(consumer.name(), eventId, messageId, deliveryCount,
                    decision.attempts(), consumer.retry().maxAttempts(), waitMillis, cause);
        }
        InboxLifecycle.pause(waitMillis);
    }

    /**
     * The method returned, but the container commits after it: a failure then (a deferred constraint, a flush at
     * commit, the commit itself) rolls back and the message comes again without this class seeing an exception.
     * Counted as an attempt here, so that such a message too ends as a dead letter rather than coming forever.
     */
    private void watchCommit(ConsumerSettings consumer, String key, String messageId, String eventId) {
        registry.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
            }

            @Override
            public void afterCompletion(int status) {
                if (status == Status.STATUS_COMMITTED) {
                    return;
                }
                Exception notCommitted = new IllegalStateException(JmsMessage.INBOX0710E.format(
                        consumer.name(), messageId, status));
                Failing state = failing.computeIfAbsent(key, k -> new Failing(consumer.failurePolicy().newDelivery()));
                synchronized (state) {
                    FailurePolicy.Decision decision = state.tracker.failed(notCommitted);
                    state.eventId = eventId;
                    if (decision.action() == FailurePolicy.Action.DEAD_LETTER) {
                        state.verdict = decision.reason();
                        state.attempts = Math.max(decision.attempts(), 1);
                    }
                    JmsMessage.INBOX0704W.log(consumer.name(), eventId, messageId, "(after the method)",
                            decision.attempts(), consumer.retry().maxAttempts(), 0, notCommitted.getMessage());
                }
            }
        });
    }

    /**
     * Records the dead letter in its own transaction (the bean's is suspended meanwhile). When that fails the bean's
     * transaction is marked rollback-only: the message stays on its queue and its next delivery tries again; nothing
     * is consumed that was not recorded.
     *
     * @return whether it was recorded
     */
    private boolean deadLetter(ConsumerSettings consumer, String eventId, Delivery delivery, KeyedRecord record,
                               String messageId, Throwable reason, int attempts) {
        String error = DeadLetterWriter.reason(reason, attempts, null); // starting with a message id, as on Kafka
        for (boolean withPayload : new boolean[] {true, false}) {
            try {
                deadLetters.write(consumer, eventId, delivery, record, error, attempts, withPayload);
                JmsMessage.INBOX0708E.log(consumer.name(), messageId, error);
                return true;
            } catch (Exception e) {
                FailureKind kind = FailureKind.of(e);
                JmsMessage.INBOX0709E.log(consumer.name(), messageId, Failures.describe(e));
                if (kind == FailureKind.OUTAGE || kind == FailureKind.TRANSIENT) {
                    break; // the row is not at fault: the next delivery tries again with the payload
                }
            }
        }
        String key = consumer.name() + '\u0000' + messageId;
        Failing state = failing.computeIfAbsent(key, k -> new Failing(consumer.failurePolicy().newDelivery()));
        synchronized (state) {
            state.eventId = eventId;
            state.verdict = reason;
            state.attempts = attempts;
        }
        rollbackOnly();
        return false;
    }

    /**
     * Parks the message behind its key's dead letter when its consumer keeps the order by key and has an open sequence
     * of the message's key: stored in the bean's transaction, so that the parked row and the consumption commit
     * together; before its event id is read, so that a later message without a usable id keeps its place too. A
     * delivery of the sequence's own re-drive is not parked.
     *
     * @return whether it is parked: consumed without the method
     * @throws java.sql.SQLException when the database cannot park it: the transaction rolls back, the message comes
     *                               again
     */
    private boolean parked(ConsumerSettings consumer, KeyedRecord record, Delivery delivery)
            throws java.sql.SQLException {
        if (record == null || !parked.mayHaveOpen(consumer.name())) {
            return false; // the cheap check: no statement while the consumer has no open sequence
        }
        return deadLetters.park(consumer, record, delivery, null);
    }

    private static void ended(SequenceRedrive.Outcome outcome) {
        SequenceRedrive redrive = SequenceRedrive.current();
        if (redrive != null) {
            redrive.ended(outcome);
        }
    }

    private void rollbackOnly() {
        if (transactions.isActive()) {
            registry.setRollbackOnly();
        }
    }

    private static String messageId(Delivery delivery) {
        try {
            String id = JmsMessages.messageId(delivery.jms());
            return id == null ? "(no JMSMessageID)" : id;
        } catch (RuntimeException e) {
            return "(no JMSMessageID)";
        }
    }

    /** @return {@code dead-letter.order.jms-property} for the method's consumer, read once per method */
    private String keyProperty(java.lang.reflect.Method method) {
        return keyProperties.computeIfAbsent(method, m -> InboxConfig.DEAD_LETTER_ORDER_JMS_PROPERTY.get(
                ConfigProvider.getConfig(), InboxConsumers.annotatedConsumer(m)));
    }

    /** @return {@code jms.outage-wait} for the method's consumer, read once per method */
    private Duration outageWait(java.lang.reflect.Method method) {
        return outageWaits.computeIfAbsent(method, m -> InboxConfig.JMS_OUTAGE_WAIT.get(
                ConfigProvider.getConfig(), InboxConsumers.annotatedConsumer(m)));
    }

    /**
     * Waits in place, up to {@code wait}, until the database gives a connection again (checked every retry delay,
     * in a transaction of its own, the bean's suspended), so that the redelivery finds it back.
     */
    private void waitForDatabase(ConsumerSettings consumer, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        for (int round = 1; System.nanoTime() < deadline; round++) {
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            InboxLifecycle.pause(Math.min(left, consumer.retry().delayAfter(round + 1).toMillis()));
            try {
                Boolean answers = transactions.inNewTransaction(() -> {
                    try (Connection connection = database.connection()) {
                        return connection.isValid(5);
                    }
                });
                if (Boolean.TRUE.equals(answers)) {
                    return;
                }
            } catch (Exception e) {
                // still away: wait on
            }
        }
    }
}
