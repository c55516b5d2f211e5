package io.github.jakartainbox.outbox;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A pending outbox row that failed to be sent, as an operator sees it.
 *
 * @param id            the row id
 * @param eventId       the event id it carries
 * @param topic         its topic
 * @param key           its record key, {@code null} for none
 * @param attempts      failed sends so far
 * @param lastError     the last send's error
 * @param createdAt     when the row was recorded
 * @param lastFailedAt  when the last send failed
 * @param nextAttemptAt when it is sent again
 */
public record FailingRow(long id, UUID eventId, String topic, String key, int attempts, String lastError,
                         OffsetDateTime createdAt, OffsetDateTime lastFailedAt, OffsetDateTime nextAttemptAt) {
}
