package io.github.jakartainbox.inbox.database;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;
import javax.sql.XADataSource;
import org.junit.jupiter.api.Test;

class TwoPhaseCheckTest {

    @Test
    void anXaDatasourceWithoutPreparedTransactionsIsRefusedNamingTheSetting() {
        List<String> problems = TwoPhaseCheck.problems("jdbc/inbox", true, 0, List.of());
        assertEquals(1, problems.size());
        assertTrue(problems.get(0).startsWith("INBOX0800E: The inbox datasource jdbc/inbox is XA"),
                problems.get(0));
        assertTrue(problems.get(0).contains("max_prepared_transactions = 0"), problems.get(0));
        assertTrue(problems.get(0).contains("every two-phase commit would fail"), "says why: " + problems.get(0));
    }

    @Test
    void anXaDatasourceWithPreparedTransactionsPasses() {
        assertEquals(List.of(), TwoPhaseCheck.problems("jdbc/inbox", true, 1, List.of()));
        assertEquals(List.of(), TwoPhaseCheck.problems("jdbc/inbox", true, 200, List.of()));
    }

    @Test
    void aOnePhaseDatasourceNeedsNoPreparedTransactions() {
        assertEquals(List.of(), TwoPhaseCheck.problems("jdbc/billing", false, 0, List.of()));
    }

    @Test
    void aDeferrableInboxKeyIsRefusedInEveryModeNamingTheConstraint() {
        for (boolean xa : new boolean[] {true, false}) {
            List<String> problems = TwoPhaseCheck.problems("jdbc/inbox", xa, 10, List.of(new TwoPhaseCheck.Deferrable(
                    "inbox_pkey", "PRIMARY KEY (consumer, event_id) DEFERRABLE INITIALLY DEFERRED")));
            assertEquals(1, problems.size());
            assertTrue(problems.get(0).startsWith("INBOX0801E: Constraint inbox_pkey of table inbox (datasource "
                    + "jdbc/inbox) is DEFERRABLE"), problems.get(0));
            assertTrue(problems.get(0).endsWith("ALTER TABLE inbox DROP CONSTRAINT inbox_pkey, ADD CONSTRAINT "
                    + "inbox_pkey PRIMARY KEY (consumer, event_id)"), problems.get(0));
        }
    }

    @Test
    void bothProblemsAreReportedTogether() {
        List<String> problems = TwoPhaseCheck.problems("jdbc/inbox", true, 0, List.of(
                new TwoPhaseCheck.Deferrable("inbox_pkey", "PRIMARY KEY (consumer, event_id, event_month) DEFERRABLE"),
                new TwoPhaseCheck.Deferrable("other_key", "UNIQUE (event_id) DEFERRABLE INITIALLY IMMEDIATE")));
        assertEquals(List.of("INBOX0800E", "INBOX0801E", "INBOX0801E"),
                problems.stream().map(p -> p.substring(0, 10)).toList());
        assertTrue(problems.get(1).endsWith("ADD CONSTRAINT inbox_pkey PRIMARY KEY (consumer, event_id, event_month)"),
                problems.get(1));
        assertTrue(problems.get(2).endsWith("ADD CONSTRAINT other_key UNIQUE (event_id)"), problems.get(2));
    }

    @Test
    void xaIsToldByWhatTheDatasourceWraps() {
        assertTrue(TwoPhaseCheck.isXa(wrapping(true)));
        assertFalse(TwoPhaseCheck.isXa(wrapping(false)));
    }

    /** A datasource like Liberty's connection factory: isWrapperFor answers for the driver's class it wraps. */
    private static DataSource wrapping(boolean xa) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("isWrapperFor")) {
                        return xa && args[0] == XADataSource.class;
                    }
                    throw new SQLException("not used: " + method.getName());
                });
    }

}
