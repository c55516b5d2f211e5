package io.github.jakartainbox.inbox.delivery;

import io.github.jakartainbox.inbox.consumer.InboxLifecycle;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.annotation.WebListener;

/**
 * Stops the inbox's deliveries when the application's web module stops, which on Open Liberty comes before its EJB
 * module and its persistence units stop (CDI's {@code @BeforeDestroyed(ApplicationScoped.class)} comes only after
 * them). Every stop a capability registered runs ({@link InboxLifecycle#stopWithApplication}): the {@code
 * inbox-kafka} channels stop taking records, let the group in flight commit, commit their offsets
 * synchronously and close their consumers before this method returns; deliveries waiting between attempts give up
 * their wait and stay unacknowledged. Stopped later, a group in flight would meet a closed {@code EntityManager},
 * roll back and be replayed after the restart.
 *
 * <p>Found by the servlet container's annotation scan of {@code WEB-INF/classes} and {@code WEB-INF/lib}. A
 * {@code web.xml} with {@code metadata-complete="true"} turns that scan off: then declare this class as a
 * {@code <listener>} there.
 */
@WebListener
public class InboxWebStop implements ServletContextListener {

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        InboxLifecycle.stopNow();
    }
}
