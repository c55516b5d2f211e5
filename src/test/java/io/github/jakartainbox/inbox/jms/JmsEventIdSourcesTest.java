package io.github.jakartainbox.inbox.jms;

import io.github.jakartainbox.inbox.InboxConfig;
import io.github.jakartainbox.inbox.InvalidEventIdException;
import io.github.jakartainbox.inbox.incoming.Delivery;
import io.github.jakartainbox.inbox.eventid.EventIds;
import io.github.jakartainbox.inbox.eventid.PayloadFieldEventIdSource;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.TextMessage;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The JMS event-id sources and the JMS side of {@link Delivery}, on a stand-in {@code TextMessage}. */
class JmsEventIdSourcesTest {

    /** A TextMessage stand-in: body, message id, redelivered flag and properties; other methods are not used. */
    private static TextMessage text(String body, String messageId, boolean redelivered, Map<String, Object> properties) {
        return (TextMessage) Proxy.newProxyInstance(JmsEventIdSourcesTest.class.getClassLoader(),
                new Class<?>[] {TextMessage.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getText" -> body;
                    case "getJMSMessageID" -> messageId;
                    case "getJMSRedelivered" -> redelivered;
                    case "getObjectProperty" -> properties.get((String) args[0]);
                    case "propertyExists" -> properties.containsKey((String) args[0]);
                    case "getIntProperty" -> (Integer) properties.get((String) args[0]);
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "TextMessage " + messageId;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    /** A message-driven bean's listener method. */
    static class Listener implements MessageListener {
        @Override
        public void onMessage(Message message) {
        }

        public void onText(String prefix, TextMessage message) {
        }
    }

    private static Delivery delivered(TextMessage message) throws Exception {
        Method onMessage = Listener.class.getMethod("onMessage", Message.class);
        return JmsMessages.withBody(Delivery.of(onMessage, new Object[] {message}));
    }

    @Test
    void aJmsParameterIsFoundByTypeAndItsTextBodyIsThePayload() throws Exception {
        assertEquals(0, Delivery.jmsParameterIndex(Listener.class.getMethod("onMessage", Message.class)));
        assertEquals(1, Delivery.jmsParameterIndex(Listener.class.getMethod("onText", String.class, TextMessage.class)));
        assertEquals(-1, Delivery.jmsParameterIndex(String.class.getMethod("concat", String.class)));
        TextMessage message = text("{\"event_id\":\"e-1\"}", "ID:1", false, Map.of());
        Delivery delivery = delivered(message);
        assertSame(message, delivery.jms());
        assertEquals("{\"event_id\":\"e-1\"}", delivery.payload());
        assertEquals("{\"event_id\":\"e-1\"}", delivery.payloadText());
        assertNull(delivery.message());
        assertArrayEquals(new Delivery("{\"event_id\":\"e-1\"}", null, -1).fingerprint(), delivery.fingerprint());
    }

    @Test
    void theBodyFieldSourceReadsAJsonTextMessage() throws Exception {
        Delivery delivery = delivered(text("{\"event_id\":\"e-2\",\"order_id\":\"o\"}", "ID:2", false, Map.of()));
        assertEquals("e-2", new PayloadFieldEventIdSource("event_id").rawEventId(delivery));
        InvalidEventIdException malformed = assertThrows(InvalidEventIdException.class,
                () -> new PayloadFieldEventIdSource("event_id").rawEventId(delivered(text("{\"event_id\":", "ID:3",
                        false, Map.of()))));
        assertTrue(malformed.getMessage().startsWith("INBOX0225E"), malformed.getMessage());
    }

    @Test
    void thePropertySourceReadsAStringPropertyAndRefusesOtherTypes() throws Exception {
        JmsPropertyEventIdSource source = new JmsPropertyEventIdSource("order_event");
        assertEquals("e-4", source.rawEventId(delivered(text("{}", "ID:4", false, Map.of("order_event", "e-4")))));
        assertNull(source.rawEventId(delivered(text("{}", "ID:5", false, Map.of("event_id", "e-5")))));
        InvalidEventIdException missing = assertThrows(InvalidEventIdException.class, () -> EventIds.normalize(
                source.rawEventId(delivered(text("{}", "ID:5", false, Map.of()))), 128, source.where()));
        assertTrue(missing.getMessage().contains("INBOX0210E: No event id: JMS property 'order_event' is missing"),
                missing.getMessage());
        InvalidEventIdException number = assertThrows(InvalidEventIdException.class,
                () -> source.rawEventId(delivered(text("{}", "ID:6", false, Map.of("order_event", 42)))));
        assertTrue(number.getMessage().startsWith("INBOX0702E: JMS property 'order_event' holds a Integer"),
                number.getMessage());
        InvalidEventIdException noJms = assertThrows(InvalidEventIdException.class,
                () -> source.rawEventId(new Delivery("{}", null, -1)));
        assertTrue(noJms.getMessage().startsWith("INBOX0701E"), noJms.getMessage());
    }

    @Test
    void theMessageIdSourceReadsJmsMessageId() throws Exception {
        JmsMessageIdEventIdSource source = new JmsMessageIdEventIdSource();
        assertEquals("ID:abc", source.rawEventId(delivered(text("{}", "ID:abc", false, Map.of()))));
        assertTrue(source.needsJmsMessage());
    }

    @Test
    void theDeliveryCountIsJmsxDeliveryCountElseTheRedeliveredFlag() {
        Map<String, Object> third = new HashMap<>();
        third.put(JmsMessages.DELIVERY_COUNT, 3);
        assertEquals(3, JmsMessages.deliveryCount(text("{}", "ID:7", true, third)));
        assertEquals(2, JmsMessages.deliveryCount(text("{}", "ID:8", true, Map.of())));
        assertEquals(1, JmsMessages.deliveryCount(text("{}", "ID:9", false, Map.of())));
    }

    @Test
    void theSourcesAreChosenByKey() {
        assertEquals("one of payload, header, bean, jms-property, jms-message-id",
                InboxConfig.EVENT_ID_SOURCE.allowed());
        assertEquals("jms-property", InboxConfig.EVENT_ID_SOURCE.parse("x", "JMS-Property"));
        assertEquals("event_id", InboxConfig.EVENT_ID_PROPERTY.defaultText().orElseThrow());
    }

    @Test
    void theJmsTransportBringsItsSourcesByNameAndTakesOnlyJmsDeliveries() throws Exception {
        JmsEventIdSources sources = new JmsEventIdSources();
        assertTrue(sources.create("jms-message-id", null, "billing") instanceof JmsMessageIdEventIdSource);
        assertNull(sources.create("payload", null, "billing"), "the inbox's own source, not the transport's");
        JmsDeliveries path = new JmsDeliveries();
        assertTrue(path.takes(delivered(text("{}", "ID:3", false, Map.of()))), "a message-driven bean's delivery");
        assertFalse(path.takes(new Delivery("{}", null, -1)), "a payload, no JMS message");
    }
}
