package io.github.jakartainbox.inbox.failure;

import io.github.jakartainbox.inbox.UnprocessableEventException;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.inbox.sqlstate.DatabaseUnavailableException;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.RollbackException;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The failure policy's decisions, one kind of failure at a time, on a clock the test moves. */
class FailurePolicyTest {

    /** A clock that stands still until the test moves it. */
    private static final class TestClock extends Clock {
        private Instant now = Instant.parse("2026-12-01T00:00:00Z");

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    private final TestClock clock = new TestClock();
    private final FailurePolicy policy = new FailurePolicy("billing",
            new RetryPolicy(3, Duration.ofMillis(200), Duration.ofSeconds(5)), Duration.ofMinutes(2), clock);

    private static Exception database(String sqlState) {
        // as EclipseLink and the transaction manager wrap it on the way out
        return new PersistenceException("flush failed", new SQLException("ERROR from PostgreSQL", sqlState));
    }

    @ParameterizedTest
    @CsvSource({"08006,OUTAGE", "08001,OUTAGE", "57P01,OUTAGE", "57P03,OUTAGE", "25006,OUTAGE", "40001,TRANSIENT", "40P01,TRANSIENT",
            "55P03,TRANSIENT", "57014,TRANSIENT", "53100,TRANSIENT", "53200,TRANSIENT", "22021,PERMANENT",
            "22001,PERMANENT", "23505,PERMANENT", "23514,PERMANENT", "54000,PERMANENT", "42P01,OTHER", "XX000,OTHER"})
    void sqlStatesAreClassifiedAsPostgreSqlDocumentsThem(String state, FailureKind kind) {
        assertEquals(kind, FailureKind.of(database(state)));
    }

    @Test
    void aConnectionThatCannotBeHadIsAnOutageWhateverTheSqlState() {
        assertEquals(FailureKind.OUTAGE, FailureKind.of(new DatabaseUnavailableException(
                new SQLException("FATAL: sorry, too many clients already", "53300"))));
    }

    @Test
    void theSqlStateIsFoundBehindACommitsRollbackException() {
        RollbackException rollback = new RollbackException("commit failed");
        rollback.initCause(new IllegalStateException(new SQLException("deferred check", "23514")));
        assertEquals(FailureKind.PERMANENT, FailureKind.of(rollback));
    }

    @Test
    void anOutageWaitsForeverWithoutUsingAnAttempt() {
        FailurePolicy.Tracker delivery = policy.newDelivery();
        for (int i = 0; i < 100; i++) {
            FailurePolicy.Decision decision = delivery.failed(database("08006"));
            assertEquals(FailurePolicy.Action.RETRY, decision.action());
            assertEquals(0, decision.attempts());
            clock.advance(Duration.ofMinutes(1));
        }
        assertEquals(FailurePolicy.Action.RETRY, delivery.failed(new IllegalStateException("bug")).action(),
                "the attempts are all still there after an outage");
    }

    @Test
    void transientErrorsAreRetriedWithinTheBudgetWithoutUsingAttempts() {
        FailurePolicy.Tracker delivery = policy.newDelivery();
        for (int i = 0; i < 20; i++) {
            FailurePolicy.Decision decision = delivery.failed(database("55P03"));
            assertEquals(FailurePolicy.Action.RETRY, decision.action(), "lock timeout number " + (i + 1));
            assertEquals(FailureKind.TRANSIENT, decision.kind());
            assertEquals(0, decision.attempts());
            clock.advance(Duration.ofSeconds(5));
        }
    }

    @Test
    void theLastWaitEndsWhenTheBudgetDoes() {
        FailurePolicy.Tracker delivery = policy.newDelivery();
        delivery.failed(database("57014"));
        clock.advance(Duration.ofMillis(119_900));
        FailurePolicy.Decision decision = delivery.failed(database("57014"));
        assertEquals(Duration.ofMillis(100), decision.delay(), "400 ms of backoff, cut to what is left");
    }

    @Test
    void aStatementThatTimesOutEveryTimeIsDeadLetteredWhenTheBudgetIsSpent() {
        FailurePolicy.Tracker delivery = policy.newDelivery();
        delivery.failed(database("57014"));
        clock.advance(Duration.ofMinutes(2));
        FailurePolicy.Decision decision = delivery.failed(database("57014"));
        assertEquals(FailurePolicy.Action.DEAD_LETTER, decision.action());
        assertInstanceOf(UnprocessableEventException.class, decision.reason());
        assertTrue(decision.reason().getMessage().startsWith("INBOX0207E: "), decision.reason().getMessage());
        assertTrue(decision.reason().getMessage().contains("57014"), decision.reason().getMessage());
    }

    @Test
    void dataTheDatabaseRefusesIsDeadLetteredAtOnceWithTheSqlState() {
        FailurePolicy.Decision decision = policy.newDelivery().failed(database("22021"));
        assertEquals(FailurePolicy.Action.DEAD_LETTER, decision.action());
        assertEquals(1, decision.attempts());
        assertTrue(decision.reason().getMessage().startsWith("INBOX0208E: "), decision.reason().getMessage());
        assertTrue(decision.reason().getMessage().contains("22021"), decision.reason().getMessage());
    }

    @Test
    void anUnprocessableEventIsDeadLetteredAtOnceWithItsOwnReason() {
        UnprocessableEventException reason = new UnprocessableEventException("amount is not a decimal");
        FailurePolicy.Decision decision = policy.newDelivery().failed(reason);
        assertEquals(FailurePolicy.Action.DEAD_LETTER, decision.action());
        assertSame(reason, decision.reason());
    }

    @Test
    void otherFailuresUseTheAttemptsWithBackoffThenDeadLetter() {
        FailurePolicy.Tracker delivery = policy.newDelivery();
        FailurePolicy.Decision first = delivery.failed(new IllegalStateException("injected"));
        assertEquals(FailurePolicy.Action.RETRY, first.action());
        assertEquals(Duration.ofMillis(200), first.delay());
        FailurePolicy.Decision second = delivery.failed(new IllegalStateException("injected"));
        assertEquals(Duration.ofMillis(400), second.delay());
        FailurePolicy.Decision third = delivery.failed(new IllegalStateException("injected"));
        assertEquals(FailurePolicy.Action.DEAD_LETTER, third.action());
        assertEquals(3, third.attempts());
        assertEquals("injected", third.reason().getMessage());
    }

    @Test
    void eachDeliveryStartsWithAFullBudget() {
        FailurePolicy.Tracker first = policy.newDelivery();
        first.failed(database("40P01"));
        clock.advance(Duration.ofMinutes(3));
        assertEquals(FailurePolicy.Action.RETRY, policy.newDelivery().failed(database("40P01")).action());
    }

    @Test
    void aTransportsEarlierDeliveriesCountAsAttemptsAndItsLimitEndsThemFirst() {
        FailurePolicy loose = new FailurePolicy("billing",
                new RetryPolicy(10, Duration.ofMillis(200), Duration.ofSeconds(5)), Duration.ofMinutes(2), clock);
        FailurePolicy.Tracker third = policy.newDelivery(2, 5);
        FailurePolicy.Decision once = third.failed(new IllegalStateException("injected"));
        assertEquals(FailurePolicy.Action.DEAD_LETTER, once.action(), "two deliveries before, three attempts allowed");
        assertEquals(3, once.attempts());
        FailurePolicy.Tracker last = loose.newDelivery(4, 5);
        assertEquals(FailurePolicy.Action.DEAD_LETTER, last.failed(new IllegalStateException("injected")).action(),
                "the transport's last delivery is the last attempt, whatever retry.max-attempts says");
        FailurePolicy.Tracker outage = loose.newDelivery(4, 5);
        assertEquals(FailurePolicy.Action.RETRY, outage.failed(database("08006")).action(),
                "an outage uses no attempt, at the limit too");
        assertEquals(FailurePolicy.Action.RETRY, loose.newDelivery(0, 5).failed(new IllegalStateException("x"))
                .action());
        assertThrows(IllegalArgumentException.class, () -> policy.newDelivery(-1, 5));
        assertThrows(IllegalArgumentException.class, () -> policy.newDelivery(0, 0));
    }
}
