package io.github.jakartainbox.billing;

import io.github.jakartainbox.inbox.ConfigKey;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import java.time.Duration;
import java.util.List;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The example's key catalogue: every key of its own the service reads (not the channels', nor the SMTP login, whose
 * password is taken as it is, untrimmed), declared once with its default and what a value must be
 * ({@link ConfigKey}, the rules of the inbox's keys). At application start, before the topics are made and the
 * channels start, every key is read, and a wrong value fails the start naming the key ({@code BILLING0206E} for a
 * duration, {@code BILLING0266E} otherwise); the two sign-in keys keep their own rule: a wrong value is logged and
 * their default used ({@code BILLING0265E}, {@code BILLING0206E}). docs/configuration.md's table of the example's
 * keys is checked against {@link #keys()}.
 */
@ApplicationScoped
public class BillingConfig {

    private static final String DURATION = "an ISO-8601 duration such as PT10M";

    /** Default delay after which an invoice without a recorded mail counts as unmailed (query, gauge, readiness). */
    public static final ConfigKey<Duration> UNMAILED_AFTER = ConfigKey.duration("billing.mail.unmailed-after",
            "PT10M", DURATION, true, null, BillingMessage.BILLING0206E);
    /** SMTP: opening a connection. */
    public static final ConfigKey<Duration> CONNECTION_TIMEOUT = ConfigKey.duration(
            "billing.mail.connection-timeout", "PT30S", DURATION, false, null, BillingMessage.BILLING0206E);
    /** SMTP: every reply but the last, and each write. */
    public static final ConfigKey<Duration> READ_TIMEOUT = ConfigKey.duration("billing.mail.read-timeout", "PT5M",
            DURATION, false, null, BillingMessage.BILLING0206E);
    /** SMTP: the reply to the end of a mail's data (RFC 5321 section 4.5.3.2.6). */
    public static final ConfigKey<Duration> FINAL_REPLY_TIMEOUT = ConfigKey.duration(
            "billing.mail.final-reply-timeout", "PT10M", DURATION, false, null, BillingMessage.BILLING0206E);
    /** Whether each mailer thread keeps its SMTP connection open between mails. */
    public static final ConfigKey<Boolean> KEEP_CONNECTIONS = ConfigKey.bool("billing.mail.keep-connections", "true",
            BillingMessage.BILLING0266E);

    /**
     * For fault tests only: a regular expression of order ids whose billing handler waits {@link #TEST_SLOW_DELAY}
     * before it invoices (a handler that outlasts a share group's lock); empty, none.
     */
    public static final ConfigKey<String> TEST_SLOW_ORDERS = ConfigKey.text("billing.test.slow-orders", "",
            BillingMessage.BILLING0266E);
    /** For fault tests only: how long the handler of a {@link #TEST_SLOW_ORDERS} order waits. */
    public static final ConfigKey<Duration> TEST_SLOW_DELAY = ConfigKey.duration("billing.test.slow-delay", "PT20S",
            DURATION, false, null, BillingMessage.BILLING0206E);

    /** Partitions of a new {@code orders.confirmed} topic. */
    public static final ConfigKey<Integer> ORDERS_CONFIRMED_PARTITIONS = ConfigKey.integer(
            "billing.orders-confirmed.partitions", "6", 1, 1000, BillingMessage.BILLING0266E);
    /** Partitions of a new {@code invoices.issued} topic. */
    public static final ConfigKey<Integer> INVOICES_ISSUED_PARTITIONS = ConfigKey.integer(
            "billing.invoices-issued.partitions", "6", 1, 1000, BillingMessage.BILLING0266E);
    /** The topic {@code invoices.issued} events are recorded for; unset, the mailer channel's topic. */
    public static final ConfigKey<String> INVOICES_ISSUED_TOPIC = ConfigKey.text("billing.invoices-issued.topic",
            null, BillingMessage.BILLING0266E);
    /** Where re-driven {@code orders.confirmed} dead letters go; unset, the topic consumer billing reads. */
    public static final ConfigKey<String> REDRIVE_TOPIC = ConfigKey.text("billing.redrive.topic", null,
            BillingMessage.BILLING0266E);
    /** The re-drive producer's brokers; unset, the server variable {@code kafka.bootstrap.servers}. */
    public static final ConfigKey<String> REDRIVE_BOOTSTRAP_SERVERS = ConfigKey.text(
            "billing.redrive.bootstrap.servers", null, BillingMessage.BILLING0266E);

    /** Origins besides the service's own whose pages may change things through the API, comma-separated. */
    public static final ConfigKey<String> ALLOWED_ORIGINS = ConfigKey.text("billing.api.allowed-origins", "",
            BillingMessage.BILLING0266E);
    /** Host names requests may address, comma-separated; by default the local names. */
    public static final ConfigKey<String> ALLOWED_HOSTS = ConfigKey.text("billing.api.allowed-hosts",
            "localhost,127.0.0.1,[::1]", BillingMessage.BILLING0266E);
    /** Failed sign-ins of one user name or client address within the lockout that lock it. */
    public static final ConfigKey<Integer> SIGN_IN_MAX_FAILURES = ConfigKey.integer(
            "billing.api.sign-in.max-failures", "5", 1, 1000, BillingMessage.BILLING0266E);
    /** The window sign-in failures are counted in, and how long the lock lasts (at most a day). */
    public static final ConfigKey<Duration> SIGN_IN_LOCKOUT = ConfigKey.duration("billing.api.sign-in.lockout",
            "PT1M", "an ISO-8601 duration from PT0S to P1D, above zero", false, Duration.ofDays(1),
            BillingMessage.BILLING0206E);
    /** The API's reader in the example's basic registry. */
    public static final ConfigKey<String> READER_USER = ConfigKey.text("billing.reader.user", "reader",
            BillingMessage.BILLING0266E);
    /** The reader's password; while unset that user is refused. */
    public static final ConfigKey<String> READER_PASSWORD = ConfigKey.text("billing.reader.password", null,
            BillingMessage.BILLING0266E);
    /** The API's operator in the example's basic registry. */
    public static final ConfigKey<String> OPERATOR_USER = ConfigKey.text("billing.operator.user", "operator",
            BillingMessage.BILLING0266E);
    /** The operator's password; while unset that user is refused. */
    public static final ConfigKey<String> OPERATOR_PASSWORD = ConfigKey.text("billing.operator.password", null,
            BillingMessage.BILLING0266E);

    private static final List<ConfigKey<?>> KEYS = List.of(UNMAILED_AFTER, CONNECTION_TIMEOUT, READ_TIMEOUT,
            FINAL_REPLY_TIMEOUT, KEEP_CONNECTIONS, ORDERS_CONFIRMED_PARTITIONS,
            INVOICES_ISSUED_PARTITIONS, INVOICES_ISSUED_TOPIC, REDRIVE_TOPIC, REDRIVE_BOOTSTRAP_SERVERS,
            ALLOWED_ORIGINS, ALLOWED_HOSTS, SIGN_IN_MAX_FAILURES, SIGN_IN_LOCKOUT, READER_USER, READER_PASSWORD,
            OPERATOR_USER, OPERATOR_PASSWORD);
    /** Read by the sign-in guard, which logs a wrong value and uses the default instead of failing the start. */
    private static final List<ConfigKey<?>> LENIENT = List.of(SIGN_IN_MAX_FAILURES, SIGN_IN_LOCKOUT);

    /** @return every key */
    public static List<ConfigKey<?>> keys() {
        return KEYS;
    }

    /**
     * @param config the configuration
     * @return one text for each key (but the sign-in keys) whose value does not parse, naming it; empty when all do
     */
    public static List<String> problems(org.eclipse.microprofile.config.Config config) {
        return ConfigKey.problems(config, KEYS.stream().filter(k -> !LENIENT.contains(k)).toList());
    }

    // before the topic classes (PLATFORM_BEFORE + 1) and the channels
    void check(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) @Initialized(ApplicationScoped.class)
               Object started) {
        List<String> problems = problems(ConfigProvider.getConfig());
        if (!problems.isEmpty()) {
            throw new IllegalStateException(String.join(" ", problems));
        }
    }
}
