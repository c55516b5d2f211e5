package io.github.jakartainbox.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Runs the commands of tests that start servers of their own (pg_ctl, bin/kafka-broker, Liberty's bin/server) with
 * their output appended to a log file, and ends a Liberty server as a crash does.
 */
public final class Commands {

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
    public static int run(List<String> command, Path directory, Map<String, String> environment, Path log, Duration timeout)
            throws IOException, InterruptedException {
        return run(command, directory, name -> false, environment, log, timeout);
    }

    /**
     * Like {@link #run(List, Path, Map, Path, Duration)}, with some of this JVM's variables left out.
     *
     * @param inheritedLeftOut names of this JVM's environment variables the command does not inherit
     */
    public static int run(List<String> command, Path directory, Predicate<String> inheritedLeftOut,
                          Map<String, String> environment, Path log, Duration timeout)
            throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().keySet().removeIf(inheritedLeftOut);
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
    public static void check(List<String> command, Path directory, Map<String, String> environment, Path log,
                      Duration timeout) throws IOException, InterruptedException {
        int rc = run(command, directory, environment, log, timeout);
        if (rc != 0) {
            throw new IllegalStateException(String.join(" ", command) + " exited " + rc + "; see " + log);
        }
    }

    /**
     * Sends SIGKILL to the JVM of Liberty server {@code name}, when one runs, and waits until it has ended: nothing of
     * the server's shutdown runs.
     *
     * @param wlp  the Liberty installation
     * @param name the server name
     * @return whether a server process was running
     */
    public static boolean killLiberty(Path wlp, String name) throws IOException {
        Path pidFile = wlp.resolve("usr/servers/.pid/" + name + ".pid");
        if (!Files.exists(pidFile)) {
            return false;
        }
        long pid = Long.parseLong(Files.readString(pidFile).trim());
        boolean running = ProcessHandle.of(pid).map(p -> {
            p.destroyForcibly(); // SIGKILL
            p.onExit().join();
            return true;
        }).orElse(false);
        Files.deleteIfExists(pidFile);
        return running;
    }
}
