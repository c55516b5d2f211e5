package io.github.jakartainbox.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package rules of docs/architecture.md, checked on the compiled main classes: no package cycle anywhere, the
 * library's floors, capabilities that do not reach into each other (health reads the others), and an example that
 * uses only the library's API.
 */
class PackageRulesTest {

    private static final String ROOT = "io.github.jakartainbox.inbox";

    /**
     * The library's floors, from the ground up (docs/architecture.md, "Floors"): a floor uses the floors below it,
     * never one above. Inside a floor the packages may use each other, but for the capabilities.
     */
    private static final String[][] FLOORS = {
            {"Ground", ROOT + ".text..", ROOT + ".spi..", ROOT + ".logging..", ROOT + ".sqlstate..",
                    ROOT + ".incoming.."},
            {"Api", ROOT},
            {"Basics", ROOT + ".eventid..", ROOT + ".failure..", ROOT + ".database.."},
            {"Consumers", ROOT + ".consumer.."},
            {"DeadLetters", ROOT + ".deadletter.."},
            {"Claim", ROOT + ".claim.."},
            {"Pipeline", ROOT + ".delivery.."},
            {"Capabilities", ROOT + ".kafka..", ROOT + ".jms..", ROOT + ".tracing..", ROOT + ".retention..",
                    ROOT + ".metrics.."},
            {"Reports", ROOT + ".health.."},
            {"Users", "io.github.jakartainbox.outbox..", "io.github.jakartainbox.testkit..",
                    "io.github.jakartainbox.billing.."}};

    /** The capabilities: each can be left out of a deployment's use without the floors below noticing. */
    private static final String[] CAPABILITIES = {ROOT + ".kafka..", ROOT + ".jms..", ROOT + ".health..",
            ROOT + ".tracing..", ROOT + ".retention..", ROOT + ".metrics.."};

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().importPath(Path.of("target/classes"));
    }

    @Test
    void noPackageIsInACycle() {
        slices().matching("io.github.jakartainbox.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void eachFloorUsesOnlyTheFloorsBelowIt() {
        LayeredArchitecture floors = layeredArchitecture().consideringOnlyDependenciesInLayers();
        for (String[] floor : FLOORS) {
            floors = floors.layer(floor[0]).definedBy(Arrays.copyOfRange(floor, 1, floor.length));
        }
        for (int i = 0; i < FLOORS.length - 1; i++) {
            String[] above = new String[FLOORS.length - 1 - i];
            for (int j = i + 1; j < FLOORS.length; j++) {
                above[j - i - 1] = FLOORS[j][0];
            }
            floors = floors.whereLayer(FLOORS[i][0]).mayOnlyBeAccessedByLayers(above);
        }
        floors.whereLayer(FLOORS[FLOORS.length - 1][0]).mayNotBeAccessedByAnyLayer()
                .because("a floor calls down; what lies above plugs in (docs/architecture.md, \"Floors\")")
                .check(classes);
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
                        ROOT + ".jms..", ROOT + ".health..", ROOT + ".tracing..", ROOT + ".consumer..",
                        ROOT + ".incoming..", ROOT + ".sqlstate..", ROOT + ".metrics..")
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
}
