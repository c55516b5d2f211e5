package io.github.jakartainbox.inbox;

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
import java.util.logging.Level;
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

    private static final String CONSUMER_KEYS = "inbox.consumer.";

    private final List<String> problems = new ArrayList<>();
    private final Map<String, List<Method>> methodsByConsumer = new TreeMap<>();

    <T> void inspect(@Observes @WithAnnotations(Idempotent.class) ProcessAnnotatedType<T> event) {
        AnnotatedType<T> type = event.getAnnotatedType();
        boolean onType = type.isAnnotationPresent(Idempotent.class);
        for (AnnotatedMethod<? super T> annotated : type.getMethods()) {
            if (onType ? isBusinessMethod(annotated) : annotated.isAnnotationPresent(Idempotent.class)) {
                Idempotent binding = annotated.isAnnotationPresent(Idempotent.class)
                        ? annotated.getAnnotation(Idempotent.class) : type.getAnnotation(Idempotent.class);
                Method method = annotated.getJavaMember();
                check(type.getJavaClass(), method, binding).forEach(
                        p -> problems.add(InboxLog.format("INBOX0005E", describe(method), p)));
                methodsByConsumer.computeIfAbsent(binding.consumer(), c -> new ArrayList<>()).add(method);
            }
        }
    }

    void report(@Observes AfterDeploymentValidation event, BeanManager beans) {
        methodsByConsumer.forEach((consumer, methods) -> checkConfiguration(consumer, methods, beans));
        problems.forEach(problem -> {
            InboxLog.LOG.severe(problem); // its own line, besides the deployment failure that carries it
            event.addDeploymentProblem(new DeploymentException(problem));
        });
        methodsByConsumer.values().forEach(methods -> KafkaIsolationCheck.readUncommitted(ConfigProvider.getConfig(),
                methods).forEach(f -> InboxLog.log(Level.WARNING, "INBOX0007W", describe(f.method()), f.channel(),
                f.isolationLevel())));
        for (String key : ConfigProvider.getConfig().getPropertyNames()) {
            // retention keys may name consumers that only the purge knows (rows of a retired consumer)
            boolean retention = key.endsWith("." + InboxConfig.RETENTION) || key.endsWith("." + InboxConfig.TOPIC_RETENTION);
            if (!retention && key.startsWith(CONSUMER_KEYS) && key.indexOf('.', CONSUMER_KEYS.length()) > 0) {
                String consumer = key.substring(CONSUMER_KEYS.length(), key.indexOf('.', CONSUMER_KEYS.length()));
                if (!methodsByConsumer.containsKey(consumer)) {
                    InboxLog.log(Level.WARNING, "INBOX0006W", consumer, key);
                }
            }
        }
    }

    /** Resolves the consumer's configuration now, so that a wrong key fails the deployment, not a delivery. */
    private void checkConfiguration(String consumer, List<Method> methods, BeanManager beans) {
        if (!InboxConfig.isValidConsumerName(consumer)) {
            return; // already reported by check()
        }
        try {
            ConsumerSettings settings = InboxConsumers.resolve(consumer,
                    beans.createInstance().select(EventIdExtractor.class));
            if (settings.eventIdSource().needsMessage()) {
                methods.stream().filter(m -> Delivery.messageParameterIndex(m) < 0).forEach(m -> problems.add(
                        InboxLog.format("INBOX0005E", describe(m), "consumer '" + consumer + "' reads its event ids "
                                + "from a Kafka header, so the method must take a Message<T> parameter.")));
            }
        } catch (IllegalStateException e) {
            problems.add(e.getMessage());
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

    private static String describe(Method method) {
        return method.getDeclaringClass().getName() + "." + method.getName();
    }
}
