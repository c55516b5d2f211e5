package io.github.jakartainbox.inbox.database;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import jakarta.transaction.NotSupportedException;
import jakarta.transaction.RollbackException;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.SystemException;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.UserTransaction;
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

    /** One thread's transaction as JTA describes it: begin, commit or rollback, the status in between. */
    private static final class FakeTransactions implements UserTransaction, TransactionSynchronizationRegistry {
        final List<String> calls = new ArrayList<>();
        int status = Status.STATUS_NO_TRANSACTION;
        RuntimeException beginFailure;
        Exception commitFailure;
        boolean commitLeavesTransaction;

        @Override
        public void begin() throws NotSupportedException {
            calls.add("begin");
            if (beginFailure != null) {
                throw beginFailure;
            }
            if (status != Status.STATUS_NO_TRANSACTION) {
                throw new NotSupportedException("nested");
            }
            status = Status.STATUS_ACTIVE;
        }

        @Override
        public void commit() throws RollbackException, SystemException {
            calls.add("commit");
            if (commitFailure != null) {
                if (!commitLeavesTransaction) {
                    status = Status.STATUS_NO_TRANSACTION;
                }
                if (commitFailure instanceof RollbackException r) {
                    throw r;
                }
                throw (SystemException) commitFailure;
            }
            status = Status.STATUS_NO_TRANSACTION;
        }

        @Override
        public void rollback() {
            calls.add("rollback");
            status = Status.STATUS_NO_TRANSACTION;
        }

        @Override
        public void setRollbackOnly() {
            status = Status.STATUS_MARKED_ROLLBACK;
        }

        @Override
        public int getStatus() {
            return status;
        }

        @Override
        public void setTransactionTimeout(int seconds) {
            calls.add("timeout " + seconds);
        }

        @Override
        public Object getTransactionKey() {
            return null;
        }

        @Override
        public void putResource(Object key, Object value) {
        }

        @Override
        public Object getResource(Object key) {
            return null;
        }

        @Override
        public void registerInterposedSynchronization(Synchronization sync) {
        }

        @Override
        public int getTransactionStatus() {
            return status;
        }

        @Override
        public boolean getRollbackOnly() {
            return status == Status.STATUS_MARKED_ROLLBACK;
        }
    }

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
