package io.github.jakartainbox.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Files of the tests' servers and private clusters. */
public final class TestFiles {

    private TestFiles() {
    }

    /**
     * Deletes a directory and everything in it; nothing happens when it does not exist.
     *
     * @param directory the directory
     * @throws IOException when a file cannot be deleted
     */
    public static void deleteTree(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
