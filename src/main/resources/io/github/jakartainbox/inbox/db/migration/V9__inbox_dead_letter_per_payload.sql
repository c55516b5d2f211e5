-- jakarta-inbox schema, version 9: a dead letter with an event id is one row per consumer, event id and payload
-- (payload_sha256, the SHA-256 of the payload's bytes as delivered; the empty bytea for a null payload).
--
-- Until version 8 it was one row per consumer and event id. A second payload under an event id that was already
-- dead-lettered (a producer that reused the id for two other orders, or re-serialized a failing event) then
-- overwrote the stored payload of the first: one payload that was never processed was kept nowhere. Now each payload
-- keeps its row; the same payload delivered again still counts on its row (deliveries).

-- Rows with an event id written before version 7 get the hash of their stored payload, so that the same payload
-- failing again (a re-drive) counts on them instead of adding a row. They were unique per (consumer, event_id), so
-- they stay unique with the hash added. A row whose payload could not be stored gets the empty hash and, if its
-- event fails again, a new row.
UPDATE inbox_dead_letter
   SET payload_sha256 = CASE WHEN payload_bytes IS NOT NULL THEN sha256(payload_bytes)
                             WHEN payload IS NOT NULL THEN sha256(convert_to(payload, 'UTF8'))
                             ELSE '\x'::bytea END
 WHERE payload_sha256 IS NULL AND event_id IS NOT NULL;

CREATE UNIQUE INDEX IF NOT EXISTS inbox_dead_letter_event_payload_uq
    ON inbox_dead_letter (consumer, event_id, payload_sha256) WHERE event_id IS NOT NULL;
DROP INDEX IF EXISTS inbox_dead_letter_event_uq;
