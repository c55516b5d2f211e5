package io.github.jakartainbox.inbox.delivery;

import io.github.jakartainbox.inbox.Idempotent;
import io.github.jakartainbox.inbox.InboxConfig;
import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.consumer.InboxConsumers;
import io.github.jakartainbox.inbox.eventid.TransportEventIdSources;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.logging.InboxLog;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import io.github.jakartainbox.inbox.spi.EventIdExtractor;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.AnnotatedMethod;
import jakarta.enterprise.inject.spi.AnnotatedType;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.DeploymentException;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.WithAnnotations;
import jakarta.transaction.Transactional;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.reactive.messaging.Acknowledgment;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Checks every {@code @Idempotent} method when the application deploys and fails the deployment, naming the
 * method, when the inbox could not keep its promise for it.
 */
public class IdempotentExtension implements Extension {

    private static final Set<String> REACTIVE_TYPES = Set.of("org.reactivestreams.Publisher",
            "java.util.concurrent.Flow$Publisher", "io.smallrye.mutiny.Uni", "io.smallrye.mutiny.Multi",
            "org.eclipse.microprofile.reactive.streams.operators.PublisherBuilder",
            "org.eclipse.microprofile.reactive.streams.operators.ProcessorBuilder",
            "org.eclipse.microprofile.reactive.streams.operators.SubscriberBuilder",
            "org.reactivestreams.Subscriber", "org.reactivestreams.Processor");


    /** Namespaces under {@code inbox.} that other capabilities of the library declare and check themselves. */
    private static final List<String> OTHER_CAPABILITIES = List.of("inbox.outbox.");

    private final List<String> problems = new ArrayList<>();
    private final Map<String, List<Method>> methodsByConsumer = new TreeMap<>();

    /**
     * @return the {@code @Idempotent} methods found, by consumer name of the annotation, for the capabilities'
     *         own deployment checks (the {@code kafka} package's)
     */
    public Map<String, List<Method>> methodsByConsumer() {
        return java.util.Collections.unmodifiableMap(methodsByConsumer);
    }

    <T> void inspect(@Observes @WithAnnotations(Idempotent.class) ProcessAnnotatedType<T> event) {
        AnnotatedType<T> type = event.getAnnotatedType();
        boolean onType = type.isAnnotationPresent(Idempotent.class);
        for (AnnotatedMethod<? super T> annotated : type.getMethods()) {
            if (onType ? isBusinessMethod(annotated) : annotated.isAnnotationPresent(Idempotent.class)) {
                Idempotent binding = annotated.isAnnotationPresent(Idempotent.class)
                        ? annotated.getAnnotation(Idempotent.class) : type.getAnnotation(Idempotent.class);
                Method method = annotated.getJavaMember();
                check(type.getJavaClass(), method, binding).forEach(
                        p -> problems.add(InboxMessage.INBOX0005E.format(describe(method), p)));
                methodsByConsumer.computeIfAbsent(binding.consumer(), c -> new ArrayList<>()).add(method);
            }
        }
    }

    void report(@Observes AfterDeploymentValidation event, BeanManager beans) {
        Map<String, String> storedNames = new TreeMap<>();
        methodsByConsumer.forEach((consumer, methods) -> {
            String stored = checkConfiguration(consumer, methods, beans);
            if (stored != null) {
                storedNames.put(consumer, stored);
            }
        });
        problems.addAll(sharedStoredNames(storedNames, methodsByConsumer));
        problems.forEach(problem -> {
            InboxLog.LOG.severe(problem); // its own line, besides the deployment failure that carries it
            event.addDeploymentProblem(new DeploymentException(problem));
        });
        Config config = ConfigProvider.getConfig();
        for (String key : config.getPropertyNames()) {
            // retention keys may name consumers that only the purge knows (rows of a retired consumer)
            boolean retention = InboxConfig.consumerOf(key, InboxConfig.RETENTION).isPresent()
                    || InboxConfig.consumerOf(key, InboxConfig.TOPIC_RETENTION).isPresent();
            int afterConsumer = key.indexOf('.', InboxConfig.CONSUMER_PREFIX.length());
            if (!retention && key.startsWith(InboxConfig.CONSUMER_PREFIX) && afterConsumer > 0) {
                String consumer = key.substring(InboxConfig.CONSUMER_PREFIX.length(), afterConsumer);
                if (!methodsByConsumer.containsKey(consumer)) {
                    InboxMessage.INBOX0006W.log(consumer, key);
                }
            }
            if (!isKnownKey(key)) {
                InboxMessage.INBOX0011W.log(key);
            }
        }
        // the name has no global form: INBOX_NAME in the environment would otherwise be ignored in silence
        config.getOptionalValue(InboxConfig.NAME.globalName(), String.class)
                .ifPresent(value -> InboxMessage.INBOX0011W.log(InboxConfig.NAME.globalName()));
    }

    /**
     * @param storedNames      per consumer of an annotation, the name the inbox stores for it
     * @param methodsByConsumer per consumer of an annotation, its methods
     * @return one INBOX0007E problem for each consumer whose stored name an earlier consumer already has
     */
    static List<String> sharedStoredNames(Map<String, String> storedNames, Map<String, List<Method>> methodsByConsumer) {
        List<String> found = new ArrayList<>();
        Map<String, String> consumerByStoredName = new TreeMap<>();
        storedNames.forEach((consumer, stored) -> {
            String other = consumerByStoredName.putIfAbsent(stored, consumer);
            if (other != null) {
                found.add(InboxMessage.INBOX0007E.format(other, describe(methodsByConsumer.get(other)),
                        consumer, describe(methodsByConsumer.get(consumer)), stored));
            }
        });
        return found;
    }

    /**
     * @param key a configuration property name
     * @return {@code false} for a name in the inbox's namespace that is none of its keys (a misspelling, or a key
     *         without the form used); {@code true} for every other name
     */
    public static boolean isKnownKey(String key) {
        if (!key.startsWith(InboxConfig.PREFIX)) {
            return true;
        }
        // an environment variable (INBOX_CONSUMER_BILLING_RETRY_MAX_ATTEMPTS) may show with its dashes as dots: MP
        // Config finds it for the dashed name, so compare names the way its environment rule does
        String normal = envForm(key);
        for (InboxConfig.Key<?> known : InboxConfig.keys()) {
            if (known.scope() != InboxConfig.Scope.PER_CONSUMER && normal.equals(envForm(known.globalName()))) {
                return true;
            }
            if (InboxConfig.consumerOf(key, known).isPresent() || known.scope() != InboxConfig.Scope.GLOBAL
                    && normal.startsWith(envForm(InboxConfig.CONSUMER_PREFIX))
                    && normal.endsWith("_" + envForm(known.name()))
                    && normal.length() > envForm(InboxConfig.CONSUMER_PREFIX).length() + envForm(known.name()).length() + 1) {
                return true;
            }
        }
        return OTHER_CAPABILITIES.stream().anyMatch(key::startsWith);
    }

    /**
     * Resolves the consumer's configuration now, so that a wrong key fails the deployment, not a delivery.
     *
     * @return the name stored in the inbox for this consumer; {@code null} when its configuration is wrong
     */
    private String checkConfiguration(String consumer, List<Method> methods, BeanManager beans) {
        if (!InboxConfig.isValidConsumerName(consumer)) {
            return null; // already reported by check()
        }
        try {
            ConsumerSettings settings = InboxConsumers.resolve(consumer,
                    beans.createInstance().select(EventIdExtractor.class),
                    beans.createInstance().select(TransportEventIdSources.class));
            if (settings.eventIdSource().needsMessage()) {
                methods.stream().filter(m -> Delivery.messageParameterIndex(m) < 0).forEach(m -> problems.add(
                        InboxMessage.INBOX0005E.format(describe(m), "consumer '" + consumer + "' reads its event ids "
                                + "from a Kafka header, so the method must take a Message<T> parameter.")));
            }
            if (settings.eventIdSource().needsJmsMessage()) {
                methods.stream().filter(m -> Delivery.jmsParameterIndex(m) < 0).forEach(m -> problems.add(
                        InboxMessage.INBOX0005E.format(describe(m), "consumer '" + consumer + "' reads its event ids "
                                + "from a JMS message (event-id.source " + InboxConfig.EVENT_ID_SOURCE.get(ConfigProvider.getConfig(), consumer)
                                + "), so the method must take a jakarta.jms.Message parameter (a message-driven bean's onMessage).")));
            }
            return settings.name();
        } catch (IllegalStateException e) {
            problems.add(e.getMessage());
            return null;
        }
    }

    /**
     * @param bean    the bean class
     * @param method  an {@code @Idempotent} business method
     * @param binding its binding
     * @return what makes the method unfit for the inbox; empty when it is fine
     */
    static List<String> check(Class<?> bean, Method method, Idempotent binding) {
        List<String> found = new ArrayList<>();
        if (!InboxConfig.isValidConsumerName(binding.consumer())) {
            found.add("consumer '" + binding.consumer() + "' is not a valid consumer name: use 1 to 100 characters "
                    + "of [A-Za-z0-9._-], starting with a letter or digit.");
        }
        if (method.getParameterCount() == 0) {
            found.add("it takes no parameter, so there is no payload or message to read an event id from.");
        }
        int messageIndex = Delivery.messageParameterIndex(method);
        if (messageIndex >= 0 && method.getParameterTypes()[messageIndex] != Message.class) {
            found.add("declare the message parameter as Message<T>, not " + method.getParameterTypes()[messageIndex]
                    .getName() + ": the inbox hands the method a Message whose acknowledgement it defers.");
        }
        Class<?> returned = method.getReturnType();
        if (returned.isPrimitive() && returned != void.class) {
            found.add("it returns " + returned + "; a skipped duplicate has no value to return. Return void, a "
                    + "CompletionStage or an object (null on a duplicate).");
        }
        if (isReactive(returned)) {
            found.add("it returns " + returned.getName() + ", whose work could outlive the inbox transaction. "
                    + "Return void or a CompletionStage, and do the database work on the calling thread.");
        }
        Transactional tx = method.isAnnotationPresent(Transactional.class)
                ? method.getAnnotation(Transactional.class) : bean.getAnnotation(Transactional.class);
        if (tx != null && tx.value() != Transactional.TxType.REQUIRED && tx.value() != Transactional.TxType.MANDATORY
                && tx.value() != Transactional.TxType.SUPPORTS) {
            found.add("@Transactional(" + tx.value() + ") would separate the inbox claim from the method's work; "
                    + "remove it (@Idempotent implies REQUIRED) or use REQUIRED.");
        }
        TransactionAttribute attribute = method.isAnnotationPresent(TransactionAttribute.class)
                ? method.getAnnotation(TransactionAttribute.class) : bean.getAnnotation(TransactionAttribute.class);
        if (attribute != null && attribute.value() != TransactionAttributeType.REQUIRED
                && attribute.value() != TransactionAttributeType.MANDATORY) {
            found.add("@TransactionAttribute(" + attribute.value() + ") would run the claim and the work outside "
                    + "one container-managed transaction; use REQUIRED.");
        }
        TransactionManagement management = bean.getAnnotation(TransactionManagement.class);
        if (management != null && management.value() == TransactionManagementType.BEAN) {
            found.add("the bean manages its own transactions (BEAN); @Idempotent needs container-managed ones.");
        }
        Acknowledgment ack = method.getAnnotation(Acknowledgment.class);
        if (ack != null && ack.value() == Acknowledgment.Strategy.PRE_PROCESSING) {
            found.add("@Acknowledgment(PRE_PROCESSING) acknowledges before the transaction commits, so a crash "
                    + "would lose the event; remove it (the inbox acknowledges after the commit).");
        }
        return found;
    }

    private static boolean isBusinessMethod(AnnotatedMethod<?> annotated) {
        Method method = annotated.getJavaMember();
        int modifiers = method.getModifiers();
        return java.lang.reflect.Modifier.isPublic(modifiers) && !java.lang.reflect.Modifier.isStatic(modifiers)
                && method.getDeclaringClass() != Object.class;
    }

    private static boolean isReactive(Class<?> type) {
        for (Class<?> t = type; t != null; t = t.getSuperclass()) {
            if (REACTIVE_TYPES.contains(t.getName())) {
                return true;
            }
            for (Class<?> i : t.getInterfaces()) {
                if (isReactive(i)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** @return the name as MicroProfile Config's environment rule sees it: non-alphanumerics as _, upper case */
    private static String envForm(String name) {
        return name.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(java.util.Locale.ROOT);
    }

    private static String describe(List<Method> methods) {
        return methods.stream().map(IdempotentExtension::describe).collect(Collectors.joining(", "));
    }

    private static String describe(Method method) {
        return method.getDeclaringClass().getName() + "." + method.getName();
    }
}
