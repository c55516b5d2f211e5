package io.github.jakartainbox.inbox.database;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import jakarta.transaction.RollbackException;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import io.github.jakartainbox.testing.FakeTransactions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The attempt's own transaction on a thread without one ({@link InboxTransactions#inOwnTransaction}): begun and
 * ended with {@code UserTransaction}, rolled back when the work throws, never left on the thread. A fake transaction
 * manager records the calls; Liberty's own runs in the Arquillian tests (BadInputIT: no FFDC incident per refusal).
 */
class InboxTransactionsTest {

    private final FakeTransactions jta = new FakeTransactions();
    private final List<String> newTransactions = new ArrayList<>();
    private InboxTransactions transactions;

    @BeforeEach
    void setUp() {
        transactions = new InboxTransactions() {
            @Override
            public <T> T inNewTransaction(java.util.concurrent.Callable<T> work) throws Exception {
                newTransactions.add("requires-new"); // what @Transactional(REQUIRES_NEW) does in the container
                return work.call();
            }
        };
        transactions.registry = jta;
        transactions.userTransaction = jta;
    }

    @Test
    void workThatReturnsIsCommittedInATransactionOfItsOwn() throws Exception {
        assertEquals("done", transactions.inOwnTransaction(() -> {
            assertEquals(Status.STATUS_ACTIVE, jta.status, "the work runs inside the transaction");
            return "done";
        }));
        assertEquals(List.of("timeout 0", "begin", "commit"), jta.calls,
                "the server's default timeout, not the one a group left on the thread");
        assertEquals(Status.STATUS_NO_TRANSACTION, jta.status);
        assertEquals(List.of(), newTransactions, "no @Transactional method on this path");
    }

    @Test
    void workThatThrowsIsRolledBackAndItsExceptionComesOutUnchanged() {
        IllegalStateException refusal = new IllegalStateException("poison order");
        Exception thrown = assertThrows(IllegalStateException.class, () -> transactions.inOwnTransaction(() -> {
            throw refusal;
        }));
        assertSame(refusal, thrown, "the very exception, for the failure policy to classify");
        assertEquals(List.of("timeout 0", "begin", "rollback"), jta.calls);
        assertEquals(Status.STATUS_NO_TRANSACTION, jta.status);
    }

    @Test
    void aFailedCommitIsThrownAndNeverLeavesTheTransactionOnTheThread() {
        jta.commitFailure = new SystemException("the resource did not answer");
        jta.commitLeavesTransaction = true;
        assertThrows(SystemException.class, () -> transactions.inOwnTransaction(() -> "done"));
        assertEquals(List.of("timeout 0", "begin", "commit", "rollback"), jta.calls);
        assertEquals(Status.STATUS_NO_TRANSACTION, jta.status, "the next attempt can begin again");
    }

    @Test
    void aCommitRefusedByTheTransactionManagerIsThrownAsItCame() {
        RollbackException refused = new RollbackException("marked for rollback");
        jta.commitFailure = refused;
        Exception thrown = assertThrows(RollbackException.class, () -> transactions.inOwnTransaction(() -> "done"));
        assertSame(refused, thrown);
        assertEquals(List.of("timeout 0", "begin", "commit"), jta.calls,
                "a commit that ended the transaction needs no rollback");
    }

    @Test
    void onAThreadWithATransactionItSuspendsItAsRequiresNew() throws Exception {
        jta.status = Status.STATUS_ACTIVE; // a message-driven bean's
        assertEquals("done", transactions.inOwnTransaction(() -> "done"));
        assertEquals(List.of("requires-new"), newTransactions);
        assertEquals(List.of(), jta.calls, "UserTransaction cannot suspend the caller's transaction: not used");
    }

    @Test
    void whereUserTransactionCannotBeginItFallsBackToRequiresNew() throws Exception {
        jta.beginFailure = new IllegalStateException("UserTransaction is not available here");
        assertEquals("done", transactions.inOwnTransaction(() -> "done"));
        assertEquals(List.of("requires-new"), newTransactions);
    }
}
