package io.github.jakartainbox.inbox.metrics;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class MetricsExtensionTest {

    @Test
    void thePublisherIsAddedOnlyWhereTheMetricsApiLoads() {
        ClassLoader loader = MetricsExtensionTest.class.getClassLoader();
        assertTrue(MetricsExtension.available(MetricsExtension.REGISTRY, loader), "the API is on the test classpath");
        assertFalse(MetricsExtension.available("org.eclipse.microprofile.metrics.NoSuchRegistry", loader));
    }

    @Test
    void aServerWithoutTheApiLoadsNoMetricsClass() {
        ClassLoader withoutMetrics = new ClassLoader(null) {
        };
        assertFalse(MetricsExtension.available(MetricsExtension.REGISTRY, withoutMetrics),
                "a loader that cannot see the API: the extension adds nothing, and throws nothing");
    }
}
