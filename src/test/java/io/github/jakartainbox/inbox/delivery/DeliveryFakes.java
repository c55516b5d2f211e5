package io.github.jakartainbox.inbox.delivery;

import io.github.jakartainbox.testing.FakeInvocation;
import io.github.jakartainbox.inbox.claim.ClaimKey;
import io.github.jakartainbox.inbox.claim.InboxClaim;
import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.database.InboxTransactions;
import io.github.jakartainbox.inbox.deadletter.internal.DeadLetterStore;
import io.github.jakartainbox.inbox.eventid.PayloadFieldEventIdSource;
import io.github.jakartainbox.inbox.failure.FailurePolicy;
import io.github.jakartainbox.inbox.failure.RetryPolicy;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.spi.DeliveryOutcome;
import io.github.jakartainbox.inbox.spi.DeliverySpan;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * What a delivery path works with, in memory and without a container: the inbox table, JTA, the dead-letter table,
 * a trace span, the intercepted call. The delivery paths' unit tests share them.
 */
public final class DeliveryFakes {

    public static final String EVENT = "0190b7a0-1111-7222-8333-444455556666";

    private DeliveryFakes() {
    }

    /** @return an order event carrying {@code eventId} in its {@code event_id} field */
    public static String order(String eventId) {
        return "{\"event_id\":\"" + eventId + "\",\"order_id\":\"o-1\"}";
    }

    /**
     * @param maxAttempts the attempts an unclassified failure gets
     * @return the consumer {@code billing}: event ids in the payload's {@code event_id}, fingerprints kept, retries 1
     *         to 5 ms apart
     */
    public static ConsumerSettings billing(int maxAttempts) {
        return new ConsumerSettings("billing", new PayloadFieldEventIdSource("event_id"), 200,
                new FailurePolicy("billing", new RetryPolicy(maxAttempts, Duration.ofMillis(1), Duration.ofMillis(5)),
                        Duration.ofSeconds(5), Clock.systemUTC()), null, true, null);
    }

    /** The inbox table: a claim finds a row made before; rows a rolled-back transaction made are gone. */
    public static class Inbox extends InboxClaim {
        public final Set<String> rows = new HashSet<>();
        /** Every claim made, by event id. */
        public final List<String> claims = new ArrayList<>();

        @Override
        public void ready() {
        }

        @Override
        public LocalDate partitionMonth(ConsumerSettings consumer, Delivery delivery, String eventId) {
            return null;
        }

        @Override
        public Result claim(String consumer, String eventId, byte[] fingerprint, LocalDate month) {
            claims.add(eventId);
            return rows.add(consumer + "/" + eventId) ? Result.NEW : Result.DUPLICATE;
        }

        @Override
        public Result[] claimAll(String consumer, List<Claim> group) {
            Result[] results = new Result[group.size()];
            for (int i = 0; i < results.length; i++) {
                results[i] = claim(consumer, group.get(i).eventId(), group.get(i).fingerprint(), group.get(i).month());
            }
            return results;
        }
    }

    /** JTA on the calling thread: whether a transaction is active; a transaction of its own rolls the inbox back. */
    public static class Transactions extends InboxTransactions {
        public boolean active;
        public int begun;
        private final Inbox inbox;

        public Transactions(Inbox inbox) {
            this.inbox = inbox;
        }

        @Override
        public boolean active() {
            return active;
        }

        @Override
        public boolean isActive() {
            return active;
        }

        @Override
        public <T> T inOwnTransaction(Duration timeout, Callable<T> work) throws Exception {
            Set<String> before = new HashSet<>(inbox.rows);
            boolean outer = active;
            active = true;
            begun++;
            try {
                return work.call();
            } catch (Exception e) {
                inbox.rows.retainAll(before);
                throw e;
            } finally {
                active = outer;
            }
        }

        @Override
        public <T> T inOwnTransaction(Callable<T> work) throws Exception {
            return inOwnTransaction(null, work);
        }

        @Override
        public <T> T inNewTransaction(Callable<T> work) throws Exception {
            return inOwnTransaction(null, work);
        }
    }

    /** The dead-letter table: each row as {@code consumer/eventId/attempts/error}. */
    public static class DeadLetters extends DeadLetterStore {
        public final List<String> rows = new ArrayList<>();

        @Override
        public long record(String consumer, String eventId, Delivery delivery, String error, int attempts,
                           boolean withPayload) {
            rows.add(consumer + "/" + eventId + "/" + attempts + "/" + error);
            return rows.size();
        }
    }

    /** A trace span that keeps what it was told. */
    public static class Span implements DeliverySpan {
        public String eventId;
        public DeliveryOutcome outcome;
        public int retries;

        @Override
        public void eventId(String eventId) {
            this.eventId = eventId;
        }

        @Override
        public void retry(int attempt, Throwable failure) {
            retries++;
        }

        @Override
        public void outcome(DeliveryOutcome outcome, Throwable cause) {
            this.outcome = outcome;
        }
    }

    /** A channel's method: takes the message, the body is the test's. */
    public interface Body {
        Object run(Message<?> received) throws Exception;
    }

    /** The sample consumer whose method the calls intercept. */
    public static class Channel {
        public void onOrder(Message<String> order) {
        }
    }

    /** The intercepted call of {@link Channel#onOrder}: counts the method's runs, which do what its body says. */
    public static class Call extends FakeInvocation {

        public Call(Message<?> message, DeliveryFakes.Body body) {
            super(new Channel(), method(Channel.class, "onOrder", Message.class), new Object[] {message},
                    parameters -> body.run((Message<?>) parameters[0]));
        }
    }

    /** @return a message of {@code payload} whose acknowledgements are counted in {@code acks} */
    public static Message<String> message(String payload, AtomicInteger acks) {
        return Message.of(payload, () -> {
            acks.incrementAndGet();
            return CompletableFuture.completedFuture(null);
        });
    }

    /**
     * @return a Kafka record's message of {@code payload} aimed at consumer {@code aim} by the re-drive of dead letter
     *         {@code deadLetter}, whose acknowledgements are counted in {@code acks}
     */
    public static Message<String> aimed(String payload, String aim, String deadLetter, AtomicInteger acks) {
        org.apache.kafka.clients.consumer.ConsumerRecord<Object, Object> record =
                new org.apache.kafka.clients.consumer.ConsumerRecord<>("orders.confirmed", 0, 7L, null, payload);
        record.headers().add(io.github.jakartainbox.inbox.incoming.RedriveAim.CONSUMER_HEADER,
                aim.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        record.headers().add(io.github.jakartainbox.inbox.incoming.RedriveAim.DEAD_LETTER_HEADER,
                deadLetter.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return new Message<>() {
            @Override
            public String getPayload() {
                return payload;
            }

            @Override
            public java.util.concurrent.CompletionStage<Void> ack() {
                acks.incrementAndGet();
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public <C> C unwrap(Class<C> type) {
                if (type.isInstance(record)) {
                    return type.cast(record);
                }
                throw new IllegalArgumentException(type.getName());
            }
        };
    }

    /** The dead-letter table as a re-drive's aim is checked against it: confirms the aims the test lets it. */
    public static class RedriveTable extends io.github.jakartainbox.inbox.deadletter.InboxDeadLetters {
        public boolean confirms;
        /** The topic the last check was asked about. */
        public String topic;

        @Override
        public boolean confirmsRedriveAim(long id, String consumer, String eventId, byte[] payloadSha256,
                                          String topic) {
            this.topic = topic;
            return confirms;
        }
    }

    /** @return the re-drive aims check on {@code table}, counting in {@code statistics} */
    public static RedriveAims aims(RedriveTable table, io.github.jakartainbox.inbox.InboxStatistics statistics) {
        RedriveAims aims = new RedriveAims();
        aims.deadLetters = table;
        aims.statistics = statistics;
        return aims;
    }

    /** @return the call as the interceptor hands it to a path */
    public static DeliveryCall call(ConsumerSettings consumer, Call context, InboxClaim inbox, DeliverySpan span) {
        Delivery delivery = Delivery.of(context.getMethod(), context.getParameters());
        return new DeliveryCall(context, consumer, delivery, span, ClaimKey.of(consumer, delivery, inbox));
    }
}
