package io.github.jakartainbox.inbox.delivery;

import io.github.jakartainbox.inbox.Idempotent;
import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.inbox.UnprocessableEventException;
import io.github.jakartainbox.inbox.claim.DeferredAckMessage;
import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.consumer.InboxConsumers;
import io.github.jakartainbox.inbox.consumer.InboxLifecycle;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.claim.DeliveryGroup;
import io.github.jakartainbox.inbox.claim.GroupClaims;
import io.github.jakartainbox.inbox.claim.InboxClaim;
import io.github.jakartainbox.inbox.database.InboxTransactions;
import io.github.jakartainbox.inbox.deadletter.internal.DeadLetterStore;
import io.github.jakartainbox.inbox.sqlstate.DatabaseUnavailableException;
import io.github.jakartainbox.inbox.failure.FailureKind;
import io.github.jakartainbox.inbox.failure.FailurePolicy;
import io.github.jakartainbox.inbox.failure.Failures;
import io.github.jakartainbox.inbox.incoming.RedriveAim;
import io.github.jakartainbox.inbox.logging.InboxLog;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import io.github.jakartainbox.inbox.spi.DeliverySpan;
import io.github.jakartainbox.inbox.spi.DeliveryTracer;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import java.lang.reflect.Method;
import java.time.LocalDate;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Claims each delivery in the inbox and runs the idempotent method only for a new event, in one JTA
 * transaction; owns retries, dead letters and acknowledgement when it begins the transaction itself.
 *
 * <p>Priority {@code PLATFORM_BEFORE + 100} puts it outside {@code @Transactional} ({@code PLATFORM_BEFORE +
 * 200}): a method's own {@code @Transactional(REQUIRED)} joins the inbox transaction.
 */
@Idempotent(consumer = "")
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
public class IdempotentInterceptor {

    private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);

    @Inject
    InboxConsumers consumers;
    @Inject
    InboxTransactions transactions;
    @Inject
    InboxClaim inbox;
    @Inject
    DeadLetterStore deadLetters;
    @Inject
    InboxStatistics statistics;
    @Inject
    DeliverySteps steps;
    /** The paths transports bring (message-driven beans: the {@code jms} package), each taking its deliveries whole. */
    @Inject
    @Any
    Instance<DeliveryPath> transports;
    /** {@link #transports}, resolved at the first delivery. */
    private volatile java.util.List<DeliveryPath> transportPaths;
    /** The tracing capability's tracer ({@code tracing}), {@link DeliveryTracer#NONE}'s spans when it is off. */
    @Inject
    DeliveryTracer tracing;
    /** Whether a record aimed at another consumer is a re-drive the database confirms. */
    @Inject
    RedriveAims aims;
    /** Consumers whose deliveries did not match what was read ahead for a group's claim (INBOX0610W). */
    private final java.util.Set<String> perMessageClaims = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** What one committed attempt did: the claim's result, and the method's result when it ran. */
    private record Outcome(InboxClaim.Result claim, Object result) {
    }

    @AroundInvoke
    Object aroundDelivery(InvocationContext context) throws Exception {
        ConsumerSettings consumer = consumers.forMethod(context.getMethod());
        Delivery delivery = Delivery.of(context.getMethod(), context.getParameters());
        // tracing (docs/observability.md, "Tracing"): DeliverySpan.NONE, shared and stateless, while OpenTelemetry is not in use
        DeliverySpan span = tracing.start(consumer.name(), context.getMethod(), delivery.message());
        try {
            return deliver(context, consumer, delivery, span);
        } catch (Exception | Error failure) {
            span.outcome(DeliveryOutcome.RETRIED, failure); // left unacknowledged: delivered again
            throw failure;
        } finally {
            span.end();
        }
    }

    private Object deliver(InvocationContext context, ConsumerSettings consumer, Delivery delivery, DeliverySpan span)
            throws Exception {
        java.util.List<DeliveryPath> paths = transportPaths;
        if (paths == null) {
            paths = transportPaths = transports.stream().toList();
        }
        for (DeliveryPath path : paths) {
            if (path.takes(delivery)) {
                return path.deliver(context, consumer, delivery, span);
            }
        }
        DeliveryGroup group = DeliveryGroup.current();
        Message<?> carrier = RedriveAim.carrier(delivery);
        String aim = RedriveAim.aimedAt(carrier);
        if (aim != null && !aim.equals(consumer.name()) && aimConfirmed(group, consumer, delivery, carrier, aim)) {
            // a re-drive for another consumer of the topic, confirmed by its dead letter: no claim, no effect,
            // acknowledged (in a group: settled, and its offset moves with the group's commit)
            boolean inGroup = group != null && transactions.isActive();
            if (inGroup) {
                group.afterCommit(() -> statistics.redriveForOtherSkipped(consumer.name()));
            } else {
                statistics.redriveForOtherSkipped(consumer.name());
            }
            InboxMessage.INBOX0104I.log(consumer.name(), String.valueOf(carrier),
                    String.valueOf(RedriveAim.deadLetterOf(carrier)), aim);
            span.outcome(DeliveryOutcome.AIMED_ELSEWHERE, null);
            if (!inGroup && transactions.active()) {
                // the caller's transaction: acknowledged as a skipped duplicate is there, by its owner
                return CompletionStage.class.isAssignableFrom(context.getMethod().getReturnType()) ? DONE : null;
            }
            return acknowledged(context.getMethod(), delivery);
        }
        if (group != null && transactions.isActive()) {
            return inGroup(group, context, consumer, delivery, span);
        }
        if (transactions.active()) {
            return inCallerTransaction(context, consumer, delivery, span);
        }
        awaitReady(consumer); // tables made or checked before the first transaction, never inside one
        DeliverySteps.Event event = steps.identify(consumer, delivery, span, deadLetters(consumer, delivery));
        if (event == null) {
            return acknowledged(context.getMethod(), delivery);
        }
        return withRetries(context, consumer, delivery, event.eventId(), event.month(), span);
    }

    /**
     * Whether the database confirms a record's aim at another consumer ({@link RedriveAims}); an unconfirmed aim is
     * ignored and the record processed. In a group, a database failure fails the group (it is redone one by one).
     */
    private boolean aimConfirmed(DeliveryGroup group, ConsumerSettings consumer, Delivery delivery, Message<?> carrier,
                                 String aim) throws Exception {
        boolean inGroup = group != null && transactions.isActive();
        try {
            return aims.confirmed(consumer, delivery, carrier, aim, inGroup || transactions.active());
        } catch (java.sql.SQLException e) {
            if (!inGroup) {
                throw e;
            }
            group.failed(e);
            return false;
        }
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
                sleep(waitMillis, e);
            }
        }
    }

    /** An EJB, MDB or caller transaction is active: join it; failures go to the container. */
    private Object inCallerTransaction(InvocationContext context, ConsumerSettings consumer, Delivery delivery,
                                       DeliverySpan span) throws Exception {
        String eventId = consumer.eventId(delivery);
        span.eventId(eventId);
        InboxClaim.Result claim = inbox.claim(consumer.name(), eventId, consumer.fingerprint(delivery),
                inbox.partitionMonth(consumer, delivery, eventId));
        if (claim != InboxClaim.Result.NEW) {
            span.outcome(steps.skipped(consumer, eventId, claim, deadLetters(consumer, delivery)), null);
            return CompletionStage.class.isAssignableFrom(context.getMethod().getReturnType()) ? DONE : null;
        }
        Object result = context.proceed();
        span.outcome(DeliveryOutcome.PROCESSED, null); // as far as the inbox knows: the caller's transaction commits
        return result;
    }

    /**
     * One delivery of a group the {@code inbox-kafka} connector runs in one transaction. Never throws and never
     * retries: a failure, or anything that needs a dead letter (no usable event id, a payload differing from the
     * processed one), is reported to the group; the connector rolls the group back and hands each of its messages
     * to {@link #aroundDelivery} again outside any transaction, where the per-message path handles it. A duplicate is
     * skipped here, as in that path.
     */
    private Object inGroup(DeliveryGroup group, InvocationContext context, ConsumerSettings consumer,
                           Delivery delivery, DeliverySpan span) {
        try {
            GroupClaims claims = groupClaims(group, context.getMethod(), consumer);
            // the very message and payload the group's claim read: its event id, fingerprint and month, not read again
            InboxClaim.Claim ahead = claims == null ? null : claims.readAheadFor(group.position(), delivery);
            String eventId = ahead != null ? ahead.eventId() : consumer.eventId(delivery);
            span.eventId(eventId);
            byte[] fingerprint = ahead != null ? ahead.fingerprint() : consumer.fingerprint(delivery);
            LocalDate month = ahead != null ? ahead.month() : inbox.partitionMonth(consumer, delivery, eventId);
            InboxClaim.Result claimed = claims == null ? null
                    : groupClaim(claims, group.position(), consumer, eventId, fingerprint, month);
            Outcome outcome = claimed == null ? attempt(context, consumer, delivery, eventId, fingerprint, month)
                    : proceed(context, delivery, claimed);
            switch (outcome.claim()) {
                case NEW -> span.outcome(DeliveryOutcome.PROCESSED, null); // as far as the inbox knows: the group commits
                case DUPLICATE -> {
                    span.outcome(DeliveryOutcome.DUPLICATE, null);
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
            span.outcome(DeliveryOutcome.RETRIED, group.failure());
        }
        // the connector acknowledges after the group's commit; this acknowledgement only settles the message
        return acknowledged(context.getMethod(), delivery);
    }

    private Object withRetries(InvocationContext context, ConsumerSettings consumer, Delivery delivery,
                               String eventId, LocalDate month, DeliverySpan span) throws Exception {
        FailurePolicy.Tracker failures = consumer.failurePolicy().newDelivery();
        byte[] fingerprint = consumer.fingerprint(delivery); // once per delivery, not per attempt
        while (true) {
            try {
                Outcome outcome = transactions.inOwnTransaction(consumer.transactionTimeout(),
                        () -> attempt(context, consumer, delivery, eventId, fingerprint, month));
                if (outcome.claim() != InboxClaim.Result.NEW) {
                    span.outcome(steps.skipped(consumer, eventId, outcome.claim(), deadLetters(consumer, delivery)),
                            null);
                    return acknowledged(context.getMethod(), delivery);
                }
                span.outcome(DeliveryOutcome.PROCESSED, null);
                return delivery.message() == null ? outcome.result() : acknowledged(context.getMethod(), delivery);
            } catch (Exception failure) {
                FailurePolicy.Decision decision = failures.failed(failure);
                if (decision.action() == FailurePolicy.Action.DEAD_LETTER) {
                    deadLetter(consumer, eventId, delivery, decision.reason(), Math.max(decision.attempts(), 1));
                    span.outcome(DeliveryOutcome.DEAD_LETTERED, decision.reason());
                    return acknowledged(context.getMethod(), delivery);
                }
                long waitMillis = decision.delay().toMillis();
                if (!steps.countedWait(consumer, eventId, decision, failure, waitMillis)) {
                    String cause = Failures.describe(failure);
                    if (decision.kind() == FailureKind.OUTAGE) {
                        InboxMessage.INBOX0206W.log(consumer.name(), eventId, String.valueOf(waitMillis),
                                cause);
                    } else {
                        InboxMessage.INBOX0201W.log(consumer.name(), eventId,
                                String.valueOf(decision.attempts()), String.valueOf(consumer.retry().maxAttempts()),
                                String.valueOf(waitMillis), cause);
                    }
                }
                span.retry(decision.attempts(), failure);
                sleep(waitMillis, failure);
            }
        }
    }

    /** One attempt, inside its own transaction. */
    private Outcome attempt(InvocationContext context, ConsumerSettings consumer, Delivery delivery, String eventId,
                            byte[] fingerprint, LocalDate month) throws Exception {
        return proceed(context, delivery, inbox.claim(consumer.name(), eventId, fingerprint, month));
    }

    /**
     * The claim of a group's delivery when the group is claimed with one statement ({@code group.claim=multi-row}),
     * made at the group's first delivery for all of its messages.
     *
     * @throws GroupClaims.ReadAheadMismatch when the delivery is not the event read ahead for it (INBOX0610W): the
     *                                       group rolls back, and the consumer claims message by message from now on
     */
    private InboxClaim.Result groupClaim(GroupClaims claims, int position, ConsumerSettings consumer, String eventId,
                                         byte[] fingerprint, LocalDate month) {
        try {
            return claims.result(position, eventId, fingerprint, month);
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
    private GroupClaims groupClaims(DeliveryGroup group, java.lang.reflect.Method method, ConsumerSettings consumer)
            throws java.sql.SQLException {
        if (!group.multiRowClaim() || perMessageClaims.contains(consumer.name())) {
            return null;
        }
        if (!group.claimsTried()) {
            group.claims(group.position() == 0
                    ? GroupClaims.claim(method, consumer, group.messages(), inbox) : null);
        }
        return group.claims() instanceof GroupClaims claims ? claims : null;
    }

    /** The method's part of an attempt, once the claim is made: skipped unless the event is new. */
    private Outcome proceed(InvocationContext context, Delivery delivery, InboxClaim.Result claim) throws Exception {
        if (claim != InboxClaim.Result.NEW) {
            return new Outcome(claim, null);
        }
        DeferredAckMessage message = null;
        if (delivery.message() != null) {
            message = DeferredAckMessage.of(delivery.message());
            Object[] arguments = context.getParameters().clone();
            arguments[delivery.messageIndex()] = message.message();
            context.setParameters(arguments);
        }
        Object result = context.proceed();
        if (result instanceof CompletionStage<?> stage) {
            // asynchronous work must finish inside the transaction, before it commits
            stage.toCompletableFuture().get();
        }
        if (message != null && message.nackReason() != null) {
            throw new IllegalStateException(InboxMessage.INBOX0209E.format(
                    Failures.describe(message.nackReason())), message.nackReason());
        }
        return new Outcome(InboxClaim.Result.NEW, result);
    }

    /** @return this path's dead-letter writer for the delivery ({@link #deadLetter}) */
    private DeliverySteps.DeadLetters deadLetters(ConsumerSettings consumer, Delivery delivery) {
        return (eventId, reason, attempts) -> deadLetter(consumer, eventId, delivery, reason, attempts);
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
    public static String deadLetterReason(Throwable reason, int attempts, String location) {
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
     * Records the failed delivery in its own transaction. While that is impossible (the database is down) the
     * delivery stays unacknowledged and this keeps trying: nothing is acknowledged that was not recorded.
     */
    private void deadLetter(ConsumerSettings consumer, String eventId, Delivery delivery, Throwable reason,
                            int attempts) throws Exception {
        // a method taking the payload only: on inbox-kafka the record being delivered still says where it came from
        String location = delivery.location() != null ? delivery.location()
                : Delivery.locationOf(RedriveAim.carrier(delivery));
        String error = deadLetterReason(reason, attempts, location);
        String shownId = eventId == null ? "(no usable id)" : eventId;
        boolean full = true;
        for (int failures = 1; ; failures++) {
            boolean withPayload = full;
            try {
                transactions.inOwnTransaction(() -> {
                    deadLetters.record(consumer.name(), eventId, delivery, error, attempts, withPayload);
                    return null;
                });
                if (eventId == null) {
                    InboxMessage.INBOX0226E.log(consumer.name(), error);
                } else {
                    InboxMessage.INBOX0202E.log(consumer.name(), shownId, String.valueOf(attempts), error);
                }
                return;
            } catch (Exception e) {
                // the database is away or busy: wait and retry; anything else (the row itself is refused): retry
                // without the payload
                FailureKind kind = FailureKind.of(e);
                full = kind == FailureKind.OUTAGE || kind == FailureKind.TRANSIENT;
                long waitMillis = consumer.retry().delayAfter(failures + 1).toMillis();
                InboxMessage.INBOX0203E.log(consumer.name(), shownId, Failures.describe(e),
                        String.valueOf(waitMillis));
                sleep(waitMillis, e);
            }
        }
    }

    private static Object acknowledged(Method method, Delivery delivery) {
        CompletionStage<Void> ack = delivery.message() == null ? DONE : delivery.message().ack();
        return CompletionStage.class.isAssignableFrom(method.getReturnType()) ? ack : null;
    }

    /**
     * Waits before the next attempt, in slices, so that a stopping application ends the wait at once: the failure is
     * then thrown and the message stays unacknowledged, to be redelivered after the restart.
     */
    private static void sleep(long millis, Exception failure) throws Exception {
        if (!InboxLifecycle.pause(Math.max(millis, 1))) {
            failure.addSuppressed(new InterruptedException("the application is stopping"));
            throw failure;
        }
    }
}
