package io.github.jakartainbox.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The example's feature packages (docs/running.md, "Layout"): no two of them use each other, and the shared top
 * ({@code billing}: messages, key catalogue, schema, consumer names, topics) uses none of them.
 */
class ExamplePackagesTest {

    private static final String EXAMPLE = "io.github.jakartainbox.billing";

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().importPath(Path.of("target/classes"));
    }

    @Test
    void theFeaturePackagesHaveNoCycle() {
        slices().matching(EXAMPLE + ".(*)..").should().beFreeOfCycles().check(classes);
    }

    @Test
    void theSharedTopUsesNoFeaturePackage() {
        noClasses().that().resideInAPackage(EXAMPLE).should().dependOnClassesThat()
                .resideInAnyPackage(EXAMPLE + ".*..").because("each feature builds on the top, not the other way")
                .check(classes);
    }
}
