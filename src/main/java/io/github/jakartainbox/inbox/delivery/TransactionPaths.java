package io.github.jakartainbox.inbox.delivery;

import io.github.jakartainbox.inbox.database.InboxTransactions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.List;

/**
 * The path of every method no transport takes (a Reactive Messaging channel's, a plain bean's). Which transaction
 * a delivery arrives in is a property of the delivery, not of its consumer (the same channel's records come in a
 * Kafka group's transaction, then, after the group rolled back, one by one outside any), so it is dispatched once
 * per delivery, here: a connector's enclosing transaction ({@link DeliveryPath.Enclosing}), else the caller's, else
 * a transaction of the inbox's own.
 */
@ApplicationScoped
public class TransactionPaths implements DeliveryPath {

    @Inject
    InboxTransactions transactions;
    @Inject
    @Any
    Instance<DeliveryPath.Enclosing> enclosing;
    @Inject
    CallerTransactionPath caller;
    @Inject
    OwnTransactionPath own;
    /** {@link #enclosing}, resolved at the first delivery. */
    volatile List<DeliveryPath.Enclosing> connectors;

    @Override
    public Object deliver(DeliveryCall call) throws Exception {
        List<DeliveryPath.Enclosing> paths = connectors;
        if (paths == null) {
            paths = connectors = enclosing.stream().toList();
        }
        for (DeliveryPath.Enclosing path : paths) {
            if (path.encloses()) {
                return path.deliver(call);
            }
        }
        return (transactions.active() ? caller : own).deliver(call);
    }
}
