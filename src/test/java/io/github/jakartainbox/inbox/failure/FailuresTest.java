package io.github.jakartainbox.inbox.failure;

import io.github.jakartainbox.inbox.UnprocessableEventException;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.transaction.RollbackException;
import jakarta.transaction.TransactionalException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class FailuresTest {

    @Test
    void theDatabaseErrorBehindARollbackIsNamed() {
        RollbackException rollback = new RollbackException("rolled back");
        rollback.initCause(new IllegalStateException("flush failed",
                new SQLException("ERROR: new row violates check constraint \"positive\"", "23514")));
        String text = Failures.describe(new TransactionalException("commit failed", rollback));
        assertTrue(text.startsWith("jakarta.transaction.RollbackException: rolled back"), text);
        assertTrue(text.contains("violates check constraint"), text);
    }

    @Test
    void textIsMadeStorableInPostgreSql() {
        String text = Failures.describe(new IllegalArgumentException("bad \u0000 byte"));
        assertFalse(text.contains("\u0000"));
        assertEquals("a\ufffdb", Failures.storable("a\u0000b"));
        assertTrue(Failures.describe(new IllegalStateException("x".repeat(10_000))).length() <= 4000);
    }

    @Test
    void aReasonWithAMessageIdStartsWithIt() {
        String text = Failures.describe(new UnprocessableEventException("INBOX0208E: the database refused it",
                new SQLException("value too long for type character varying(100)", "22001")));
        assertTrue(text.startsWith("INBOX0208E: the database refused it"), text);
        assertTrue(text.contains("value too long"), text);
    }
}
