package io.github.jakartainbox.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The library's API is what docs/using-the-library.md lists under "Public types": every type named there is public,
 * and every public type of the API packages ({@code inbox}, {@code inbox.spi}, {@code inbox.text}, the test kit's
 * {@code testkit}) is named there.
 */
class PublicApiTest {

    private static final String ROOT = "io.github.jakartainbox.";
    private static final Set<String> API_PACKAGES = Set.of("inbox", "inbox.spi", "inbox.text", "testkit");

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
