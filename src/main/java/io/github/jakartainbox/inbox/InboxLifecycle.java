package io.github.jakartainbox.inbox;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.event.Observes;

/**
 * Knows when the application is stopping, so that a delivery waiting between attempts (an outage, a transient
 * error, a long retry delay) gives up its wait at once and leaves its message unacknowledged, to be redelivered
 * after the restart, instead of holding the server's stop until the wait ends.
 */
@ApplicationScoped
class InboxLifecycle {

    private static volatile boolean stopping;

    void onStop(@Observes @BeforeDestroyed(ApplicationScoped.class) Object applicationStopping) {
        stopping = true;
    }

    void onStart(@Observes @jakarta.enterprise.context.Initialized(ApplicationScoped.class) Object started) {
        stopping = false;
    }

    /** @return whether the application is stopping */
    static boolean stopping() {
        return stopping;
    }
}
