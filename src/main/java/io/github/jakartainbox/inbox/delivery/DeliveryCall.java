package io.github.jakartainbox.inbox.delivery;

import io.github.jakartainbox.inbox.claim.ClaimKey;
import io.github.jakartainbox.inbox.claim.DeferredAckMessage;
import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.failure.Failures;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.incoming.RedriveAim;
import io.github.jakartainbox.inbox.incoming.TransportSettlement;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import io.github.jakartainbox.inbox.spi.DeliverySpan;
import jakarta.interceptor.InvocationContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One call of an {@code @Idempotent} method as the interceptor hands it to a delivery path.
 *
 * @param context  the intercepted call
 * @param consumer the consumer's settings
 * @param delivery the delivery: payload, message
 * @param span     the delivery's trace span ({@link DeliverySpan#NONE} without tracing)
 * @param key      the delivery's claim key, read when a path first asks for it
 */
public record DeliveryCall(InvocationContext context, ConsumerSettings consumer, Delivery delivery, DeliverySpan span,
                           ClaimKey key) {

    private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);

    /** @return what the method returns when it was not called: a completed stage for an asynchronous method */
    public Object notCalled() {
        return returnsStage() ? DONE : null;
    }

    /**
     * Acknowledges the message, when the method takes one.
     *
     * @return what the method returns when its delivery is settled: the acknowledgement's stage for an asynchronous
     *         method, else {@code null}
     */
    public Object acknowledged() {
        CompletionStage<Void> ack = delivery.message() == null ? DONE : delivery.message().ack();
        return returnsStage() ? ack : null;
    }

    /**
     * Tells the carrying message's transport how the delivery ended ({@link TransportSettlement}: a share group's
     * record is rejected after a dead letter), then acknowledges the message, when the method takes one.
     *
     * @param outcome how the inbox settled the delivery
     * @return as {@link #acknowledged()}
     */
    public Object settled(DeliveryOutcome outcome) {
        tell(outcome);
        return acknowledged();
    }

    /**
     * Tells the carrying message's transport how the delivery ended, without acknowledging it: for a method taking
     * the payload, the connector acknowledges after the method returned.
     *
     * @param outcome how the inbox settled the delivery
     */
    public void tell(DeliveryOutcome outcome) {
        TransportSettlement settlement = transport();
        if (settlement != null) {
            settlement.settled(outcome);
        }
    }

    /** @return the carrying message's transport settlement, {@code null} when it has none */
    public TransportSettlement transport() {
        // the method's message may be one the engine made around the connector's (with metadata added)
        return TransportSettlement.of(delivery.message(), RedriveAim.delivering());
    }

    /**
     * Runs the method once its claim is made, with a message whose acknowledgement the inbox keeps
     * ({@link DeferredAckMessage}); an asynchronous result is awaited, so that its work ends inside the transaction.
     *
     * @return the method's result
     * @throws Exception what the method threw, or {@code IllegalStateException} ({@code INBOX0209E}) when it
     *                   negatively acknowledged its message
     */
    public Object proceed() throws Exception {
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
        return result;
    }

    private boolean returnsStage() {
        return CompletionStage.class.isAssignableFrom(context.getMethod().getReturnType());
    }
}
