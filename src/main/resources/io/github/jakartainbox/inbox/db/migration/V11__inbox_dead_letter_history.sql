-- jakarta-inbox schema, version 11: each dead letter's history.
--
-- Until version 10 a row kept only its latest state: the last error, counters, and who resolved it last. A row that
-- failed, was re-driven, failed again and was discarded showed only the discard. Now every failed delivery into the
-- row, every re-drive (who, when, aimed at which consumer, where the record went) and every discard adds an entry
-- here. InboxDeadLetters keeps the newest 50 entries per dead letter (InboxDeadLetters.HISTORY_LIMIT); the row's own
-- counters (deliveries, first_failed_at) still cover its whole life. Entries go with their dead letter. The table is
-- not partitioned, so this one file serves both modes.
CREATE TABLE IF NOT EXISTS inbox_dead_letter_history (
    id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    dead_letter_id  bigint      NOT NULL REFERENCES inbox_dead_letter (id) ON DELETE CASCADE,
    at              timestamptz NOT NULL DEFAULT clock_timestamp(),
    kind            text        NOT NULL CHECK (kind IN ('failed', 'redriven', 'discarded')),
    actor           text,                  -- the operator (redriven, discarded); NULL for a failed delivery
    attempts        integer,               -- failed: processing attempts of that delivery
    error           text,                  -- failed: the reason, cut to 500 characters
    target_consumer text,                  -- redriven: the one consumer the record was aimed at; NULL: every consumer
    destination     text,                  -- redriven: the topic or queue the record was sent to
    record_partition integer,              -- redriven: the Kafka partition and offset, when the send reported them
    record_offset   bigint
);
CREATE INDEX IF NOT EXISTS inbox_dead_letter_history_row_idx ON inbox_dead_letter_history (dead_letter_id, id);
