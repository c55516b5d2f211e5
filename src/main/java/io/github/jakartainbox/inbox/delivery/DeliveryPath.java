package io.github.jakartainbox.inbox.delivery;

import io.github.jakartainbox.inbox.incoming.Delivery;

/**
 * One way of delivering a call of an {@code @Idempotent} method: claim it, run the method for a new event, settle
 * the delivery. The interceptor chooses a path once per method ({@link Transport}), else by the transaction the
 * delivery arrives in ({@link TransactionPaths}); a capability plugs its own in from above.
 */
public interface DeliveryPath {

    /**
     * @param call the call, its claim key not read yet
     * @return the method's result, or what it returns when it was not called
     * @throws Exception what must reach the caller or the container: the delivery is not settled
     */
    Object deliver(DeliveryCall call) throws Exception;

    /**
     * A path a transport brings for the methods it calls itself (a message-driven bean's {@code onMessage}: the
     * {@code jms} package), chosen once per method, at its first delivery.
     */
    interface Transport extends DeliveryPath {

        /**
         * @param delivery the first delivery to an {@code @Idempotent} method
         * @return whether this path delivers every call of that method
         */
        boolean takes(Delivery delivery);
    }

    /**
     * A path for the deliveries a connector runs inside a transaction of its own making (the {@code kafka}
     * package's group of records): whether a delivery is one of them is known only when it arrives.
     */
    interface Enclosing extends DeliveryPath {

        /** @return whether the delivery arriving on the calling thread is one of this path's */
        boolean encloses();
    }
}
