package io.github.jakartainbox.inbox.delivery;

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

    /** Called as early as the application's stop can be seen ({@link InboxWebStop}), and again by CDI. */
    static void markStopping() {
        stopping = true;
    }

    void onStart(@Observes @Initialized(ApplicationScoped.class) Object started) {
        stopping = false;
    }

    /** @return whether the application is stopping */
    public static boolean stopping() {
        return stopping;
    }
}
