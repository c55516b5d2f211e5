package io.github.jakartainbox.inbox.consumer;

import io.github.jakartainbox.inbox.Idempotent;
import io.github.jakartainbox.inbox.InboxConfig;
import io.github.jakartainbox.inbox.eventid.BeanEventIdSource;
import io.github.jakartainbox.inbox.eventid.EventIdSource;
import io.github.jakartainbox.inbox.eventid.EventTimeSource;
import io.github.jakartainbox.inbox.eventid.KafkaHeaderEventIdSource;
import io.github.jakartainbox.inbox.eventid.PayloadFieldEventIdSource;
import io.github.jakartainbox.inbox.eventid.TransportEventIdSources;
import io.github.jakartainbox.inbox.failure.FailurePolicy;
import io.github.jakartainbox.inbox.failure.RetryPolicy;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import io.github.jakartainbox.inbox.spi.EventIdExtractor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.literal.NamedLiteral;
import jakarta.inject.Inject;
import java.lang.reflect.Method;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/** Resolves, once per method, the settings of the consumer an {@code @Idempotent} method belongs to. */
@ApplicationScoped
public class InboxConsumers {

    private final Map<Method, ConsumerSettings> byMethod = new ConcurrentHashMap<>();

    @Inject
    @Any
    Instance<EventIdExtractor> extractors;
    /** The event id sources transports bring (the {@code jms} package's). */
    @Inject
    @Any
    Instance<TransportEventIdSources> transportSources;

    public ConsumerSettings forMethod(Method method) {
        return byMethod.computeIfAbsent(method, m -> resolve(annotatedConsumer(m), extractors, transportSources));
    }

    public static String annotatedConsumer(Method method) {
        Idempotent binding = method.getAnnotation(Idempotent.class);
        if (binding == null) {
            binding = method.getDeclaringClass().getAnnotation(Idempotent.class);
        }
        if (binding == null) {
            throw new IllegalStateException(InboxMessage.INBOX0005E.format(method, "no @Idempotent found on the "
                    + "method or its class (is the binding inherited through a stereotype? name it directly)."));
        }
        return binding.consumer();
    }

    /**
     * @param annotated  the consumer name of the annotation
     * @param extractors the {@code EventIdExtractor} beans
     * @param transports the event id sources transports bring
     * @return the consumer's settings
     * @throws IllegalStateException (INBOX0004E) when a key has a wrong value
     */
    public static ConsumerSettings resolve(String annotated, Instance<EventIdExtractor> extractors,
                                           Iterable<? extends TransportEventIdSources> transports) {
        Config config = ConfigProvider.getConfig();
        String name = InboxConfig.consumerName(annotated);
        int maxLength = InboxConfig.EVENT_ID_MAX_LENGTH.get(config, annotated);
        RetryPolicy retry = new RetryPolicy(InboxConfig.RETRY_MAX_ATTEMPTS.get(config, annotated),
                InboxConfig.RETRY_DELAY.get(config, annotated), InboxConfig.RETRY_MAX_DELAY.get(config, annotated));
        FailurePolicy failures = new FailurePolicy(name, retry,
                InboxConfig.RETRY_TRANSIENT_BUDGET.get(config, annotated), Clock.systemUTC());
        String timeField = InboxConfig.EVENT_TIME_FIELD.find(config, annotated).orElse(null);
        boolean fingerprint = InboxConfig.FINGERPRINT.get(config, annotated).equals("payload");
        return new ConsumerSettings(name, eventIdSource(config, annotated, extractors, transports), maxLength, failures,
                new EventTimeSource(timeField), fingerprint,
                InboxConfig.TRANSACTION_TIMEOUT.find(config, annotated).orElse(null),
                InboxConfig.DEAD_LETTER_ORDER.get(config, annotated).equals("key"));
    }

    private static EventIdSource eventIdSource(Config config, String consumer, Instance<EventIdExtractor> extractors,
                                               Iterable<? extends TransportEventIdSources> transports) {
        String source = InboxConfig.EVENT_ID_SOURCE.get(config, consumer);
        for (TransportEventIdSources transport : transports) {
            EventIdSource brought = transport.create(source, config, consumer);
            if (brought != null) {
                return brought;
            }
        }
        switch (source) {
            case "header":
                return new KafkaHeaderEventIdSource(InboxConfig.EVENT_ID_HEADER.get(config, consumer));
            case "bean":
                String bean = InboxConfig.EVENT_ID_BEAN.find(config, consumer).orElse("");
                Instance<EventIdExtractor> candidates = extractors.select(NamedLiteral.of(bean));
                if (bean.isEmpty() || !candidates.isResolvable()) {
                    throw new IllegalStateException(InboxMessage.INBOX0004E.format(
                            InboxConfig.EVENT_ID_BEAN.consumerName(consumer), bean,
                            InboxConfig.EVENT_ID_BEAN.allowed()));
                }
                return new BeanEventIdSource(bean, candidates);
            default:
                return new PayloadFieldEventIdSource(InboxConfig.EVENT_ID_FIELD.get(config, consumer));
        }
    }
}
