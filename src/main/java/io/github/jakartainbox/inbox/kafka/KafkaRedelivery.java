package io.github.jakartainbox.inbox.kafka;

import io.github.jakartainbox.inbox.InboxConfig;
import io.github.jakartainbox.inbox.delivery.IdempotentExtension;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.incoming.KeyedRecord;
import io.github.jakartainbox.inbox.incoming.RecordRedelivery;
import io.github.jakartainbox.inbox.incoming.RedriveAim;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.inject.Inject;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Calls a Kafka consumer's {@code @Incoming} method with a stored record, as the channel would: a method taking a
 * {@code Message} gets one whose {@code unwrap(ConsumerRecord.class)} is the record made again (topic, partition,
 * offset, key as text, headers, value); a method taking the payload gets the value. The call goes through the
 * method's interceptor, so the inbox claims it.
 *
 * <p>The value is given in the type the method declares: a record stored as text (its bytes were UTF-8) goes to a
 * method of {@code byte[]} (or {@code Message<byte[]>}, a channel with {@code ByteArrayDeserializer}) as those bytes
 * again; otherwise as stored.
 */
@ApplicationScoped
public class KafkaRedelivery implements RecordRedelivery {

    @Inject
    BeanManager beans;

    @Override
    public boolean delivers(String consumer) {
        return method(consumer) != null;
    }

    @Override
    public void deliver(String consumer, KeyedRecord record, Object value) throws Exception {
        Method method = method(consumer);
        if (method == null) {
            throw new IllegalArgumentException("no @Incoming method of consumer " + consumer + " in this application");
        }
        Object declared = asDeclared(method, value);
        ConsumerRecord<Object, Object> made = new ConsumerRecord<>(record.topic(), record.partition(),
                record.offset(), record.key(), declared);
        for (Map.Entry<String, byte[]> header : record.headers()) {
            made.headers().add(header.getKey(), header.getValue());
        }
        Message<?> message = new KafkaRecordMessage(made).message();
        Object bean = CDI.current().select(method.getDeclaringClass()).get();
        Object argument = Delivery.messageParameterIndex(method) >= 0 ? message : declared;
        Exception[] thrown = new Exception[1];
        RedriveAim.delivering(message, () -> {
            try {
                Object result = method.invoke(bean, argument);
                if (result instanceof CompletionStage<?> stage) {
                    stage.toCompletableFuture().join();
                }
            } catch (InvocationTargetException e) {
                thrown[0] = e.getCause() instanceof Exception cause ? cause : e;
            } catch (Exception e) {
                thrown[0] = e;
            }
        });
        if (thrown[0] != null) {
            throw thrown[0];
        }
    }

    /**
     * @param method the consumer's method, of one parameter: the payload or a {@code Message} of it
     * @param value  the stored value: text, bytes (not UTF-8) or {@code null}
     * @return the value's UTF-8 bytes when it is text and the method declares {@code byte[]} as its payload, else
     *         {@code value}
     */
    static Object asDeclared(Method method, Object value) {
        if (!(value instanceof String text)) {
            return value;
        }
        Type payload = method.getGenericParameterTypes()[0];
        if (payload instanceof ParameterizedType message && Message.class.equals(message.getRawType())) {
            payload = message.getActualTypeArguments()[0];
        }
        boolean bytes = byte[].class.equals(payload)
                || payload instanceof GenericArrayType array && byte.class.equals(array.getGenericComponentType());
        return bytes ? text.getBytes(StandardCharsets.UTF_8) : value;
    }

    /** @return the consumer's {@code @Incoming} method, {@code null} when this application has none */
    private Method method(String consumer) {
        IdempotentExtension found = beans.getExtension(IdempotentExtension.class);
        for (Map.Entry<String, List<Method>> entry : found.methodsByConsumer().entrySet()) {
            if (!InboxConfig.consumerName(entry.getKey()).equals(consumer)) {
                continue;
            }
            for (Method method : entry.getValue()) {
                if (method.isAnnotationPresent(Incoming.class) && method.getParameterCount() == 1) {
                    return method;
                }
            }
        }
        return null;
    }
}
