package io.github.jakartainbox.billing.invoice;

import io.github.jakartainbox.billing.order.OrderConfirmed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.jakartainbox.inbox.UnprocessableEventException;
import jakarta.jms.TextMessage;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A JMS order over the size limit is dead-lettered with its real size (it said "65537 bytes" for 4 MB). */
class BillingJmsConsumerTest {

    private static TextMessage text(String body) {
        return (TextMessage) Proxy.newProxyInstance(TextMessage.class.getClassLoader(), new Class<?>[] {TextMessage.class},
                (proxy, method, args) -> method.getName().equals("getText") ? body : null);
    }

    @Test
    void aTextOverTheLimitIsRefusedWithItsRealSize() {
        String big = "x".repeat(4 * 1024 * 1024);
        UnprocessableEventException refused = assertThrows(UnprocessableEventException.class,
                () -> new BillingJmsConsumer().onMessage(text(big)));
        assertEquals("BILLING0102E: orders.confirmed value is 4194304 bytes, more than the 65536 an order event may "
                + "have.", refused.getMessage());
        String wide = "\u00e9".repeat(40_000) + "\uD83D\uDE00";
        refused = assertThrows(UnprocessableEventException.class, () -> new BillingJmsConsumer().onMessage(text(wide)));
        assertEquals(wide.getBytes(StandardCharsets.UTF_8).length + " bytes",
                refused.getMessage().replaceAll(".* is (\\d+ bytes),.*", "$1"));
    }

    @Test
    void utf8LengthCountsLikeTheEncoder() {
        for (String text : new String[] {"", "abc", "\u00e9t\u00e9", "\u20ac", "\uD83D\uDE00x"}) {
            assertEquals(text.getBytes(StandardCharsets.UTF_8).length, OrderConfirmed.utf8Length(text), text);
        }
    }
}
