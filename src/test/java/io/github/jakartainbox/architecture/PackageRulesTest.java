package io.github.jakartainbox.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.PackageMatcher;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package rules of docs/architecture.md, checked on the compiled main classes: the core never reaches into a
 * capability (but for the calls listed in {@link #CORE_TO_CAPABILITY}, which may only shrink), capabilities do not
 * reach into each other (health reads the others), and the example uses only the library's API.
 */
class PackageRulesTest {

    private static final String ROOT = "io.github.jakartainbox.inbox";

    /** The core: the API and SPI, and the internals every delivery path uses. */
    private static final String[] CORE = {ROOT, ROOT + ".spi..", ROOT + ".text..", ROOT + ".claim..",
            ROOT + ".eventid..", ROOT + ".failure..", ROOT + ".database..", ROOT + ".logging..",
            ROOT + ".deadletter..", ROOT + ".delivery.."};

    /** The capabilities: each can be left out of a deployment's use without the core noticing. */
    private static final String[] CAPABILITIES = {ROOT + ".kafka..", ROOT + ".jms..", ROOT + ".health..",
            ROOT + ".tracing..", ROOT + ".retention..", ROOT + ".metrics.."};

    /**
     * Calls from the core into a capability that are still direct (origin class -> target class, top-level names).
     * Each is a step left to one delivery pipeline; the test fails when one goes away without being struck out
     * here, and when a new one appears.
     */
    private static final Set<String> CORE_TO_CAPABILITY = Set.of(
            "InboxStatistics -> retention.InboxPurge",
            "claim.Delivery -> jms.JmsMessages",
            "deadletter.InboxRedrives -> kafka.KafkaRecordMessage",
            "delivery.IdempotentExtension -> kafka.KafkaClientVersion",
            "delivery.IdempotentExtension -> kafka.KafkaIsolationCheck",
            "delivery.IdempotentInterceptor -> jms.JmsDeliveries",
            "delivery.IdempotentInterceptor -> tracing.InboxTracing",
            "delivery.InboxConsumers -> jms.JmsMessageIdEventIdSource",
            "delivery.InboxConsumers -> jms.JmsPropertyEventIdSource");

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().importPath(Path.of("target/classes"));
    }

    @Test
    void theCoreReachesIntoCapabilitiesOnlyWhereListed() {
        Set<String> found = new TreeSet<>();
        for (JavaClass origin : classes) {
            if (!inAny(origin, CORE)) {
                continue;
            }
            for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
                JavaClass target = dependency.getTargetClass();
                if (inAny(target, CAPABILITIES)) {
                    found.add(name(origin) + " -> " + name(target));
                }
            }
        }
        assertEquals(new TreeSet<>(CORE_TO_CAPABILITY), found,
                "calls from the core into a capability (see docs/architecture.md, \"Package rules\")");
    }

    @Test
    void capabilitiesDoNotReachIntoEachOther() {
        for (String capability : CAPABILITIES) {
            if (capability.equals(ROOT + ".health..")) {
                continue; // health reports on the others: the channels' lag, the broker's retention
            }
            Set<String> rest = new TreeSet<>(Set.of(CAPABILITIES));
            rest.remove(capability);
            noClasses().that().resideInAPackage(capability).should().dependOnClassesThat()
                    .resideInAnyPackage(rest.toArray(String[]::new))
                    .because("a capability is used through the core, not by another capability")
                    .check(classes);
        }
    }

    @Test
    void theExampleUsesOnlyTheApi() {
        noClasses().that().resideInAPackage("io.github.jakartainbox.billing..").should().dependOnClassesThat()
                .resideInAnyPackage(ROOT + ".claim..", ROOT + ".eventid..", ROOT + ".failure..",
                        ROOT + ".database..", ROOT + ".logging..", ROOT + ".delivery..", ROOT + ".kafka..",
                        ROOT + ".jms..", ROOT + ".health..", ROOT + ".tracing..", ROOT + ".metrics..")
                .because("the example is written as an adopter would write it: docs/using-the-library.md, "
                        + "\"Public types\"")
                .check(classes);
    }

    @Test
    void theLibraryDoesNotUseTheExample() {
        noClasses().that().resideInAnyPackage(ROOT + "..", "io.github.jakartainbox.outbox..").should()
                .dependOnClassesThat().resideInAPackage("io.github.jakartainbox.billing..").check(classes);
    }

    @Test
    void theTestKitUsesOnlyTheInboxApiAndNothingUsesTheTestKit() {
        com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes().that()
                .resideInAPackage("io.github.jakartainbox.testkit..").should().onlyDependOnClassesThat()
                .resideInAnyPackage("java..", "javax.sql..", "io.github.jakartainbox.testkit..", ROOT)
                .because("the test kit is an artifact of its own on the inbox's API: its POM names the inbox alone")
                .check(classes);
        noClasses().that().resideOutsideOfPackage("io.github.jakartainbox.testkit..").should()
                .dependOnClassesThat().resideInAPackage("io.github.jakartainbox.testkit..")
                .because("the WAR and the library's jars leave the test kit out").check(classes);
    }

    private static boolean inAny(JavaClass type, String[] packages) {
        return Arrays.stream(packages).anyMatch(p -> PackageMatcher.of(p).matches(type.getPackageName()));
    }

    /** @return the top-level class's name relative to the library's root package */
    private static String name(JavaClass type) {
        JavaClass top = type;
        while (top.getEnclosingClass().isPresent()) {
            top = top.getEnclosingClass().get();
        }
        return top.getName().substring(ROOT.length() + 1);
    }
}
