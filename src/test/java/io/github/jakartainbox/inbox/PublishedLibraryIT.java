package io.github.jakartainbox.inbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * What the library's build published (pom.xml, execution {@code library}: {@code mvn -f modules/pom.xml deploy} to
 * {@code library.repo} before the integration tests), read as a repository manager and Maven Central's checks read
 * it: exactly the four artifacts, nothing of the WAR; each POM complete and its own; each jar's sources compiling
 * against the dependencies its POM names and nothing else, so that a dependency missing from a POM fails here.
 */
class PublishedLibraryIT {

    static final Path REPOSITORY = Path.of(System.getProperty("library.repo", "target/library-repo")).toAbsolutePath();
    static final String VERSION = System.getProperty("library.version", "0.1.0-SNAPSHOT");
    static final String GROUP = "io/github/jakartainbox/";
    /** The artifacts with a jar; the BOM has its POM alone. */
    static final List<String> JARS = List.of("inbox", "outbox", "inbox-test-kit");
    static final String BOM = "inbox-bom";
    /** The APIs Liberty's features provide: an adopter's WAR must not carry them. */
    static final Pattern PROVIDED = Pattern.compile(
            "jakarta\\.platform|org\\.eclipse\\.microprofile(\\..*)?|io\\.opentelemetry");
    /** The example's libraries and the WAR itself: none is the library's dependency. */
    static final Pattern EXAMPLE_ONLY = Pattern.compile(
            "org\\.apache\\.pdfbox:.*|org\\.eclipse\\.angus:.*|com\\.icegreen:.*|io\\.github\\.jakartainbox:jakarta-inbox");
    static final List<String> REQUIRED = List.of("modelVersion", "groupId", "artifactId", "version", "name",
            "description", "url", "licenses/license/name", "licenses/license/url", "developers/developer/name",
            "scm/url", "scm/connection");

    @Test
    void exactlyTheFourArtifactsAreDeployedEachWithItsFilesAndChecksums() throws Exception {
        assertEquals(expectedFiles(VERSION), publishedFiles(REPOSITORY, VERSION),
                "the files under " + REPOSITORY + " (a snapshot's timestamp shown as its version)");
    }

    @Test
    void everyPublishedPomIsCompleteAndItsOwn() throws Exception {
        List<String> problems = new ArrayList<>();
        for (String artifact : Stream.concat(JARS.stream(), Stream.of(BOM)).toList()) {
            problems.addAll(pomProblems(artifact, pom(artifact)));
        }
        assertEquals(List.of(), problems, "the POMs under " + REPOSITORY);
    }

    /**
     * Each jar's sources, from its sources jar, compiled by Maven with its published POM as the project's: the POM's
     * dependencies, with their scopes, are the whole classpath. A local repository of its own, empty at the start,
     * and no repository but the deployed one and Maven Central.
     */
    @Test
    void eachJarsSourcesCompileAgainstItsPublishedPomAlone() throws Exception {
        Path work = REPOSITORY.resolveSibling("published-check");
        AdopterIT.deleteTree(work);
        Path settings = work.resolve("settings.xml");
        Files.createDirectories(work);
        Files.writeString(settings, AdopterIT.librarySettings(REPOSITORY));
        for (String artifact : JARS) {
            Path project = work.resolve(artifact);
            Files.createDirectories(project);
            Files.copy(pom(artifact), project.resolve("pom.xml"));
            int sources = unzip(file(artifact, "-sources.jar"), project.resolve("src/main/java"));
            assertTrue(sources > 0, artifact + "'s sources jar holds sources");
            AdopterIT.maven(project, "-s", settings.toString(), "-Dmaven.repo.local=" + work.resolve("repository"),
                    "-Dmaven.compiler.release=17", "-Dencoding=UTF-8",
                    "org.apache.maven.plugins:maven-compiler-plugin:"
                            + System.getProperty("compiler.plugin.version", "3.13.0") + ":compile");
            try (Stream<Path> classes = Files.walk(project.resolve("target/classes"))) {
                assertTrue(classes.anyMatch(p -> p.toString().endsWith(".class")), artifact + " compiled");
            }
        }
    }

    /** @return what a POM lacks or has wrong, each a sentence naming the artifact */
    static List<String> pomProblems(String artifact, Path file) throws Exception {
        List<String> problems = new ArrayList<>();
        Element pom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile())
                .getDocumentElement();
        for (String path : REQUIRED) {
            String value = text(pom, path);
            if (value.isBlank()) {
                problems.add(artifact + ": no " + path);
            }
        }
        if (!artifact.equals(text(pom, "artifactId")) || !VERSION.equals(text(pom, "version"))) {
            problems.add(artifact + ": coordinates " + text(pom, "artifactId") + ":" + text(pom, "version"));
        }
        if (!children(pom, "parent").isEmpty()) {
            problems.add(artifact + ": a parent, which is not published (the POM should be flattened)");
        }
        String raw = Files.readString(file).replace("${project.version}", "");
        if (raw.contains("${")) {
            problems.add(artifact + ": an expression left in the POM");
        }
        List<Element> dependencies = new ArrayList<>();
        for (Element section : children(pom, "dependencies")) {
            dependencies.addAll(children(section, "dependency"));
        }
        for (Element dependency : dependencies) {
            String coordinates = text(dependency, "groupId") + ":" + text(dependency, "artifactId");
            if (text(dependency, "version").isBlank()) {
                problems.add(artifact + ": no version for " + coordinates);
            }
            if (EXAMPLE_ONLY.matcher(coordinates).matches()) {
                problems.add(artifact + ": a dependency of the example's, " + coordinates);
            }
            if (PROVIDED.matcher(text(dependency, "groupId")).matches()
                    && !"provided".equals(text(dependency, "scope"))) {
                problems.add(artifact + ": " + coordinates + " is provided by Liberty, not in scope provided");
            }
        }
        if (artifact.equals(BOM)) {
            Set<String> managed = new TreeSet<>();
            for (Element section : children(pom, "dependencyManagement")) {
                for (Element list : children(section, "dependencies")) {
                    children(list, "dependency").forEach(d -> managed.add(text(d, "artifactId")));
                }
            }
            if (!managed.equals(new TreeSet<>(JARS))) {
                problems.add(artifact + ": manages " + managed + ", not the three artifacts alone");
            }
        } else if (dependencies.isEmpty()) {
            problems.add(artifact + ": no dependencies");
        }
        return problems;
    }

    /** @return the files a deploy of the four artifacts at {@code version} leaves in an empty repository */
    static Set<String> expectedFiles(String version) {
        boolean snapshot = version.endsWith("-SNAPSHOT");
        Set<String> files = new TreeSet<>();
        for (String artifact : Stream.concat(JARS.stream(), Stream.of(BOM)).toList()) {
            List<String> own = new ArrayList<>(List.of(artifact + "/maven-metadata.xml"));
            if (snapshot) {
                own.add(artifact + "/" + version + "/maven-metadata.xml");
            }
            List<String> kinds = artifact.equals(BOM) ? List.of(".pom")
                    : List.of(".pom", ".jar", "-sources.jar", "-javadoc.jar");
            kinds.forEach(kind -> own.add(artifact + "/" + version + "/" + artifact + "-" + version + kind));
            for (String file : own) {
                files.add(GROUP + file);
                files.add(GROUP + file + ".md5");
                files.add(GROUP + file + ".sha1");
            }
        }
        return files;
    }

    /** @return every file under {@code repository}, relative, a snapshot's timestamp replaced by its version */
    static Set<String> publishedFiles(Path repository, String version) throws Exception {
        Pattern timestamp = Pattern.compile(Pattern.quote(version.replace("-SNAPSHOT", "")) + "-\\d{8}\\.\\d{6}-\\d+");
        Set<String> files = new TreeSet<>();
        try (Stream<Path> all = Files.walk(repository)) {
            all.filter(Files::isRegularFile).forEach(f -> files.add(timestamp.matcher(
                    repository.relativize(f).toString().replace('\\', '/')).replaceAll(version)));
        }
        return files;
    }

    /** @return the one deployed file of an artifact whose name ends with {@code suffix} */
    static Path file(String artifact, String suffix) throws Exception {
        Path dir = REPOSITORY.resolve(GROUP + artifact + "/" + VERSION);
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> found = files.filter(f -> f.getFileName().toString().startsWith(artifact + "-"))
                    .filter(f -> f.getFileName().toString().matches(Pattern.quote(artifact) + "-[0-9][^-]*(-\\d{8}\\.\\d{6}-\\d+)?"
                            + Pattern.quote(suffix)))
                    .toList();
            assertEquals(1, found.size(), "one " + suffix + " of " + artifact + " in " + dir + ": " + found);
            return found.get(0);
        }
    }

    static Path pom(String artifact) throws Exception {
        return file(artifact, ".pom");
    }

    private static int unzip(Path jar, Path into) throws Exception {
        int sources = 0;
        try (ZipInputStream zip = new ZipInputStream(Files.newInputStream(jar))) {
            for (ZipEntry entry; (entry = zip.getNextEntry()) != null; ) {
                if (entry.isDirectory() || entry.getName().startsWith("META-INF/")) {
                    continue;
                }
                Path to = into.resolve(entry.getName()).normalize();
                assertTrue(to.startsWith(into), "an entry inside the jar: " + entry.getName());
                Files.createDirectories(to.getParent());
                Files.copy((InputStream) zip, to);
                sources += entry.getName().endsWith(".java") ? 1 : 0;
            }
        }
        return sources;
    }

    /** @return the text at a slash-separated path of child elements, "" when absent */
    private static String text(Element element, String path) {
        Element at = element;
        for (String name : path.split("/")) {
            List<Element> found = children(at, name);
            if (found.isEmpty()) {
                return "";
            }
            at = found.get(0);
        }
        return at.getTextContent().trim();
    }

    private static List<Element> children(Element element, String name) {
        List<Element> found = new ArrayList<>();
        NodeList nodes = element.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            Node node = nodes.item(i);
            if (node instanceof Element child && name.equals(child.getLocalName() != null ? child.getLocalName()
                    : child.getTagName())) {
                found.add(child);
            }
        }
        return found;
    }
}
