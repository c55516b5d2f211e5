package io.github.jakartainbox.inbox;

import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a message-driven method an idempotent consumer: each event's effect is applied at most once per
 * consumer, however often the broker delivers it (effectively-once on an at-least-once broker).
 *
 * <p>Before the method runs, the inbox claims the event in the same JTA transaction as the method's own work: one
 * statement reads the key {@code (consumer, event_id)} and inserts the row with {@code ON CONFLICT DO NOTHING} when
 * it is not there (the database decides between racing transactions). A new event's method runs and its changes
 * commit together with the inbox row. An event this consumer has already processed, or is processing in a racing
 * transaction, is skipped: the method is not called and the message is acknowledged. A group of records of the
 * {@code inbox-kafka} connector is claimed with one statement for all of them.
 *
 * <p>Transactions: when no JTA transaction is active (a MicroProfile Reactive Messaging {@code @Incoming}
 * method), each delivery attempt runs in a new transaction begun by the inbox (REQUIRED semantics); failed
 * attempts are retried and finally recorded in the dead-letter table, so no exception reaches the connector.
 * When a transaction is already active (an EJB or MDB business method with container-managed transactions)
 * the claim joins it and exceptions propagate to the container, whose rollback and redelivery apply.
 *
 * <p>Supported signatures and configuration keys are listed in docs/using-the-library.md and
 * docs/configuration.md. Deployment fails, naming the method, when a signature cannot be made atomic (reactive-streams return types, no parameter) or when the method's
 * transaction attribute would separate the claim from the work ({@code REQUIRES_NEW}, {@code NOT_SUPPORTED},
 * {@code NEVER}).
 */
@InterceptorBinding
@Inherited
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Idempotent {

    /**
     * The consumer name: the first half of the inbox key {@code (consumer, event_id)}. Two consumers of the
     * same topic (say {@code billing} and {@code analytics}) each process an event once. One to 100
     * characters from {@code [A-Za-z0-9._-]}, starting with a letter or digit; MicroProfile Config key
     * {@code inbox.consumer.<consumer>.name} overrides it. Keep it stable: renaming a consumer makes every
     * past event new to it.
     *
     * @return the consumer name
     */
    @Nonbinding
    String consumer();
}
