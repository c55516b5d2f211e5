package io.github.jakartainbox.inbox.jms;

import io.github.jakartainbox.inbox.InboxConfig;
import io.github.jakartainbox.inbox.claim.ClaimKey;
import io.github.jakartainbox.inbox.claim.InboxClaim;
import io.github.jakartainbox.inbox.consumer.ConsumerSettings;
import io.github.jakartainbox.inbox.consumer.InboxConsumers;
import io.github.jakartainbox.inbox.database.InboxTransactions;
import io.github.jakartainbox.inbox.delivery.DeliveryCall;
import io.github.jakartainbox.inbox.delivery.IdempotentExtension;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.incoming.KeyedRecord;
import io.github.jakartainbox.inbox.incoming.RecordRedelivery;
import io.github.jakartainbox.inbox.incoming.SequenceRedrive;
import io.github.jakartainbox.inbox.spi.DeliverySpan;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.Unmanaged;
import jakarta.inject.Inject;
import jakarta.interceptor.InvocationContext;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Calls a message-driven bean's {@code @Idempotent onMessage} with a parked JMS message, for the re-drive of its key's
 * sequence: on the calling thread, in order, through the same path as the container's deliveries
 * ({@link JmsDeliveries}), each attempt in a JTA transaction of its own begun here. The message is made again from
 * what was parked ({@link JmsMessages#stored}); the bean is an instance of the bean's class made for the call, its
 * injections done (the container's pool is out of reach), and disposed of after it.
 *
 * <p>A queue redelivers a message whose transaction rolled back; here the same happens in a loop: an attempt that
 * rolls back (the method failed, or its commit did) is made again after the policy's wait, until the message is
 * processed, skipped as a duplicate or dead-lettered (the policy decides, as for the container's deliveries). Sending
 * the message back to its queue instead would put it behind messages sent since and lose the key's order.
 */
@ApplicationScoped
public class JmsRedelivery implements RecordRedelivery {

    /** The most attempts of one message in a re-drive before it gives up (each waits; an outage uses no attempt). */
    static final int MAX_ROUNDS = 1000;

    @Inject
    BeanManager beans;
    @Inject
    InboxConsumers consumers;
    @Inject
    InboxClaim inbox;
    @Inject
    InboxTransactions transactions;
    @Inject
    JmsDeliveries path;

    @Override
    public boolean delivers(String consumer) {
        return method(consumer) != null;
    }

    /**
     * @throws IllegalArgumentException when this application has no message-driven bean method of the consumer
     * @throws IllegalStateException    (INBOX0711E) when the message was neither processed nor dead-lettered after
     *                                  {@link #MAX_ROUNDS} attempts
     */
    @Override
    public void deliver(String consumer, KeyedRecord record, Object value) throws Exception {
        Method method = method(consumer);
        if (method == null) {
            throw new IllegalArgumentException("no @Idempotent onMessage of consumer " + consumer
                    + " in this application");
        }
        ConsumerSettings settings = consumers.forMethod(method);
        Object message = JmsMessages.stored(record, value);
        SequenceRedrive redrive = SequenceRedrive.current();
        Unmanaged.UnmanagedInstance<?> instance = new Unmanaged<>(beans, method.getDeclaringClass()).newInstance();
        Object bean = instance.produce().inject().postConstruct().get();
        try {
            for (int round = 1; round <= MAX_ROUNDS; round++) {
                if (redrive != null) {
                    redrive.ended(null);
                }
                Object[] arguments = new Object[method.getParameterCount()];
                arguments[Delivery.jmsParameterIndex(method)] = message;
                Delivery delivery = Delivery.of(method, arguments);
                DeliveryCall call = new DeliveryCall(new Call(bean, method, arguments), settings, delivery,
                        DeliverySpan.NONE, ClaimKey.of(settings, delivery, inbox));
                // where the bean made here is intercepted already, calling it goes through the inbox's interceptor
                boolean intercepted = bean.getClass() != method.getDeclaringClass();
                boolean committed;
                try {
                    transactions.inOwnTransaction(settings.transactionTimeout(),
                            () -> intercepted ? call.context().proceed() : path.deliver(call));
                    committed = true;
                } catch (jakarta.transaction.RollbackException rolledBack) {
                    committed = false; // marked rollback-only by the path: the next round is the redelivery
                }
                SequenceRedrive.Outcome outcome = redrive == null ? null : redrive.outcome();
                if (outcome == SequenceRedrive.Outcome.DEAD_LETTERED || committed && outcome != null
                        || redrive == null && committed) {
                    return;
                }
            }
        } finally {
            instance.preDestroy().dispose();
        }
        throw new IllegalStateException(JmsMessage.INBOX0711E.format(consumer, record.location(), MAX_ROUNDS));
    }

    /** @return the consumer's message-driven bean method, {@code null} when this application has none */
    private Method method(String consumer) {
        IdempotentExtension found = beans.getExtension(IdempotentExtension.class);
        for (Map.Entry<String, List<Method>> entry : found.methodsByConsumer().entrySet()) {
            if (!InboxConfig.consumerName(entry.getKey()).equals(consumer)) {
                continue;
            }
            for (Method method : entry.getValue()) {
                if (Delivery.jmsParameterIndex(method) >= 0) {
                    return method;
                }
            }
        }
        return null;
    }

    /** The call of the method on the bean made for the re-drive, as the interceptor would see it. */
    private static final class Call implements InvocationContext {
        private final Object bean;
        private final Method method;
        private Object[] parameters;
        private final Map<String, Object> data = new HashMap<>();

        Call(Object bean, Method method, Object[] parameters) {
            this.bean = bean;
            this.method = method;
            this.parameters = parameters;
        }

        @Override
        public Object getTarget() {
            return bean;
        }

        @Override
        public Object getTimer() {
            return null;
        }

        @Override
        public Method getMethod() {
            return method;
        }

        @Override
        public Constructor<?> getConstructor() {
            return null;
        }

        @Override
        public Object[] getParameters() {
            return parameters;
        }

        @Override
        public void setParameters(Object[] params) {
            this.parameters = params;
        }

        @Override
        public Map<String, Object> getContextData() {
            return data;
        }

        @Override
        public Object proceed() throws Exception {
            try {
                method.setAccessible(true);
                return method.invoke(bean, parameters);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof Error error) {
                    throw error;
                }
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
        }
    }
}
