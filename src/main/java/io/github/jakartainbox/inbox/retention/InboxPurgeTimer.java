package io.github.jakartainbox.inbox.retention;

import io.github.jakartainbox.inbox.InboxConfig;
import io.github.jakartainbox.inbox.InboxStatistics;
import io.github.jakartainbox.inbox.failure.Failures;
import io.github.jakartainbox.inbox.logging.InboxLog;
import io.github.jakartainbox.inbox.logging.InboxMessage;
import io.github.jakartainbox.inbox.spi.PurgeCompleted;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ScheduleExpression;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.Timer;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The EJB calendar timer that runs {@link InboxPurge} on the schedule {@value InboxConfig#PURGE_SCHEDULE}
 * (default every five minutes). The timer is not persistent: after a server was down for hours it runs once at
 * the next scheduled time, which catches up on everything expired, rather than replaying the missed runs. Its
 * timeout method holds no transaction: each batch of the purge commits on its own, so a long purge is never
 * rolled back as a whole. Needs Liberty feature {@code enterpriseBeansLite-4.0}.
 */
@Singleton
@Startup
public class InboxPurgeTimer {

    @Resource
    TimerService timerService;
    @Inject
    InboxPurge purge;
    @Inject
    InboxStatistics statistics;
    @Inject
    Event<PurgeCompleted> completed;

    @PostConstruct
    void schedule() {
        try {
            scheduleFromConfig();
        } catch (IllegalStateException e) {
            InboxLog.LOG.severe(e.getMessage()); // its own line, not only a "Caused by" of the start failure
            throw e;
        }
    }

    private void scheduleFromConfig() {
        Config config = ConfigProvider.getConfig();
        // wrong values fail the start (INBOX0004E), not every purge run later
        InboxConfig.PURGE_BATCH_SIZE.get(config);
        InboxConfig.PURGE_LEASE.get(config);
        InboxConfig.PURGE_OVERDUE_AFTER.get(config);
        InboxConfig.DEAD_LETTER_REDRIVE_LEASE.get(config); // read at each re-drive; checked here at start too
        InboxPurge.retention(config, null);
        warnIfRetentionIsShort(config);
        String schedule = InboxConfig.PURGE_SCHEDULE.get(config);
        if (schedule.equals("off")) {
            if (InboxConfig.PARTITIONING.get(config).equals("monthly")) {
                InboxMessage.INBOX0306W.log();
            }
            return;
        }
        try {
            timerService.createCalendarTimer(parse(schedule), new TimerConfig("jakarta-inbox purge", false));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(InboxMessage.INBOX0004E.format(InboxConfig.PURGE_SCHEDULE.name(), schedule,
                    "a valid EJB calendar expression (" + e.getMessage() + ")"), e);
        }
        InboxMessage.INBOX0305I.log(schedule);
    }

    @Timeout
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void run(Timer timer) {
        try {
            PurgeResult result = purge.purgeExpired();
            if (!result.ran() || result.error() != null) {
                statistics.purgeStatus().filter(InboxStatistics.PurgeStatus::overdue).ifPresent(status ->
                        InboxMessage.INBOX0304W.log(status.lastFinishedAt(), status.overdueAfter()));
            }
            completed.fire(new PurgeCompleted(result.ran(), result.error()));
        } catch (RuntimeException e) {
            // a timeout method that throws would be retried at once by the container; the next run retries instead
            InboxMessage.INBOX0302E.log(Failures.describe(e));
        }
    }

    /**
     * @param schedule six space-separated fields: second minute hour dayOfMonth month dayOfWeek
     * @return the calendar expression
     * @throws IllegalStateException (INBOX0004E) when the text does not have six fields
     */
    static ScheduleExpression parse(String schedule) {
        String[] fields = schedule.trim().split("\\s+");
        if (fields.length != 6) {
            throw new IllegalStateException(InboxMessage.INBOX0004E.format(InboxConfig.PURGE_SCHEDULE.name(),
                    schedule, InboxConfig.PURGE_SCHEDULE.allowed()));
        }
        return new ScheduleExpression().second(fields[0]).minute(fields[1]).hour(fields[2])
                .dayOfMonth(fields[3]).month(fields[4]).dayOfWeek(fields[5]);
    }

    private static void warnIfRetentionIsShort(Config config) {
        Optional<Duration> globalTopic = InboxConfig.TOPIC_RETENTION.find(config);
        Set<String> consumers = new TreeSet<>();
        for (String key : config.getPropertyNames()) {
            for (InboxConfig.Key<?> retention : List.of(InboxConfig.RETENTION, InboxConfig.TOPIC_RETENTION)) {
                InboxConfig.consumerOf(key, retention).ifPresent(consumers::add);
            }
        }
        List<String> checked = new java.util.ArrayList<>(consumers);
        if (globalTopic.isPresent()) {
            checked.add(null); // the global retention too
        }
        for (String consumer : checked) {
            Optional<Duration> topicRetention = consumer == null ? globalTopic
                    : InboxConfig.TOPIC_RETENTION.find(config, consumer);
            if (topicRetention.isEmpty()) {
                continue;
            }
            Duration topic = topicRetention.get();
            Duration inbox = InboxPurge.retention(config, consumer);
            if (inbox.compareTo(topic) <= 0) {
                InboxMessage.INBOX0301W.log(consumer == null ? "(all)" : consumer, inbox, topic);
            }
        }
    }
}
