package io.github.jakartainbox.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Where the tests that run a PostgreSQL cluster of their own (fault suite, XA tests) find initdb and pg_ctl. */
public final class PostgresBinaries {

    private PostgresBinaries() {
    }

    /**
     * @param property the system property that names the directory, when set (e.g. {@code faults.pg.bin})
     * @return that directory, or the {@code bin} directory of the newest server under {@code /usr/lib/postgresql}
     * @throws IllegalStateException when there is none, naming the package to install and the property to set
     */
    public static Path find(String property) {
        String configured = System.getProperty(property);
        if (configured != null) {
            return Path.of(configured);
        }
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            return versions.filter(v -> Files.isExecutable(v.resolve("bin/initdb")))
                    .max(Comparator.comparingInt(v -> Integer.parseInt(v.getFileName().toString().replaceAll("\\D", "0"))))
                    .map(v -> v.resolve("bin"))
                    .orElseThrow(() -> new IllegalStateException("No PostgreSQL server binaries in /usr/lib/postgresql; "
                            + "install the postgresql package or set -D" + property
                            + "=<directory of initdb and pg_ctl>"));
        } catch (IOException e) {
            throw new UncheckedIOException("No /usr/lib/postgresql; set -D" + property
                    + "=<directory of initdb and pg_ctl>", e);
        }
    }
}
