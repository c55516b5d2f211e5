package io.github.jakartainbox.billing;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The sample sender's arguments: {@link SampleEvents.Options} and bin/sample-events, which checks them before Maven
 * starts and answers a wrong one with one line and status 2.
 */
class SampleEventsTest {

    private static SampleEvents.Options parse(String... args) {
        return SampleEvents.Options.parse(args, "env-broker:9092", 42);
    }

    private static String wrong(String... args) {
        return assertThrows(IllegalArgumentException.class, () -> parse(args)).getMessage();
    }

    @Test
    void defaultsAndEveryOption() {
        assertAll(
                () -> assertEquals(new SampleEvents.Options(10, 3, false, "orders.confirmed", "env-broker:9092", 42,
                        null), parse()),
                () -> assertEquals(new SampleEvents.Options(1000, 0, true, "t", "b:1", -7, "r1"),
                        parse("--events", "1000", "--duplicates", "0", "--bad", "--topic", "t", "--bootstrap", "b:1",
                                "--seed", "-7", "--run", "r1")));
    }

    @Test
    void aWrongArgumentIsNamed() {
        assertAll(
                () -> assertEquals("--events -5: not a whole number from 0 to 999999999", wrong("--events", "-5")),
                () -> assertEquals("--events abc: not a whole number from 0 to 999999999", wrong("--events", "abc")),
                () -> assertEquals("--duplicates 1e3: not a whole number from 0 to 999999999",
                        wrong("--duplicates", "1e3")),
                () -> assertEquals("--events 9999999999: not a whole number from 0 to 999999999",
                        wrong("--events", "9999999999"), "beyond an int"),
                () -> assertEquals("--seed x: not a whole number", wrong("--seed", "x")),
                () -> assertEquals("unknown argument --frobnicate", wrong("--frobnicate")),
                () -> assertEquals("unknown argument 5", wrong("5")),
                () -> assertEquals("--topic needs a value", wrong("--topic")),
                () -> assertEquals("--run needs a value", wrong("--run", "")));
    }

    /** The script's own check: no Maven run, so no stack trace, and the same words as {@link SampleEvents.Options}. */
    @Test
    void theScriptAnswersAWrongArgumentWithOneLineAndStatus2() throws Exception {
        for (List<String> args : List.of(List.of("--events", "-5"), List.of("--events", "abc"),
                List.of("--frobnicate"), List.of("--bad", "--seed"))) {
            Script run = script(args);
            String err = run.stderr();
            String expected;
            try {
                parse(args.toArray(String[]::new));
                expected = "(accepted)";
            } catch (IllegalArgumentException e) {
                expected = "sample-events: " + e.getMessage() + "; " + SampleEvents.USAGE + "\n";
            }
            assertEquals(expected, err, "the whole of stderr for " + args);
            assertEquals(2, run.status(), "status for " + args);
        }
    }

    /**
     * Values Maven's {@code exec.args} would split or the producer refuse with a stack trace ({@code --run 'a b'},
     * {@code --topic 'bad topic!'}, a bootstrap entry without a port): one line naming the argument, status 2.
     */
    @Test
    void theScriptRefusesValuesItCannotPassOnWithOneLine() throws Exception {
        for (List<String> args : List.of(List.of("--run", "a b"), List.of("--topic", "bad topic!"),
                List.of("--bootstrap", "127.0.0.1:9092,bogus"))) {
            Script run = script(args);
            String err = run.stderr();
            assertTrue(err.startsWith("sample-events: " + args.get(0) + " " + args.get(1) + ": ")
                    && err.endsWith(SampleEvents.USAGE + "\n") && err.lines().count() == 1, args + ": " + err);
            assertEquals(2, run.status(), "status for " + args);
        }
    }

    /** A run of bin/sample-events: its standard error and exit status. */
    private record Script(String stderr, int status) {
    }

    private static Script script(List<String> args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bin/sample-events"));
        command.addAll(args);
        Process p = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.PIPE).directory(new File(".")).start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "ended: " + args);
        return new Script(err, p.exitValue());
    }
}
