package io.github.jakartainbox.testing;

import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.testing.probes.ProbeConsumer;
import io.opentelemetry.sdk.autoconfigure.spi.traces.ConfigurableSpanExporterProvider;
import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.awaitility.Awaitility;
import org.hamcrest.Matcher;
import io.github.jakartainbox.testkit.IdempotencyCheck;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.importer.ZipImporter;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * The archive Arquillian deploys: the packaged billing WAR as built, plus the test helpers and probes, Awaitility and
 * Hamcrest (in-container tests wait with them), and a jar that turns on the application's own OpenTelemetry SDK
 * with the tests' in-memory span exporter ({@link MemorySpans}). That configuration is in the WAR, not in
 * server.xml: Liberty reads the SDK's runtime-level settings from the environment and system properties, and an
 * application-level SDK is the one that loads exporters from the application.
 */
public final class Deployments {

    private Deployments() {
    }

    public static WebArchive billingWithProbes() {
        File war = new File(System.getProperty("war.file", "target/billing.war"));
        return ShrinkWrap.create(ZipImporter.class, "billing.war").importFrom(war).as(WebArchive.class)
                .addPackage(Deployments.class.getPackage())
                .addPackage(ProbeConsumer.class.getPackage())
                .addClasses(SampleEvents.class, SampleEvents.Event.class, UuidV7.class)
                .addAsLibrary(telemetry())
                .addAsLibraries(jarOf(Awaitility.class), jarOf(Matcher.class));
    }

    /**
     * @return the test kit as a team's test deployment adds it: its compiled classes only ({@code target/classes}),
     *     never the tests and probes that share its package in {@code target/test-classes}
     */
    public static JavaArchive testKit() {
        Path classes = Path.of("target/classes");
        return ShrinkWrap.create(JavaArchive.class, "inbox-test-kit.jar")
                .addPackages(false, path -> Files.isRegularFile(classes.resolve(path.get().substring(1))),
                        IdempotencyCheck.class.getPackage());
    }

    /** @return the jar on the test class path that holds {@code type} (the server has neither library) */
    private static File jarOf(Class<?> type) {
        try {
            return new File(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Spans are batched for 100 ms at most, so that a test sees them soon after the delivery. */
    static final String TELEMETRY = """
            otel.sdk.disabled=false
            otel.service.name=billing-it
            otel.traces.exporter=it-memory
            otel.metrics.exporter=none
            otel.logs.exporter=none
            otel.bsp.schedule.delay=100
            """;

    private static JavaArchive telemetry() {
        return ShrinkWrap.create(JavaArchive.class, "it-telemetry.jar")
                .addAsManifestResource(new StringAsset(TELEMETRY), "microprofile-config.properties")
                .addAsServiceProvider(ConfigurableSpanExporterProvider.class, MemorySpans.class);
    }
}
