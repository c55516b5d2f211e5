package io.github.jakartainbox.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The packaged billing service as the restart tests run it: Liberty server {@value #NAME} under
 * {@code target/liberty/wlp}, started, stopped and killed with an environment of the test's (database, topics,
 * groups, SMTP server).
 */
public final class BillingServer {

    public static final Path WLP = LibertyServer.WLP;
    public static final String NAME = "billing";
    private static final LibertyServer SERVER = new LibertyServer(WLP, NAME);

    private BillingServer() {
    }

    /**
     * @param run a name of the test run's own
     * @return the environment giving the service's channels topics and consumer groups of the run alone:
     *         {@code it.<run>} for {@code orders.confirmed}, {@code it.invoices.<run>} for {@code invoices.issued}, and
     *         groups {@code it-<run>-<channel>}
     */
    public static Map<String, String> channels(String run) {
        Map<String, String> env = new java.util.HashMap<>();
        for (String channel : java.util.List.of("ORDERS_BILLING", "ORDERS_ANALYTICS", "ORDERS_STATUS")) {
            env.put("MP_MESSAGING_INCOMING_" + channel + "_TOPIC", "it." + run);
            env.put("MP_MESSAGING_INCOMING_" + channel + "_GROUP_ID", "it-" + run + "-" + channel.toLowerCase());
        }
        env.put("BILLING_INVOICES_ISSUED_TOPIC", "it.invoices." + run);
        env.put("MP_MESSAGING_INCOMING_INVOICES_MAILER_TOPIC", "it.invoices." + run);
        env.put("MP_MESSAGING_INCOMING_INVOICES_MAILER_GROUP_ID", "it-" + run + "-mailer");
        return env;
    }

    /** @return the server's {@code messages.log} */
    public static Path log() {
        return SERVER.messagesLog();
    }

    /**
     * Runs {@code bin/server <action> billing}; a stop of a server that is not running passes.
     *
     * @param action      {@code start} or {@code stop}
     * @param environment added to the server process's environment
     */
    public static void run(String action, Map<String, String> environment) throws Exception {
        SERVER.environment(environment);
        int rc = SERVER.run(action);
        assertTrue(rc == 0 || action.equals("stop") && rc == 1, "server " + action + " exited " + rc + "; see "
                + SERVER.commandsLog());
    }

    /** Starts the server and waits until its API answers a reader. */
    public static void startAndAwaitReady(Map<String, String> environment, Duration wait) throws Exception {
        run("start", environment);
        if (!SERVER.awaitAnswer(() -> Api.call("GET", TestEnv.url("/billing/api/invoices/count"), Api.READER)
                .statusCode() == 200, wait)) {
            throw new AssertionError("billing service not ready within " + wait);
        }
    }

    /** Kills the server with SIGKILL and waits for the process to end. */
    public static void kill() throws Exception {
        assertTrue(SERVER.kill(), "server " + NAME + " is not running");
    }
}
