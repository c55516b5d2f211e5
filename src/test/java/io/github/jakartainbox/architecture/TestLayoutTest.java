package io.github.jakartainbox.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The tests mirror the main packages: a test lives in the package of what it tests, so that a reader finds a class's
 * tests beside it. Only the test support has packages of its own (docs/running.md, "Layout").
 */
class TestLayoutTest {

    /**
     * Test-only packages: helpers and probes, the fault suite, the XA tests' application, these rules, docs checks,
     * and the benchmarks' runner (src/test/bench/java, compiled in the Maven profile bench).
     */
    private static final Set<String> SUPPORT = Set.of("io.github.jakartainbox.testing",
            "io.github.jakartainbox.testing.probes", "io.github.jakartainbox.faults", "io.github.jakartainbox.xa",
            "io.github.jakartainbox.architecture", "io.github.jakartainbox.docs", "io.github.jakartainbox.bench");

    @Test
    void everyTestPackageIsAMainPackageOrTestSupport() {
        Set<String> main = new ClassFileImporter().importPath(Path.of("target/classes")).stream()
                .map(JavaClass::getPackageName).collect(Collectors.toSet());
        Set<String> stray = new TreeSet<>();
        for (JavaClass test : new ClassFileImporter().importPath(Path.of("target/test-classes"))) {
            String pkg = test.getPackageName();
            if (!main.contains(pkg) && !SUPPORT.contains(pkg)) {
                stray.add(test.getName());
            }
        }
        assertEquals(Set.of(), stray, "test classes outside the main packages and the support packages: move each"
                + " into the package of what it tests");
    }
}
