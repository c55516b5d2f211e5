package io.github.jakartainbox.inbox.claim;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * The message an idempotent method receives in place of the connector's: the inbox owns acknowledgement, so an
 * acknowledgement here does nothing (the real message is acknowledged after the transaction commits, or after the
 * event is dead-lettered), and a negative acknowledgement marks the attempt failed: it is rolled back and retried.
 * Acknowledging inside the transaction would let the broker move the offset past an event whose effect might still
 * roll back.
 *
 * <p>It is a dynamic proxy of the {@link Message} interface the runtime has, so that every other method is
 * forwarded to the delivered message, including those the compile-time API lacks: SmallRye's
 * {@code getMetadata()} family, {@code unwrap}, and any method a later API adds. Methods that derive a new message
 * ({@code withPayload}, {@code withMetadata}, ...) run on this proxy, so the derived message keeps the deferred
 * acknowledgement.
 */
public final class DeferredAckMessage implements InvocationHandler {

    private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);

    private final Message<?> delivered;
    private volatile Throwable nackReason;

    private DeferredAckMessage(Message<?> delivered) {
        this.delivered = delivered;
    }

    /**
     * @param delivered the connector's message
     * @return the message to hand to the method, and its handler (to read {@link #nackReason()})
     */
    public static DeferredAckMessage of(Message<?> delivered) {
        return new DeferredAckMessage(delivered);
    }

    /** @return the message that forwards to the delivered one, with deferred acknowledgement */
    public Message<?> message() {
        return (Message<?>) Proxy.newProxyInstance(DeferredAckMessage.class.getClassLoader(),
                new Class<?>[] {Message.class}, this);
    }

    /** @return the reason given to a negative acknowledgement during this attempt, {@code null} if none */
    public Throwable nackReason() {
        return nackReason;
    }

    private CompletionStage<Void> nacked(Object reason) {
        nackReason = reason instanceof Throwable t ? t : new IllegalStateException("nacked without a reason");
        return DONE;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        String name = method.getName();
        if (method.getDeclaringClass() == Object.class) {
            return switch (name) {
                case "equals" -> proxy == args[0];
                case "hashCode" -> System.identityHashCode(proxy);
                default -> "DeferredAckMessage[" + delivered + "]";
            };
        }
        Object[] arguments = args == null ? new Object[0] : args;
        if (name.equals("ack")) {
            return DONE;
        }
        if (name.equals("nack")) {
            return nacked(arguments.length > 0 ? arguments[0] : null);
        }
        if (name.startsWith("getAck")) {
            return function(method.getReturnType(), reason -> DONE);
        }
        if (name.startsWith("getNack")) {
            return function(method.getReturnType(), this::nacked);
        }
        if (method.isDefault() && Message.class.isAssignableFrom(method.getReturnType())) {
            return InvocationHandler.invokeDefault(proxy, method, args);
        }
        try {
            return method.invoke(delivered, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** An acknowledgement function of the shape the method returns, calling {@code body} with its first argument
     *  (also {@code KafkaRecordMessage}'s). */
    public static Object function(Class<?> shape, Function<Object, CompletionStage<Void>> body) {
        if (shape == Supplier.class) {
            return (Supplier<CompletionStage<Void>>) () -> body.apply(null);
        }
        if (shape == BiFunction.class) {
            return (BiFunction<Object, Object, CompletionStage<Void>>) (first, metadata) -> body.apply(first);
        }
        return (Function<Object, CompletionStage<Void>>) body::apply;
    }
}
