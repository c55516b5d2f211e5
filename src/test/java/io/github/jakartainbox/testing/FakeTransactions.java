package io.github.jakartainbox.testing;

import jakarta.transaction.NotSupportedException;
import jakarta.transaction.RollbackException;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.SystemException;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.UserTransaction;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One thread's transaction as JTA describes it, for unit tests of logic without a transaction manager: begin, commit
 * or rollback and the status in between ({@link UserTransaction}), the same transaction as the registry shows it
 * ({@link TransactionSynchronizationRegistry}). Records each call, and fails what a test asks it to.
 */
public final class FakeTransactions implements UserTransaction, TransactionSynchronizationRegistry {

    /** The calls in order: {@code begin}, {@code commit}, {@code rollback}, {@code timeout <seconds>}. */
    public final List<String> calls = Collections.synchronizedList(new ArrayList<>());
    /** The synchronizations registered, in order. */
    public final List<Synchronization> synchronizations = Collections.synchronizedList(new ArrayList<>());
    /** The status now, a {@link Status} constant. */
    public volatile int status = Status.STATUS_NO_TRANSACTION;
    /** Thrown by the next {@link #begin}s when set. */
    public volatile RuntimeException beginFailure;
    /** A {@link RollbackException} or {@link SystemException} the next {@link #commitFailures} commits throw. */
    public volatile Exception commitFailure;
    /** How many commits throw {@link #commitFailure}: all unless set. */
    public volatile int commitFailures = Integer.MAX_VALUE;
    /** Whether a failed commit leaves the transaction on the thread (a statement before the commit failed). */
    public volatile boolean commitLeavesTransaction;

    /** @return a transaction manager with an active transaction on the thread, as a container-managed one is */
    public static FakeTransactions active() {
        FakeTransactions transactions = new FakeTransactions();
        transactions.status = Status.STATUS_ACTIVE;
        return transactions;
    }

    /** @return how many times {@code call} was made */
    public long count(String call) {
        synchronized (calls) {
            return calls.stream().filter(call::equals).count();
        }
    }

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
        if (commitFailure != null && commitFailures > 0) {
            commitFailures--;
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
        return status == Status.STATUS_NO_TRANSACTION ? null : this;
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
        synchronizations.add(sync);
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
