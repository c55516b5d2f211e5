package io.github.jakartainbox.inbox.text;

import java.util.ArrayList;
import java.util.List;

/** The project's five message catalogues, for the tests that check them all. */
public final class Catalogues {

    private static final List<String> TYPES = List.of(
            "io.github.jakartainbox.inbox.logging.InboxMessage",
            "io.github.jakartainbox.outbox.OutboxMessage",
            "io.github.jakartainbox.billing.BillingMessage",
            "io.github.jakartainbox.inbox.health.HealthMessage",
            "io.github.jakartainbox.inbox.retention.RetentionMessage");

    private Catalogues() {
    }

    /** @return every message of every catalogue: inbox, outbox, billing, health, retention */
    public static List<CataloguedMessage> messages() {
        List<CataloguedMessage> messages = new ArrayList<>();
        for (String type : TYPES) {
            try {
                for (Object message : Class.forName(type).getEnumConstants()) {
                    messages.add((CataloguedMessage) message);
                }
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("catalogue " + type + " is gone: update this list", e);
            }
        }
        return messages;
    }
}
