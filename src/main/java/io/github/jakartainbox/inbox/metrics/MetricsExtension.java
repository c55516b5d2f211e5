package io.github.jakartainbox.inbox.metrics;

import io.github.jakartainbox.inbox.Idempotent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AnnotatedMethod;
import jakarta.enterprise.inject.spi.AnnotatedType;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.WithAnnotations;
import jakarta.interceptor.Interceptor;
import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;

/**
 * Adds {@link MetricsPublisher} as a bean when the application sees the MicroProfile Metrics API, and collects the
 * consumers it publishes figures for. Without {@code mpMetrics} the publisher is never loaded: no class-loading
 * failure, no log line.
 */
public class MetricsExtension implements Extension {

    static final String REGISTRY = "org.eclipse.microprofile.metrics.MetricRegistry";

    private final Set<String> annotatedConsumers = Collections.synchronizedSet(new TreeSet<>());

    void addPublisher(@Observes BeforeBeanDiscovery event) {
        if (available(REGISTRY, MetricsExtension.class.getClassLoader())) {
            event.addAnnotatedType(MetricsPublisher.class, MetricsPublisher.class.getName())
                    .add(ApplicationScoped.Literal.INSTANCE);
        }
    }

    <T> void collect(@Observes @WithAnnotations(Idempotent.class) ProcessAnnotatedType<T> event) {
        AnnotatedType<T> type = event.getAnnotatedType();
        if (type.isAnnotationPresent(Interceptor.class)) {
            return; // the inbox's own interceptor carries the binding, with no consumer
        }
        Idempotent onType = type.getAnnotation(Idempotent.class);
        if (onType != null) {
            annotatedConsumers.add(onType.consumer());
        }
        for (AnnotatedMethod<? super T> method : type.getMethods()) {
            Idempotent binding = method.getAnnotation(Idempotent.class);
            if (binding != null) {
                annotatedConsumers.add(binding.consumer());
            }
        }
    }

    /** @return the consumer names of the application's {@code @Idempotent} annotations, as written there */
    Set<String> annotatedConsumers() {
        synchronized (annotatedConsumers) {
            return new TreeSet<>(annotatedConsumers);
        }
    }

    /**
     * @param className a class name
     * @param loader    the loader to ask
     * @return whether the class loads
     */
    static boolean available(String className, ClassLoader loader) {
        try {
            Class.forName(className, false, loader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
