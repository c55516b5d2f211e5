package io.github.jakartainbox.inbox.consumer;

import io.github.jakartainbox.inbox.Idempotent;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.AnnotatedMethod;
import jakarta.enterprise.inject.spi.AnnotatedType;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.WithAnnotations;
import jakarta.transaction.Transactional;
import java.lang.annotation.Annotation;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * Finds, at deployment, the Reactive Messaging channels whose messages go through {@code @Idempotent}: the
 * {@code @Incoming} methods annotated {@code @Idempotent}, or declared on a type annotated so; and the application's
 * other {@code @Incoming} channels, which have no inbox. The readiness check {@link InboxChannelsCheck} watches the
 * Kafka consumers of both: a channel that liberty-kafka shut down stops its events whether or not it has an inbox.
 */
public class IdempotentChannels implements Extension {

    private final Map<String, String> consumerByChannel = new TreeMap<>();
    private final Set<String> incoming = new TreeSet<>();
    /** Every {@code @Idempotent} consumer of the application, with or without a channel (a message-driven bean). */
    private final Set<String> consumers = new TreeSet<>();
    /** Channels whose method begins or joins a transaction of its own ({@code @Transactional} REQUIRED or REQUIRES_NEW). */
    private final Set<String> transactional = new TreeSet<>();
    /** System.nanoTime() when the deployment was validated: the application's start, as readiness counts it. */
    private volatile long startedNanos = System.nanoTime();

    <T> void inspect(@Observes @WithAnnotations({Idempotent.class, Incoming.class}) ProcessAnnotatedType<T> event) {
        AnnotatedType<T> type = event.getAnnotatedType();
        for (AnnotatedMethod<? super T> method : type.getMethods()) {
            Idempotent binding = method.isAnnotationPresent(Idempotent.class) ? method.getAnnotation(Idempotent.class)
                    : type.getAnnotation(Idempotent.class);
            if (binding != null) {
                found(binding.consumer(), null);
            }
            // not getAnnotations(Incoming.class): that resolves @Incoming's repeatable container, a SmallRye type
            // Liberty does not show to applications ("Type ...annotations.Incomings not present")
            for (Annotation annotation : method.getAnnotations()) {
                if (annotation instanceof Incoming in) {
                    incoming.add(in.value());
                    if (transactional(method, type)) {
                        transactional.add(in.value());
                    }
                    if (binding != null) {
                        found(binding.consumer(), in.value());
                    }
                }
            }
        }
    }

    /** Records an {@code @Idempotent} consumer and, when it has one, the {@code @Incoming} channel it reads. */
    void found(String consumer, String channel) {
        consumers.add(consumer);
        if (channel != null) {
            consumerByChannel.put(channel, consumer);
        }
    }

    void started(@Observes AfterDeploymentValidation event) {
        startedNanos = System.nanoTime();
    }

    /** @return the time since the application started (its deployment was validated) */
    public Duration sinceStart() {
        return Duration.ofNanos(System.nanoTime() - startedNanos);
    }

    /**
     * A channel attribute as the connector sees it: the channel's own key, else the connector-wide one
     * ({@code mp.messaging.connector.<connector>.<attribute>}).
     *
     * @param config    the application's configuration
     * @param channel   the channel name
     * @param attribute such as {@code group.id} or {@code bootstrap.servers}
     * @return its value, empty when neither key is set
     */
    public static Optional<String> attribute(Config config, String channel, String attribute) {
        Optional<String> own = config.getOptionalValue("mp.messaging.incoming." + channel + "." + attribute, String.class);
        if (own.isPresent() || attribute.equals("connector")) {
            return own;
        }
        return config.getOptionalValue("mp.messaging.incoming." + channel + ".connector", String.class)
                .flatMap(c -> config.getOptionalValue("mp.messaging.connector." + c + "." + attribute, String.class));
    }

    /** @return channel name to the {@code @Idempotent(consumer)} value of its method, sorted by channel */
    public Map<String, String> consumerByChannel() {
        return Collections.unmodifiableMap(consumerByChannel);
    }

    /**
     * @return the {@code @Incoming} channels whose method, or its type, is {@code @Transactional} with
     *         {@code REQUIRED} or {@code REQUIRES_NEW}: it runs in a transaction whether or not its caller has one
     */
    public Set<String> transactionalChannels() {
        return Collections.unmodifiableSet(transactional);
    }

    private static boolean transactional(AnnotatedMethod<?> method, AnnotatedType<?> type) {
        Transactional tx = method.isAnnotationPresent(Transactional.class) ? method.getAnnotation(Transactional.class)
                : type.getAnnotation(Transactional.class);
        return tx != null && (tx.value() == Transactional.TxType.REQUIRED
                || tx.value() == Transactional.TxType.REQUIRES_NEW);
    }

    /**
     * Whether a record of the topic can reach the consumer, as far as this application can tell: {@code false} only
     * when the application runs that consumer and none of its channels reads the topic (a message-driven bean, a
     * consumer of other topics). A re-drive aim at such a consumer on this topic is no re-drive, whatever the database
     * holds: a JMS queue's re-drive is recorded under the queue's name, which a topic may share.
     *
     * @param consumer the {@code @Idempotent(consumer)} name
     * @param topic    the topic the record was read from
     * @param config   the application's configuration, for the channels' {@code topic}, {@code topics} and
     *                 {@code pattern} attributes (a channel's topic is its name when none is set)
     * @return {@code false} when the consumer cannot read the topic here; {@code true} when it can, when one of its
     *         channels subscribes by pattern, or when this application does not run it
     */
    public boolean mayRead(String consumer, String topic, Config config) {
        if (!consumers.contains(consumer)) {
            return true;
        }
        for (Map.Entry<String, String> channel : consumerByChannel.entrySet()) {
            if (!channel.getValue().equals(consumer)) {
                continue;
            }
            if (attribute(config, channel.getKey(), "pattern").map(Boolean::parseBoolean).orElse(false)) {
                return true;
            }
            String topics = attribute(config, channel.getKey(), "topic")
                    .or(() -> attribute(config, channel.getKey(), "topics")).orElse(channel.getKey());
            for (String named : topics.split(",")) {
                if (named.trim().equals(topic)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** @return every {@code @Incoming} channel of the application, {@code @Idempotent} or not, sorted */
    public Set<String> incomingChannels() {
        return Collections.unmodifiableSet(incoming);
    }
}
