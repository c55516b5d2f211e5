package io.github.jakartainbox.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The library's API is what docs/using-the-library.md lists under "Public types": every type named there is public,
 * and every public type of the API packages ({@code inbox}, {@code inbox.spi}, {@code inbox.text},
 * {@code inbox.deadletter}, {@code inbox.retention}, the test kit's {@code testkit}) is named there, as a type of the
 * API or as one public only because a container requires it. Every other inbox package is internal and left out of the
 * inbox's Javadoc (modules/inbox/pom.xml, execution {@code inbox-javadoc}).
 */
class PublicApiTest {

    private static final String ROOT = "io.github.jakartainbox.";
    private static final Set<String> API_PACKAGES = Set.of("inbox", "inbox.spi", "inbox.text", "inbox.deadletter",
            "inbox.retention", "testkit");

    @Test
    void thePublicTypesAreTheDocumentedOnes() throws Exception {
        Set<String> documented = documented();
        assertFalse(documented.isEmpty(), "no list found under \"## Public types\" in docs/using-the-library.md");
        Set<String> publicInApiPackages = new TreeSet<>();
        Set<String> publicAnywhere = new TreeSet<>();
        for (JavaClass type : new ClassFileImporter().importPath(Path.of("target/classes"))) {
            if (!type.isTopLevelClass() || !type.getModifiers().contains(JavaModifier.PUBLIC)
                    || type.getSimpleName().equals("package-info")) {
                continue;
            }
            String name = type.getName().substring(ROOT.length());
            publicAnywhere.add(name);
            if (API_PACKAGES.contains(type.getPackageName().substring(ROOT.length()))) {
                publicInApiPackages.add(name);
            }
        }
        Set<String> documentedInApiPackages = new TreeSet<>();
        Set<String> publicByNecessity = publicByNecessity();
        assertFalse(publicByNecessity.isEmpty(), "no types \"public because CDI, EJB, ...\" found in "
                + "docs/using-the-library.md");
        for (String name : publicByNecessity) {
            if (API_PACKAGES.contains(name.substring(0, name.lastIndexOf('.')))) {
                documentedInApiPackages.add(name);
            }
        }
        for (String name : documented) {
            if (API_PACKAGES.contains(name.substring(0, name.lastIndexOf('.')))) {
                documentedInApiPackages.add(name);
            }
        }
        assertEquals(documentedInApiPackages, publicInApiPackages,
                "the public types of the API packages against docs/using-the-library.md, \"Public types\"");
        Set<String> missing = new TreeSet<>(documented);
        missing.removeAll(publicAnywhere);
        assertEquals(Set.of(), missing, "types docs/using-the-library.md lists that are not public types of the code");
    }

    @Test
    void theInboxJavadocLeavesOutEveryInternalPackage() throws Exception {
        Set<String> internal = new TreeSet<>();
        for (JavaClass type : new ClassFileImporter().importPath(Path.of("target/classes"))) {
            String pkg = type.getPackageName();
            if (pkg.startsWith(ROOT + "inbox.") && !API_PACKAGES.contains(pkg.substring(ROOT.length()))) {
                internal.add(pkg);
            }
        }
        String pom = Files.readString(Path.of("modules/inbox/pom.xml"));
        Matcher excluded = Pattern.compile(
                "<id>inbox-javadoc</id>[\\s\\S]*?<excludePackageNames>([^<]*)</excludePackageNames>").matcher(pom);
        assertTrue(excluded.find(), "no excludePackageNames in modules/inbox/pom.xml's inbox-javadoc execution");
        assertEquals(internal, new TreeSet<>(Arrays.asList(excluded.group(1).trim().split(":"))),
                "the internal inbox packages against those the inbox Javadoc leaves out");
    }

    /** @return the types the page says are public only because a container requires it, as {@code delivery.X} */
    private static Set<String> publicByNecessity() throws Exception {
        String page = Files.readString(Path.of("docs/using-the-library.md"));
        int start = page.indexOf("`PublicApiTest` checks this list against the code.");
        String sentence = page.substring(start, page.indexOf("are public because", start));
        Set<String> names = new TreeSet<>();
        Matcher type = Pattern.compile("`([a-z.]+\\.[A-Z]\\w*)`").matcher(sentence);
        while (type.find()) {
            names.add("inbox." + type.group(1));
        }
        return names;
    }

    /** @return the types the list names, as {@code inbox.text.Utf8} */
    private static Set<String> documented() throws Exception {
        String page = Files.readString(Path.of("docs/using-the-library.md"));
        int start = page.indexOf("## Public types");
        String section = page.substring(start, page.indexOf("\n## ", start + 1));
        Set<String> names = new TreeSet<>();
        Matcher item = Pattern.compile("(?m)^- `([a-z.]+)`: (.*(?:\\n  .*)*)").matcher(section);
        while (item.find()) {
            Matcher type = Pattern.compile("`([A-Z]\\w*)`").matcher(item.group(2));
            while (type.find()) {
                names.add(item.group(1) + "." + type.group(1));
            }
        }
        return names;
    }
}
