package io.github.jakartainbox.faults;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the fault suite's commands (pg_ctl, bin/kafka-broker, Liberty's bin/server) with their output in a log
 * file, and deletes the directories they leave.
 */
final class Commands {

    private Commands() {
    }

    /**
     * @param command     the command and its arguments
     * @param directory   working directory
     * @param environment added to this JVM's environment
     * @param log         where stdout and stderr are appended
     * @param timeout     how long to wait
     * @return the exit code
     */
    static int run(List<String> command, Path directory, Map<String, String> environment, Path log, Duration timeout)
            throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(environment);
        Process process = builder.start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " did not finish within " + timeout
                    + "; see " + log);
        }
        return process.exitValue();
    }

    /** Like {@link #run}, and fails unless the exit code is 0. */
    static void check(List<String> command, Path directory, Map<String, String> environment, Path log,
                      Duration timeout) throws IOException, InterruptedException {
        int rc = run(command, directory, environment, log, timeout);
        if (rc != 0) {
            throw new IllegalStateException(String.join(" ", command) + " exited " + rc + "; see " + log);
        }
    }
}
