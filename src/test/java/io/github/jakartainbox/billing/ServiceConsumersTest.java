package io.github.jakartainbox.billing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.Idempotent;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@link ServiceConsumers} names every {@code @Idempotent} consumer of the billing packages, found by reading the
 * compiled classes: a consumer added without it would have no metrics (as the mailer and the JMS consumer once had).
 */
class ServiceConsumersTest {

    @Test
    void everyIdempotentConsumerOfTheBillingPackagesIsListed() throws IOException, URISyntaxException, ClassNotFoundException {
        Path dir = Path.of(ServiceConsumers.class.getResource("ServiceConsumers.class").toURI()).getParent();
        TreeSet<String> annotated = new TreeSet<>();
        List<Path> classes;
        try (Stream<Path> files = Files.walk(dir)) {
            classes = files.filter(f -> f.toString().endsWith(".class")).toList();
        }
        for (Path file : classes) {
            String relative = dir.relativize(file).toString().replace(".class", "");
            String name = "io.github.jakartainbox.billing." + relative.replace(file.getFileSystem().getSeparator(), ".");
            Class<?> type = Class.forName(name, false, getClass().getClassLoader());
            Method[] methods;
            try {
                methods = type.getDeclaredMethods();
            } catch (NoClassDefFoundError e) {
                continue; // a class whose signatures need a runtime API absent from unit tests
            }
            for (Method method : methods) {
                Idempotent idempotent = method.getAnnotation(Idempotent.class);
                if (idempotent != null) {
                    annotated.add(idempotent.consumer());
                }
            }
        }
        assertTrue(annotated.size() >= 4, "found " + annotated);
        assertEquals(annotated, new TreeSet<>(ServiceConsumers.ALL));
        assertTrue(ServiceConsumers.ALL.containsAll(ServiceConsumers.ORDERS));
        assertTrue(ServiceConsumers.ORDERS.contains(ServiceConsumers.JMS));
    }
}
