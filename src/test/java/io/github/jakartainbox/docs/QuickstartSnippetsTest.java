package io.github.jakartainbox.docs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * README's snippets marked {@code <!-- quickstart: <file> -->} against the quickstart's files (src/test/adopter,
 * which AdopterIT builds and runs): each snippet is a run of lines of its file, indentation aside, so the two cannot
 * drift.
 */
class QuickstartSnippetsTest {

    private static final Pattern SNIPPET = Pattern.compile(
            "<!-- quickstart: (\\S+) -->\\s*\\n\\s*```[a-z]*\\n(.*?)\\n\\s*```", Pattern.DOTALL);

    @org.junit.jupiter.api.Test
    void everyQuickstartSnippetInReadmeIsTakenFromItsFile() throws IOException {
        Matcher snippet = SNIPPET.matcher(Files.readString(Path.of("README.md")));
        int found = 0;
        while (snippet.find()) {
            found++;
            Path file = Path.of(snippet.group(1));
            assertTrue(file.startsWith("src/test/adopter") && Files.isRegularFile(file), "no quickstart file " + file);
            List<String> lines = stripped(snippet.group(2));
            List<String> fileLines = stripped(Files.readString(file));
            assertTrue(java.util.Collections.indexOfSubList(fileLines, lines) >= 0,
                    "README's snippet is not in " + file + " as written:\n" + snippet.group(2));
        }
        assertTrue(found >= 4, "README quotes the quickstart's dependency, server.xml, consumer and channel: " + found);
    }

    private static List<String> stripped(String text) {
        return text.lines().map(String::strip).toList();
    }
}
