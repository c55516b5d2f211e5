package io.github.jakartainbox.inbox.delivery;

import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.spi.DeliverySpan;
import jakarta.interceptor.InvocationContext;

/**
 * A delivery path that a transport brings from above (the {@code jms} package: a message-driven bean's message, in
 * the bean's transaction): the interceptor hands it the deliveries it takes, whole.
 */
public interface DeliveryPath {

    /**
     * @param delivery a delivery to an {@code @Idempotent} method
     * @return whether this path delivers it
     */
    boolean takes(Delivery delivery);

    /**
     * @param context  the intercepted call
     * @param consumer the consumer's settings
     * @param delivery the delivery, one this path {@link #takes}
     * @param span     the delivery's trace span ({@link DeliverySpan#NONE} without tracing)
     * @return the method's result, {@code null} when it was not called
     * @throws Exception what the container must see: the delivery is redelivered
     */
    Object deliver(InvocationContext context, ConsumerSettings consumer, Delivery delivery, DeliverySpan span)
            throws Exception;
}
