package io.github.jakartainbox.testing;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Awaitility as the tests wait for what a server, a broker or a database does: the condition is evaluated on the
 * calling thread, first at once, and Awaitility leaves the JVM's handler of uncaught exceptions alone.
 *
 * <p>On the calling thread, an in-container test keeps its naming context, CDI, the application's class loader and
 * its transaction in the condition (Awaitility's own thread has none of them), and a condition that blocks (an
 * HTTP call, a query) ends before the timeout is checked, as in a loop. An uncaught exception of one of the
 * server's threads is no failure of the test: Awaitility would otherwise report it.
 */
public final class Waiting {

    private Waiting() {
    }

    /** @return a wait to configure further ({@code atMost}, {@code pollInterval}) and end with {@code until...} */
    public static ConditionFactory await() {
        return configure(Awaitility.await());
    }

    /** @return a wait whose timeout message names {@code what} */
    public static ConditionFactory await(String what) {
        return configure(Awaitility.await(what));
    }

    private static ConditionFactory configure(ConditionFactory wait) {
        return wait.pollInSameThread().pollDelay(Duration.ZERO).dontCatchUncaughtExceptions();
    }

    /**
     * Waits until {@code condition} holds or the wait's timeout passes, without failing: the caller's assertion
     * after it says what is wrong.
     *
     * @param wait      the wait ({@link #await()} with {@code atMost} and {@code pollInterval})
     * @param condition what is awaited; what it throws ends the wait
     * @return whether it held within the time
     */
    public static boolean reached(ConditionFactory wait, Callable<Boolean> condition) {
        try {
            wait.until(condition);
            return true;
        } catch (ConditionTimeoutException timedOut) {
            return false;
        }
    }

    /**
     * Reads until {@code done} holds or the wait's timeout passes, for a caller that asserts on the value with a
     * message of its own.
     *
     * @param wait the wait ({@link #await()} with {@code atMost} and {@code pollInterval})
     * @param read reads the value; what it throws ends the wait
     * @param done whether the value is the awaited one
     * @return the last value read: the awaited one, or the one read when the time ran out
     */
    public static <T> T lastValue(ConditionFactory wait, Callable<T> read, Predicate<? super T> done) {
        AtomicReference<T> last = new AtomicReference<>();
        try {
            return wait.until(() -> {
                T value = read.call();
                last.set(value);
                return value;
            }, done);
        } catch (ConditionTimeoutException timedOut) {
            return last.get();
        }
    }
}
