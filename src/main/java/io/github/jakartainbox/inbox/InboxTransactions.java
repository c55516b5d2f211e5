package io.github.jakartainbox.inbox;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.Transactional;
import java.util.concurrent.Callable;

/** Container-managed JTA transactions for the inbox: each delivery attempt, and each dead letter, in its own. */
@ApplicationScoped
class InboxTransactions {

    @Resource
    TransactionSynchronizationRegistry registry;

    /** @return whether the calling thread already has a JTA transaction (an EJB, an MDB, a caller's own) */
    boolean active() {
        return registry.getTransactionStatus() != Status.STATUS_NO_TRANSACTION;
    }

    /** @return whether the calling thread's JTA transaction is active (not marked for rollback, not ending) */
    boolean isActive() {
        return registry.getTransactionStatus() == Status.STATUS_ACTIVE;
    }

    /**
     * Runs the work in a new JTA transaction that commits when it returns and rolls back when it throws.
     *
     * @param work the work
     * @param <T>  its result type
     * @return its result, after the commit
     * @throws Exception what the work threw (after the rollback), or
     *                   {@link jakarta.transaction.TransactionalException} when the commit failed
     */
    @Transactional(value = Transactional.TxType.REQUIRES_NEW, rollbackOn = Exception.class)
    <T> T inNewTransaction(Callable<T> work) throws Exception {
        return work.call();
    }
}
