package io.github.jakartainbox.inbox;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * The message an idempotent method receives in place of the connector's: the inbox owns acknowledgement, so
 * {@link #ack()} here does nothing (the real message is acknowledged after the transaction commits, or after
 * the event is dead-lettered), and {@link #nack(Throwable)} marks the attempt failed: it is rolled back and
 * retried. Acknowledging inside the transaction would let the broker move the offset past an event whose
 * effect might still roll back.
 */
final class DeferredAckMessage<T> implements Message<T> {

    private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);

    private final Message<T> delivered;
    private volatile Throwable nackReason;

    DeferredAckMessage(Message<T> delivered) {
        this.delivered = delivered;
    }

    @Override
    public T getPayload() {
        return delivered.getPayload();
    }

    @Override
    public Supplier<CompletionStage<Void>> getAck() {
        return () -> DONE;
    }

    @Override
    public Function<Throwable, CompletionStage<Void>> getNack() {
        return reason -> {
            nackReason = reason == null ? new IllegalStateException("nacked without a reason") : reason;
            return DONE;
        };
    }

    @Override
    public CompletionStage<Void> ack() {
        return DONE;
    }

    @Override
    public CompletionStage<Void> nack(Throwable reason) {
        return getNack().apply(reason);
    }

    @Override
    public <C> C unwrap(Class<C> type) {
        return delivered.unwrap(type);
    }

    /** @return the reason given to {@link #nack(Throwable)} during this attempt, {@code null} if none */
    Throwable nackReason() {
        return nackReason;
    }
}
