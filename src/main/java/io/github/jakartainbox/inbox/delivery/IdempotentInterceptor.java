package io.github.jakartainbox.inbox.delivery;

import io.github.jakartainbox.inbox.Idempotent;
import io.github.jakartainbox.inbox.claim.ClaimKey;
import io.github.jakartainbox.inbox.claim.InboxClaim;
import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.consumer.InboxConsumers;
import io.github.jakartainbox.inbox.incoming.Delivery;
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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Claims each delivery in the inbox and runs the idempotent method only for a new event: it resolves the consumer,
 * makes the delivery's claim key ({@link ClaimKey}) and hands the call to the method's {@link DeliveryPath}, chosen
 * at its first delivery: a transport's ({@link DeliveryPath.Transport}, a message-driven bean's), else
 * {@link TransactionPaths}.
 *
 * <p>Priority {@code PLATFORM_BEFORE + 100} puts it outside {@code @Transactional} ({@code PLATFORM_BEFORE +
 * 200}): a method's own {@code @Transactional(REQUIRED)} joins the inbox transaction.
 */
@Idempotent(consumer = "")
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
public class IdempotentInterceptor {

    @Inject
    InboxConsumers consumers;
    @Inject
    InboxClaim inbox;
    /** The paths transports bring (message-driven beans: the {@code jms} package), each taking its methods whole. */
    @Inject
    @Any
    Instance<DeliveryPath.Transport> transports;
    /** The path of every method no transport takes. */
    @Inject
    TransactionPaths byTransaction;
    /** The tracing capability's tracer ({@code tracing}), {@link DeliveryTracer#NONE}'s spans when it is off. */
    @Inject
    DeliveryTracer tracing;
    /** Each method's path, chosen at its first delivery. */
    private final Map<Method, DeliveryPath> paths = new ConcurrentHashMap<>();

    @AroundInvoke
    Object aroundDelivery(InvocationContext context) throws Exception {
        Method method = context.getMethod();
        ConsumerSettings consumer = consumers.forMethod(method);
        Delivery delivery = Delivery.of(method, context.getParameters());
        // tracing (docs/observability.md, "Tracing"): DeliverySpan.NONE, shared and stateless, while OpenTelemetry is not in use
        DeliverySpan span = tracing.start(consumer.name(), method, delivery.message());
        try {
            ClaimKey key = ClaimKey.of(consumer, delivery, inbox);
            return paths.computeIfAbsent(method, m -> pathOf(delivery))
                    .deliver(new DeliveryCall(context, consumer, delivery, span, key));
        } catch (Exception | Error failure) {
            span.outcome(DeliveryOutcome.RETRIED, failure); // left unacknowledged: delivered again
            throw failure;
        } finally {
            span.end();
        }
    }

    private DeliveryPath pathOf(Delivery first) {
        for (DeliveryPath.Transport transport : transports) {
            if (transport.takes(first)) {
                return transport;
            }
        }
        return byTransaction;
    }
}
