package io.github.jakartainbox.billing.invoice;

import io.github.jakartainbox.billing.BillingConfig;
import io.github.jakartainbox.billing.BillingMessage;
import io.github.jakartainbox.billing.order.CustomerEmail;
import io.github.jakartainbox.billing.order.OrderConfirmed;
import io.github.jakartainbox.inbox.UnprocessableEventException;
import io.github.jakartainbox.inbox.text.Printable;
import io.github.jakartainbox.inbox.text.StrictJson;
import jakarta.json.JsonException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * An {@code invoices.issued} event, recorded in the outbox in the transaction that creates the invoice: record key =
 * order id, value {@code {"event_id":"<uuidv7>","invoice_id":42,"order_id":"..","customer_email":"..",
 * "amount":"129.90","currency":"EUR"}}; the event id travels as header {@code event_id} as well.
 *
 * @param eventId       the outbox's event id (UUIDv7), the same on every delivery
 * @param invoiceId     the invoice
 * @param orderId       its order
 * @param customerEmail where the invoice goes
 * @param amount        the amount
 * @param currency      the ISO 4217 currency code
 */
public record InvoiceIssued(UUID eventId, long invoiceId, String orderId, String customerEmail, BigDecimal amount,
                            String currency) {

    /** Looked up once: each static method of {@code jakarta.json.Json} looks the provider up again (StrictJson). */
    private static final JsonProvider JSON = JsonProvider.provider();

    /** The topic. */
    public static final String TOPIC = "invoices.issued";

    /**
     * @return the topic {@code invoices.issued} events are recorded for: {@code billing.invoices-issued.topic}
     *         ({@link BillingConfig#INVOICES_ISSUED_TOPIC}), else the mailer
     *         channel's topic, else {@value #TOPIC}
     */
    public static String topic() {
        org.eclipse.microprofile.config.Config config = ConfigProvider.getConfig();
        return BillingConfig.INVOICES_ISSUED_TOPIC.find(config)
                .or(() -> config.getOptionalValue("mp.messaging.incoming.invoices-mailer.topic", String.class))
                .orElse(TOPIC);
    }

    /**
     * @param eventId the event id the outbox made
     * @param invoice the new invoice, its id assigned
     * @return the event
     */
    static InvoiceIssued of(UUID eventId, Invoice invoice) {
        return new InvoiceIssued(eventId, invoice.getId(), invoice.getOrderId(), invoice.getCustomerEmail(),
                invoice.getAmount(), invoice.getCurrency());
    }

    /** @return the record value, JSON */
    public String json() {
        return JSON.createObjectBuilder()
                .add("event_id", eventId.toString())
                .add("invoice_id", invoiceId)
                .add("order_id", orderId)
                .add("customer_email", customerEmail)
                .add("amount", amount.toPlainString())
                .add("currency", currency)
                .build().toString();
    }

    /**
     * @param value the record value (UTF-8 JSON)
     * @return the event
     * @throws UnprocessableEventException when the value is not such an event, its {@code order_id} breaks the
     *                                     contract's display rules ({@link OrderConfirmed#shownOrderId}: an invoice
     *                                     stored before the contract refused invisible characters), or its
     *                                     {@code customer_email} is not
     *                                     one plain ASCII address ({@link CustomerEmail#check}: the mailer sends to
     *                                     it, and a group or a list would reach several people); the message names
     *                                     the field
     */
    public static InvoiceIssued parse(byte[] value) {
        if (value == null || value.length == 0) {
            throw new UnprocessableEventException(BillingMessage.BILLING0121E.format());
        }
        JsonObject object;
        try {
            object = StrictJson.readObject(new String(value, StandardCharsets.UTF_8));
        } catch (JsonException | IllegalStateException e) {
            throw new UnprocessableEventException(BillingMessage.BILLING0122E.format(e.getMessage()), e);
        }
        JsonValue invoiceId = object.get("invoice_id");
        if (!(invoiceId instanceof JsonNumber number) || !number.isIntegral()) {
            throw new UnprocessableEventException(BillingMessage.BILLING0123E.format());
        }
        try {
            return new InvoiceIssued(eventId(text(object, "event_id")), number.longValueExact(),
                    OrderConfirmed.shownOrderId("order_id", text(object, "order_id")), CustomerEmail.check("customer_email", text(object, "customer_email")),
                    new BigDecimal(text(object, "amount")),
                    text(object, "currency"));
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new UnprocessableEventException(BillingMessage.BILLING0124E.format(e.getMessage()), e);
        }
    }

    /** RFC 9562's text form of a UUID, either case: the one spelling the inbox reads as a UUID (EventIds). */
    private static final Pattern UUID_TEXT = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    /**
     * The event id, only in the form the inbox compares as a UUID. {@code UUID.fromString} also reads other
     * spellings of it (leading zeros dropped, a sign), which the inbox claims as other events: each would mail the
     * invoice again under the same Message-ID.
     *
     * @throws UnprocessableEventException ({@code BILLING0312E}) for any other text
     */
    static UUID eventId(String text) {
        if (!UUID_TEXT.matcher(text).matches()) {
            throw new UnprocessableEventException(BillingMessage.BILLING0312E.format(Printable.of(text, 60)));
        }
        return UUID.fromString(text);
    }

    private static String text(JsonObject object, String field) {
        JsonValue value = object.get(field);
        if (!(value instanceof JsonString string) || string.getString().isBlank()) {
            throw new UnprocessableEventException(BillingMessage.BILLING0109E.format(field,
                    value == null ? "nothing" : Printable.of(value.toString(), 60)));
        }
        return string.getString();
    }
}
