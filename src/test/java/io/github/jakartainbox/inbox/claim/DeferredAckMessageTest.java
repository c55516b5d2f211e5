package io.github.jakartainbox.inbox.claim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.Test;

/** The wrapper an idempotent method receives: acknowledgement deferred, every other method forwarded. */
class DeferredAckMessageTest {

    private final List<String> calledOnDelivered = new ArrayList<>();

    /** A delivered message that records every method called on it and answers with a value of the right type. */
    @SuppressWarnings("unchecked")
    private Message<String> delivered() {
        return (Message<String>) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Message.class},
                (proxy, method, args) -> {
                    calledOnDelivered.add(method.getName());
                    Class<?> type = method.getReturnType();
                    if (method.getName().equals("getPayload")) {
                        return "payload";
                    }
                    if (type == Supplier.class) {
                        return (Supplier<Object>) () -> CompletableFuture.completedFuture(null);
                    }
                    if (type == java.util.function.Function.class) {
                        return (java.util.function.Function<Object, Object>) x -> CompletableFuture.completedFuture(null);
                    }
                    return type.isInterface() && type != Object.class ? null : "from delivered: " + method.getName();
                });
    }

    @Test
    void acknowledgementIsDeferredAndANackFailsTheAttempt() {
        DeferredAckMessage handler = DeferredAckMessage.of(delivered());
        Message<?> message = handler.message();
        message.ack().toCompletableFuture().join();
        message.getAck().get().toCompletableFuture().join();
        assertNull(handler.nackReason());
        IllegalStateException reason = new IllegalStateException("no");
        message.nack(reason).toCompletableFuture().join();
        assertSame(reason, handler.nackReason());
        assertTrue(calledOnDelivered.stream().noneMatch(n -> n.contains("ack") || n.contains("Ack")),
                "neither ack nor nack reached the delivered message: " + calledOnDelivered);
    }

    @Test
    void aMessageDerivedWithWithPayloadKeepsTheDeferredAcknowledgement() {
        DeferredAckMessage handler = DeferredAckMessage.of(delivered());
        Message<Integer> derived = handler.message().withPayload(42);
        assertEquals(42, derived.getPayload());
        derived.nack(new IllegalArgumentException("derived")).toCompletableFuture().join();
        assertEquals("derived", handler.nackReason().getMessage());
        assertTrue(calledOnDelivered.stream().noneMatch(n -> n.contains("ack") || n.contains("Ack")), calledOnDelivered.toString());
    }

    /**
     * Every method of the Message interface the runtime has, other than acknowledgement and derivation, reaches
     * the delivered message: getPayload, unwrap, and (on SmallRye's API) getMetadata and its family.
     */
    @Test
    void everyOtherMethodOfTheInterfaceIsForwarded() throws Exception {
        Message<?> message = DeferredAckMessage.of(delivered()).message();
        for (Method method : Message.class.getMethods()) {
            String name = method.getName();
            boolean acknowledgement = name.equals("ack") || name.equals("nack") || name.startsWith("getAck")
                    || name.startsWith("getNack");
            boolean derivation = method.isDefault() && Message.class.isAssignableFrom(method.getReturnType());
            if (Modifier.isStatic(method.getModifiers()) || acknowledgement || derivation) {
                continue;
            }
            calledOnDelivered.clear();
            Object[] args = new Object[method.getParameterCount()];
            if (name.equals("unwrap")) {
                args[0] = Object.class;
            }
            method.invoke(message, args);
            assertEquals(List.of(name), calledOnDelivered, name + " is forwarded");
        }
        assertEquals("payload", message.getPayload());
        assertFalse(message.equals(delivered()));
    }
}
