-- jakarta-inbox schema, version 14: a dead letter resolved by its consumer processing the event, and payloads
-- stored once.
--
-- Until version 13 a dead letter stayed open when its consumer processed the event later: a re-drive whose mark was
-- lost (the server stopped after the record was sent) or a replay of the event left a row that health and the
-- statistics counted as open, for an operator to discard by hand. Now the consumer's claim closes it in the same
-- transaction (InboxDeadLetters.resolveProcessed) and adds a history entry of kind 'processed'.
ALTER TABLE inbox_dead_letter_history DROP CONSTRAINT IF EXISTS inbox_dead_letter_history_kind_check;
ALTER TABLE inbox_dead_letter_history ADD CONSTRAINT inbox_dead_letter_history_kind_check
    CHECK (kind IN ('failed', 'redriven', 'discarded', 'processed'));

-- Until version 13 each dead letter held its payload: a record every consumer of a topic refused (an oversized one,
-- 900 KB) was stored once per consumer. Now a payload is stored once, in full, keyed by the SHA-256 of its bytes
-- (payload_bytes, or the UTF-8 of payload), and every dead letter of it refers to it by payload_ref (NULL: no payload
-- kept, a tombstone or a row whose payload was refused). The tables are not partitioned, so this one file serves both
-- modes. A payload row is never deleted with its dead letters: dead letters are kept, and others may share it.
CREATE TABLE IF NOT EXISTS inbox_dead_letter_payload (
    payload_ref   bytea PRIMARY KEY CHECK (octet_length(payload_ref) = 32),
    payload       text,                    -- the payload as text (valid UTF-8 without U+0000)
    payload_bytes bytea,                   -- else its bytes, as delivered
    CHECK (num_nonnulls(payload, payload_bytes) = 1)
);

ALTER TABLE inbox_dead_letter ADD COLUMN IF NOT EXISTS payload_ref bytea
    REFERENCES inbox_dead_letter_payload (payload_ref);

INSERT INTO inbox_dead_letter_payload (payload_ref, payload, payload_bytes)
SELECT DISTINCT ON (ref) ref, CASE WHEN payload_bytes IS NULL THEN payload END, payload_bytes
  FROM (SELECT sha256(coalesce(payload_bytes, convert_to(payload, 'UTF8'))) AS ref, payload, payload_bytes
          FROM inbox_dead_letter WHERE payload IS NOT NULL OR payload_bytes IS NOT NULL) stored
 ORDER BY ref
ON CONFLICT (payload_ref) DO NOTHING;

UPDATE inbox_dead_letter SET payload_ref = sha256(coalesce(payload_bytes, convert_to(payload, 'UTF8')))
 WHERE payload IS NOT NULL OR payload_bytes IS NOT NULL;

ALTER TABLE inbox_dead_letter DROP COLUMN IF EXISTS payload, DROP COLUMN IF EXISTS payload_bytes;

