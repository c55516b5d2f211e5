package io.github.jakartainbox.inbox.database;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.NotSupportedException;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.Transactional;
import jakarta.transaction.UserTransaction;
import java.util.concurrent.Callable;

/** Container-managed JTA transactions for the inbox: each delivery attempt, and each dead letter, in its own. */
@ApplicationScoped
public class InboxTransactions {

    @Resource
    TransactionSynchronizationRegistry registry;
    @Resource
    UserTransaction userTransaction;

    /** @return whether the calling thread already has a JTA transaction (an EJB, an MDB, a caller's own) */
    public boolean active() {
        return registry.getTransactionStatus() != Status.STATUS_NO_TRANSACTION;
    }

    /** @return whether the calling thread's JTA transaction is active (not marked for rollback, not ending) */
    public boolean isActive() {
        return registry.getTransactionStatus() == Status.STATUS_ACTIVE;
    }

    /**
     * Runs the work in a new JTA transaction that commits when it returns and rolls back when it throws, suspending
     * the calling thread's transaction if it has one.
     *
     * @param work the work
     * @param <T>  its result type
     * @return its result, after the commit
     * @throws Exception what the work threw (after the rollback), or what the commit threw when it failed
     */
    @Transactional(value = Transactional.TxType.REQUIRES_NEW, rollbackOn = Exception.class)
    public <T> T inNewTransaction(Callable<T> work) throws Exception {
        return work.call();
    }

    /**
     * Runs the work in a JTA transaction of its own that commits when it returns and rolls back when it throws: the
     * transaction of one delivery attempt or one dead letter. On a thread without a transaction it is begun and ended
     * with {@code UserTransaction}, so that a failure the inbox handles itself (a retry, a dead letter) stays the
     * inbox's: leaving a {@code @Transactional} method, every exception is recorded by Liberty as an FFDC incident
     * ({@code UOWManagerImpl.runUnderCurrentUOW}), which tells operators that something unexpected happened, for each
     * poison message. On a thread with a transaction (a message-driven bean's), or where {@code UserTransaction}
     * cannot begin one, it runs as {@link #inNewTransaction}.
     *
     * @param work the work
     * @param <T>  its result type
     * @return its result, after the commit
     * @throws Exception what the work threw (after the rollback), or what the commit threw when it failed: a
     *                   {@code jakarta.transaction.RollbackException} when the transaction was marked for rollback or
     *                   a resource or synchronization refused it, a heuristic exception, a {@code SystemException}
     */
    public <T> T inOwnTransaction(Callable<T> work) throws Exception {
        return inOwnTransaction(null, work);
    }

    /**
     * As {@link #inOwnTransaction(Callable)}, with a timeout of its own.
     *
     * @param timeout the transaction's timeout, rounded up to whole seconds; {@code null} for the server's default
     *                (Liberty {@code <transaction totalTranLifetimeTimeout>}, 120 s unless set). Not applied where
     *                the work runs as {@link #inNewTransaction}.
     * @param work    the work
     * @param <T>     its result type
     * @return its result, after the commit
     * @throws Exception as {@link #inOwnTransaction(Callable)}
     */
    public <T> T inOwnTransaction(java.time.Duration timeout, Callable<T> work) throws Exception {
        if (active()) {
            return inNewTransaction(work);
        }
        try {
            // the server's default timeout unless the consumer has its own, as for a @Transactional method: the
            // inbox-kafka poll thread set its group.timeout for its groups' transactions, and the setting stays with
            // the thread for every later begin (UserTransaction.setTransactionTimeout's Javadoc; 0 restores the
            // default)
            userTransaction.setTransactionTimeout(timeout == null ? 0
                    : (int) Math.min(Integer.MAX_VALUE, (timeout.toMillis() + 999) / 1000));
            userTransaction.begin();
        } catch (NotSupportedException | SystemException | IllegalStateException e) {
            return inNewTransaction(work);
        }
        T result;
        try {
            result = work.call();
        } catch (Exception | Error e) {
            end(e);
            throw e;
        }
        try {
            userTransaction.commit();
        } catch (Exception | Error e) {
            end(e); // a commit that failed before it ended the transaction: roll it back, never leave it on the thread
            throw e;
        }
        return result;
    }

    /** Rolls back the thread's transaction, if it still has one; a failure to do so is added to {@code cause}. */
    private void end(Throwable cause) {
        try {
            if (userTransaction.getStatus() != Status.STATUS_NO_TRANSACTION) {
                userTransaction.rollback();
            }
        } catch (Exception | Error e) {
            cause.addSuppressed(e);
        }
    }
}
