package io.github.jakartainbox.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A Liberty server a test runs itself under the build's Liberty ({@code target/liberty/wlp}): its directory
 * {@code usr/servers/<name>}, the environment it starts with, {@code bin/server start} and {@code stop} (output
 * appended to {@code usr/servers/<name>.commands.log}, {@value #COMMAND_MINUTES} minutes at most each), a stop that
 * kills what does not stop, {@code kill -9}, its {@code messages.log}, and waits for a log line or an answer.
 * What goes into the directory is the test's.
 */
public final class LibertyServer {

    /** The build's Liberty installation. */
    public static final Path WLP = Path.of(System.getProperty("wlp.dir", "target/liberty/wlp"));

    private static final int COMMAND_MINUTES = 3;

    private final Path wlp;
    private final String name;
    private final Path dir;
    private final Path commandsLog;
    private final Predicate<String> inheritedLeftOut;
    private Map<String, String> environment = Map.of();

    /**
     * @param wlp              the Liberty installation
     * @param name             the server name
     * @param inheritedLeftOut names of this JVM's environment variables the server does not inherit
     */
    public LibertyServer(Path wlp, String name, Predicate<String> inheritedLeftOut) {
        this.wlp = wlp;
        this.name = name;
        this.dir = wlp.resolve("usr/servers/" + name);
        this.commandsLog = wlp.resolve("usr/servers/" + name + ".commands.log");
        this.inheritedLeftOut = inheritedLeftOut;
    }

    /** A server that inherits this JVM's whole environment (Failsafe's, with the billing tests' channels). */
    public LibertyServer(Path wlp, String name) {
        this(wlp, name, variable -> false);
    }

    /**
     * @return the names of the billing tests' channel settings ({@code MP_MESSAGING_*}, in Failsafe's environment),
     *         for a server whose applications have other channels
     */
    public static Predicate<String> messagingSettings() {
        return variable -> variable.startsWith("MP_MESSAGING_");
    }

    public String name() {
        return name;
    }

    /** @return the server directory, {@code usr/servers/<name>} */
    public Path dir() {
        return dir;
    }

    /** @return where the output of {@code bin/server} goes */
    public Path commandsLog() {
        return commandsLog;
    }

    /** Sets the variables the next commands add to the inherited environment. */
    public void environment(Map<String, String> variables) {
        environment = new HashMap<>(variables);
    }

    /**
     * Runs {@code bin/server <action> <name>} with the environment.
     *
     * @param action {@code start}, {@code stop}, ...
     * @return its exit code (a stop of a server that is not running exits 1)
     * @throws IllegalStateException when it did not finish within {@value #COMMAND_MINUTES} minutes
     */
    public int run(String action) throws IOException, InterruptedException {
        return Commands.run(List.of(wlp.resolve("bin/server").toString(), action, name), wlp, inheritedLeftOut,
                environment, commandsLog, Duration.ofMinutes(COMMAND_MINUTES));
    }

    /**
     * Starts the server: {@code server start} returns once the server runs, which can be before its applications
     * have started.
     *
     * @throws IllegalStateException when {@code server start} fails
     */
    public void start() throws IOException, InterruptedException {
        int rc = run("start");
        if (rc != 0) {
            throw new IllegalStateException("server start " + name + " exited " + rc + "; see " + commandsLog
                    + " and " + messagesLog());
        }
    }

    /** Stops the server gracefully, and kills it when that fails: nothing is left running. */
    public void stopOrKill() throws IOException, InterruptedException {
        if (run("stop") != 0) {
            kill();
        }
    }

    /**
     * Sends SIGKILL to the server's JVM, when one runs, and waits until it has ended: nothing of the server's
     * shutdown runs.
     *
     * @return whether a server process was running
     */
    public boolean kill() throws IOException {
        return Commands.killLiberty(wlp, name);
    }

    /** @return the server's {@code logs/messages.log} (Liberty renames the last one at each start) */
    public Path messagesLog() {
        return dir.resolve("logs/messages.log");
    }

    /** @return all of {@code messages.log}, "" before the first start */
    public String log() throws IOException {
        Path log = messagesLog();
        return Files.exists(log) ? new String(Files.readAllBytes(log), StandardCharsets.UTF_8) : "";
    }

    /** @return the lines of {@code messages.log} holding {@code text} */
    public List<String> logLines(String text) throws IOException {
        return logLines(line -> line.contains(text));
    }

    /** @return the lines of {@code messages.log} that match */
    public List<String> logLines(Predicate<String> match) throws IOException {
        return log().lines().filter(match).toList();
    }

    /**
     * Reads {@code messages.log} every 500 ms until it holds {@code started}, or one of {@code failed}, or
     * {@code wait} has passed.
     *
     * @return whether it holds {@code started}
     */
    public boolean awaitLog(String started, List<String> failed, Duration wait) throws IOException {
        try {
            return Waiting.await().atMost(wait).pollInterval(Duration.ofMillis(500)).until(this::log,
                    text -> text.contains(started) || failed.stream().anyMatch(text::contains)).contains(started);
        } catch (ConditionTimeoutException timedOut) {
            return false;
        }
    }

    /**
     * Asks every 250 ms until {@code answered} holds or {@code wait} has passed; an {@link IOException} is an
     * answer not there yet (the port not open).
     *
     * @return whether it holds
     */
    public boolean awaitAnswer(Callable<Boolean> answered, Duration wait) {
        try {
            Waiting.await().atMost(wait).pollInterval(Duration.ofMillis(250)).ignoreException(IOException.class)
                    .until(answered);
            return true;
        } catch (ConditionTimeoutException timedOut) {
            return false;
        }
    }
}
