package io.github.jakartainbox.inbox;

import io.github.jakartainbox.inbox.spi.EventIdExtractor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.literal.NamedLiteral;
import jakarta.inject.Inject;
import java.lang.reflect.Method;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/** Resolves, once per method, the settings of the consumer an {@code @Idempotent} method belongs to. */
@ApplicationScoped
class InboxConsumers {

    private final Map<Method, ConsumerSettings> byMethod = new ConcurrentHashMap<>();

    @Inject
    @Any
    Instance<EventIdExtractor> extractors;

    ConsumerSettings forMethod(Method method) {
        return byMethod.computeIfAbsent(method, m -> resolve(annotatedConsumer(m), extractors));
    }

    static String annotatedConsumer(Method method) {
        Idempotent binding = method.getAnnotation(Idempotent.class);
        if (binding == null) {
            binding = method.getDeclaringClass().getAnnotation(Idempotent.class);
        }
        if (binding == null) {
            throw new IllegalStateException(InboxLog.format("INBOX0005E", method, "no @Idempotent found on the "
                    + "method or its class (is the binding inherited through a stereotype? name it directly)."));
        }
        return binding.consumer();
    }

    /**
     * @param annotated  the consumer name of the annotation
     * @param extractors the {@code EventIdExtractor} beans
     * @return the consumer's settings
     * @throws IllegalStateException (INBOX0004E) when a key has a wrong value
     */
    static ConsumerSettings resolve(String annotated, Instance<EventIdExtractor> extractors) {
        Config config = ConfigProvider.getConfig();
        String name = InboxConfig.consumerName(annotated);
        if (!InboxConfig.isValidConsumerName(name)) {
            throw new IllegalStateException(InboxLog.format("INBOX0004E", "inbox.consumer." + annotated + ".name",
                    name, "1 to 100 characters of [A-Za-z0-9._-] starting with a letter or digit"));
        }
        int maxLength = InboxConfig.perConsumerInt(config, annotated, InboxConfig.EVENT_ID_MAX_LENGTH,
                InboxConfig.EVENT_ID_MAX_LENGTH_DEFAULT, 1, EventIds.MAX_LENGTH_LIMIT);
        RetryPolicy retry = new RetryPolicy(
                InboxConfig.perConsumerInt(config, annotated, InboxConfig.RETRY_MAX_ATTEMPTS,
                        InboxConfig.RETRY_MAX_ATTEMPTS_DEFAULT, 1, 1000),
                InboxConfig.perConsumerDuration(config, annotated, InboxConfig.RETRY_DELAY,
                        InboxConfig.RETRY_DELAY_DEFAULT),
                InboxConfig.perConsumerDuration(config, annotated, InboxConfig.RETRY_MAX_DELAY,
                        InboxConfig.RETRY_MAX_DELAY_DEFAULT));
        String timeField = InboxConfig.perConsumer(config, annotated, InboxConfig.EVENT_TIME_FIELD, "");
        String fingerprint = InboxConfig.perConsumer(config, annotated, InboxConfig.FINGERPRINT,
                InboxConfig.FINGERPRINT_DEFAULT).toLowerCase(Locale.ROOT);
        if (!fingerprint.equals("payload") && !fingerprint.equals("none")) {
            throw new IllegalStateException(InboxLog.format("INBOX0004E",
                    "inbox.consumer." + annotated + "." + InboxConfig.FINGERPRINT, fingerprint, "payload or none"));
        }
        return new ConsumerSettings(name, eventIdSource(config, annotated, extractors), maxLength, retry,
                new EventTimeSource(timeField.isEmpty() ? null : timeField), fingerprint.equals("payload"));
    }

    private static EventIdSource eventIdSource(Config config, String consumer, Instance<EventIdExtractor> extractors) {
        String source = InboxConfig.perConsumer(config, consumer, InboxConfig.EVENT_ID_SOURCE,
                InboxConfig.EVENT_ID_SOURCE_DEFAULT).toLowerCase(Locale.ROOT);
        switch (source) {
            case "payload":
                return new PayloadFieldEventIdSource(InboxConfig.perConsumer(config, consumer,
                        InboxConfig.EVENT_ID_FIELD, InboxConfig.EVENT_ID_FIELD_DEFAULT));
            case "header":
                return new KafkaHeaderEventIdSource(InboxConfig.perConsumer(config, consumer,
                        InboxConfig.EVENT_ID_HEADER, InboxConfig.EVENT_ID_HEADER_DEFAULT));
            case "bean":
                String bean = InboxConfig.perConsumer(config, consumer, InboxConfig.EVENT_ID_BEAN, "");
                Instance<EventIdExtractor> candidates = extractors.select(NamedLiteral.of(bean));
                if (bean.isEmpty() || !candidates.isResolvable()) {
                    throw new IllegalStateException(InboxLog.format("INBOX0004E",
                            "inbox.consumer." + consumer + "." + InboxConfig.EVENT_ID_BEAN, bean,
                            "the @Named name of exactly one EventIdExtractor bean"));
                }
                return new BeanEventIdSource(bean, candidates);
            default:
                throw new IllegalStateException(InboxLog.format("INBOX0004E",
                        "inbox.consumer." + consumer + "." + InboxConfig.EVENT_ID_SOURCE, source,
                        "one of payload, header, bean"));
        }
    }
}
