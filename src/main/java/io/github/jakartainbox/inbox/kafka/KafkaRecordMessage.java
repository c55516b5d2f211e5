package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.claim.DeferredAckMessage;
import io.github.jakartainbox.inbox.incoming.TransportSettlement;
import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * A Kafka record as the {@code inbox-kafka} connector hands it to a channel: its payload is the record's
 * deserialized value, {@code unwrap(ConsumerRecord.class)} returns the record (as with {@code liberty-kafka}), and
 * its acknowledgement only settles it: the connector decides when the offset may move (after the group's commit,
 * or after the per-message path acknowledged it).
 *
 * <p>A dynamic proxy of the runtime's {@link Message} interface, so that the methods SmallRye adds to it
 * ({@code ack(Metadata)}, {@code getAckWithMetadata()}, ...) reach the same acknowledgement.
 *
 * <p>A share group's record ({@link #ofShare}) is also its {@link TransportSettlement}, and so is its message: the
 * inbox says how it settled the record (a dead letter is rejected) and reads its delivery count.
 */
public final class KafkaRecordMessage implements InvocationHandler, TransportSettlement {

    private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);


    private final ConsumerRecord<?, ?> record;
    /** Completes on the first acknowledgement: with {@code null}, or with the reason of a negative one. */
    private final CompletableFuture<Throwable> settled = new CompletableFuture<>();
    private final Message<?> message;
    /** A share group's delivery count limit; 0 for a classic consumer group's record (no settlement). */
    private final int deliveryLimit;
    /** A share record's lock when the channel does not renew it; {@code null} when it does. */
    private final Duration unrenewedLock;
    /** How the inbox settled the record, told before its acknowledgement; {@code null} until then. */
    private volatile DeliveryOutcome outcome;

    public KafkaRecordMessage(ConsumerRecord<?, ?> record) {
        this(record, 0, null);
    }

    private KafkaRecordMessage(ConsumerRecord<?, ?> record, int deliveryLimit, Duration unrenewedLock) {
        this.record = record;
        this.deliveryLimit = deliveryLimit;
        this.unrenewedLock = unrenewedLock;
        // a share record's message is also its settlement, found by instanceof (TransportSettlement.of)
        this.message = (Message<?>) Proxy.newProxyInstance(KafkaRecordMessage.class.getClassLoader(),
                deliveryLimit > 0 ? new Class<?>[] {Message.class, TransportSettlement.class}
                        : new Class<?>[] {Message.class}, this);
    }

    /**
     * @param record        a record a share consumer acquired
     * @param deliveryLimit its group's delivery count limit, 1 or more
     * @param unrenewedLock  its lock when the channel does not renew it, {@code null} when it does
     * @return its message, which is also its {@link TransportSettlement}
     */
    static KafkaRecordMessage ofShare(ConsumerRecord<?, ?> record, int deliveryLimit, Duration unrenewedLock) {
        return new KafkaRecordMessage(record, Math.max(deliveryLimit, 1), unrenewedLock);
    }

    @Override
    public Duration unrenewedLock() {
        return unrenewedLock;
    }

    @Override
    public void settled(DeliveryOutcome how) {
        outcome = how;
    }

    @Override
    public int priorAttempts() {
        int deliveries = record.deliveryCount().map(Short::intValue).orElse(1);
        return Math.max(0, Math.min(deliveries, deliveryLimit) - 1);
    }

    @Override
    public int deliveryLimit() {
        return deliveryLimit;
    }

    /** @return how the inbox said it settled the record, {@code null} when it said nothing */
    DeliveryOutcome outcome() {
        return outcome;
    }

    ConsumerRecord<?, ?> record() {
        return record;
    }

    /** @return the message to emit */
    public Message<?> message() {
        return message;
    }

    /** @return completes when the message is acknowledged ({@code null}) or nacked (the reason) */
    CompletableFuture<Throwable> settled() {
        return settled;
    }

    private CompletionStage<Void> nacked(Object reason) {
        settled.complete(reason instanceof Throwable t ? t : new IllegalStateException("nacked without a reason"));
        return DONE;
    }

    private CompletionStage<Void> acked() {
        settled.complete(null);
        return DONE;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        String name = method.getName();
        Object[] arguments = args == null ? new Object[0] : args;
        if (method.getDeclaringClass() == TransportSettlement.class) {
            return method.invoke(this, args);
        }
        if (method.getDeclaringClass() == Object.class) {
            return switch (name) {
                case "equals" -> proxy == arguments[0];
                case "hashCode" -> System.identityHashCode(proxy);
                default -> "KafkaRecordMessage[" + record.topic() + "-" + record.partition() + "@" + record.offset()
                        + "]";
            };
        }
        switch (name) {
            case "getPayload":
                return record.value();
            case "ack":
                return acked();
            case "nack":
                return nacked(arguments.length > 0 ? arguments[0] : null);
            case "unwrap":
                Class<?> type = (Class<?>) arguments[0];
                if (type != null && type.isInstance(record)) {
                    return record;
                }
                if (type != null && type.isInstance(proxy)) {
                    return proxy;
                }
                throw new IllegalArgumentException("a Kafka record message cannot be unwrapped to " + type
                        + "; use ConsumerRecord");
            default:
                break;
        }
        if (name.startsWith("getAck")) {
            return DeferredAckMessage.function(method.getReturnType(), reason -> acked());
        }
        if (name.startsWith("getNack")) {
            return DeferredAckMessage.function(method.getReturnType(), this::nacked);
        }
        if (method.isDefault()) {
            return InvocationHandler.invokeDefault(proxy, method, args);
        }
        try {
            // getMetadata() and the like: those of a plain message with the same payload (no metadata)
            return method.invoke(Message.of(record.value()), args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
