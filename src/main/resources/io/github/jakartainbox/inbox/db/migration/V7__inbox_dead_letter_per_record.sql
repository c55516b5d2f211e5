-- jakarta-inbox schema, version 7: one dead letter per bad record and consumer, however often the record is
-- delivered again (a rewind, a rebalance, a restart after a crash).
--
-- A dead letter with an event id is found again by (consumer, event_id) since version 1. One without a usable event
-- id is now found by (consumer, payload_sha256): the SHA-256 of the payload's bytes as delivered (the empty bytea for
-- a null payload, a tombstone). The same bytes are the same bad record for an operator: fixing it takes a corrected
-- event from the producer either way. Rows written before this version have no payload_sha256 and stay as they are.
ALTER TABLE inbox_dead_letter ADD COLUMN IF NOT EXISTS payload_sha256 bytea;

-- How many deliveries of the event or record failed into this row (1 when first written).
-- PostgreSQL 11 and later add a column with a constant default without rewriting the table.
ALTER TABLE inbox_dead_letter ADD COLUMN IF NOT EXISTS deliveries integer NOT NULL DEFAULT 1;

CREATE UNIQUE INDEX IF NOT EXISTS inbox_dead_letter_record_uq ON inbox_dead_letter (consumer, payload_sha256)
    WHERE event_id IS NULL;
