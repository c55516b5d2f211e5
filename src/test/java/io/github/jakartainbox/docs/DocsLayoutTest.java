package io.github.jakartainbox.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/running.md's "Layout" names every source root of the build, and nothing that is not there: each
 * {@code src/*}{@code /java}, each directory under {@code src/main} and {@code src/test}, each
 * directory of Flyway migrations, and each source or resource directory pom.xml names.
 */
class DocsLayoutTest {

    private static final Path PAGE = Path.of("docs/running.md");

    /** A source directory or resource directory the pom names (the default ones are found on disk). */
    private static final Pattern POM_DIRECTORY = Pattern.compile(
            "<(directory|source|compileSourceRoot|sourceDirectory|testSourceDirectory|classesDirectory)>"
                    + "(?:\\$\\{project\\.basedir}/)?(src/[^<$]+?)/?</\\1>");

    /** @return the first word of each unindented line of the code block under "## Layout", "/..." and "/" cut off */
    static List<String> listed(String page) {
        List<String> lines = page.lines().toList();
        int at = lines.indexOf("## Layout");
        assertTrue(at >= 0, PAGE + " has a section \"## Layout\"");
        List<String> entries = new ArrayList<>();
        boolean fenced = false;
        for (String line : lines.subList(at + 1, lines.size())) {
            if (line.startsWith("```")) {
                if (fenced) {
                    break;
                }
                fenced = true;
            } else if (!fenced && line.startsWith("#")) {
                break;
            } else if (fenced && !line.isBlank() && !Character.isWhitespace(line.charAt(0))) {
                String entry = line.split("\\s+", 2)[0];
                entry = entry.endsWith("/...") ? entry.substring(0, entry.length() - 4) : entry;
                entries.add(entry.endsWith("/") ? entry.substring(0, entry.length() - 1) : entry);
            }
        }
        return entries;
    }

    private static List<String> layout() {
        List<String> entries = listed(Markdown.read(PAGE));
        assertTrue(entries.size() >= 10, "the Layout's code block was read: " + entries);
        return entries;
    }

    /** @return the directories the build compiles or copies, found on disk and in pom.xml */
    static Set<String> sourceRoots() throws IOException {
        Set<String> roots = new TreeSet<>();
        for (String parent : List.of("src/main", "src/test")) {
            children(Path.of(parent)).forEach(roots::add);
        }
        for (String part : children(Path.of("src"))) {
            if (Files.isDirectory(Path.of(part, "java"))) {
                roots.add(part + "/java");
            }
        }
        Matcher pom = POM_DIRECTORY.matcher(Files.readString(Path.of("pom.xml")));
        while (pom.find()) {
            roots.add(pom.group(2));
        }
        return roots;
    }

    /** @return each directory holding Flyway migrations (V*.sql) under src/main/resources */
    static Set<String> migrationDirectories() throws IOException {
        Set<String> directories = new TreeSet<>();
        try (Stream<Path> files = Files.walk(Path.of("src/main/resources"))) {
            files.filter(p -> p.getFileName().toString().matches("V[0-9_.]+__.*\\.sql"))
                    .forEach(p -> directories.add(p.getParent().toString().replace('\\', '/')));
        }
        return directories;
    }

    private static List<String> children(Path directory) {
        try (Stream<Path> children = Files.list(directory)) {
            return children.filter(Files::isDirectory).map(p -> p.toString().replace('\\', '/')).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A root is named by an entry that is the root itself or lies inside it. */
    private static boolean named(String root, List<String> entries) {
        return entries.stream().anyMatch(e -> e.equals(root) || e.startsWith(root + "/"));
    }

    @Test
    void layoutNamesEverySourceRootOfTheBuild() throws IOException {
        List<String> entries = layout();
        Set<String> roots = sourceRoots();
        assertTrue(roots.containsAll(List.of("src/main/java", "src/test/java", "src/testkit/java")),
                "the source roots were found: " + roots);
        List<String> missing = roots.stream().filter(root -> !named(root, entries)).toList();
        assertEquals(List.of(), missing, PAGE + " \"Layout\" names every source root of the build; add these");
    }

    /** A migrations directory is named by itself or by its parent (the inbox's db/ holds two of them). */
    @Test
    void layoutNamesEveryDirectoryOfMigrations() throws IOException {
        List<String> entries = layout();
        Set<String> migrations = migrationDirectories();
        assertTrue(migrations.size() >= 3, "the migrations were found: " + migrations);
        List<String> missing = migrations.stream()
                .filter(m -> !entries.contains(m) && !entries.contains(m.substring(0, m.lastIndexOf('/'))))
                .toList();
        assertEquals(List.of(), missing, PAGE + " \"Layout\" names every directory of migrations; add these");
    }

    @Test
    void everyPathTheLayoutNamesExists() {
        List<String> gone = layout().stream().filter(e -> !Files.exists(Path.of(e))).toList();
        assertEquals(List.of(), gone, PAGE + " \"Layout\" names only what is there");
    }

    @Test
    void anEntryNamesTheRootsItLiesIn() {
        List<String> entries = listed("""
                ## Layout

                ```
                bin/                     scripts
                src/main/java/io/x/...   code
                                         continued, src/test/bench not an entry
                ```
                src/test/bench after the block
                """);
        assertEquals(List.of("bin", "src/main/java/io/x"), entries.subList(0, 2));
        assertTrue(named("src/main/java", entries));
        assertTrue(!named("src/main", List.of("src/mainly")) && !named("src/test/bench", entries));
    }
}
