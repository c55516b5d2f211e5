package io.github.jakartainbox.inbox.consumer;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

/**
 * Knows when the application is stopping, so that a delivery waiting between attempts (an outage, a transient
 * error, a long retry delay) gives up its wait at once and leaves its message unacknowledged, to be redelivered
 * after the restart, instead of holding the server's stop until the wait ends.
 */
@ApplicationScoped
public class InboxLifecycle {

    private static volatile boolean stopping;

    /** First among the observers (Reactive Messaging's shutdown waits for the deliveries this lets go). */
    void onStop(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) @BeforeDestroyed(ApplicationScoped.class)
                Object applicationStopping) {
        markStopping();
    }

    /** What stops with the application, by name: a connector's channels, which must end before the web module. */
    private static final Map<String, Runnable> STOPS = new ConcurrentHashMap<>();

    /** Called as early as the application's stop can be seen ({@link InboxWebStop}), and again by CDI. */
    static void markStopping() {
        stopping = true;
    }

    /**
     * Registers what a capability must stop when the application stops, before its persistence units do; a second
     * registration under the same name replaces the first.
     *
     * @param name what it stops, for example the connector's name
     * @param stop stops it and returns when it has stopped; it may be called when nothing is left to stop
     */
    public static void stopWithApplication(String name, Runnable stop) {
        STOPS.put(name, stop);
    }

    /** Marks the application stopping, then runs every registered stop ({@link #stopWithApplication}). */
    public static void stopNow() {
        markStopping();
        STOPS.values().forEach(Runnable::run);
    }

    void onStart(@Observes @Initialized(ApplicationScoped.class) Object started) {
        stopping = false;
    }

    /**
     * Waits before a retry as {@link #pause} does; a wait that ends early throws the failure being retried, so that
     * a stopping application leaves the delivery unacknowledged, to come again after the restart.
     *
     * @param millis  how long to wait, in milliseconds (at least 1)
     * @param failure the failure being retried
     * @throws Exception {@code failure}, with an {@link InterruptedException} suppressed in it, when the application
     *                   stops or the thread is interrupted during the wait
     */
    public static void pauseBeforeRetry(long millis, Exception failure) throws Exception {
        if (!pause(Math.max(millis, 1))) {
            failure.addSuppressed(new InterruptedException("the application is stopping"));
            throw failure;
        }
    }

    /**
     * Waits, ending at once when the application stops or the thread is interrupted (the interrupt is kept).
     *
     * @param millis how long to wait, in milliseconds
     * @return {@code true} when the whole wait passed; {@code false} when it ended early
     */
    public static boolean pause(long millis) {
        long deadline = System.nanoTime() + Math.max(millis, 0) * 1_000_000L;
        try {
            for (long left = millis; left > 0; left = (deadline - System.nanoTime()) / 1_000_000L) {
                if (stopping) {
                    return false;
                }
                Thread.sleep(Math.min(left, 250));
            }
            return !stopping;
        } catch (InterruptedException e) {
            if (!stopping) {
                Thread.currentThread().interrupt();
            }
            return false;
        }
    }

    /** @return whether the application is stopping */
    public static boolean stopping() {
        return stopping;
    }
}
