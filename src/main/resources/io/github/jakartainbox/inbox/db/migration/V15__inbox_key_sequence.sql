-- jakarta-inbox schema, version 15: per-key order kept around dead letters (inbox.consumer.<c>.dead-letter.order=key).
--
-- Until version 14 a dead-lettered event's later events with the same Kafka record key were processed at once, and a
-- re-drive of the dead letter landed after them. Now, for a consumer that keeps the order, a dead letter of a record
-- with key K opens a sequence for (consumer, K), headed by that dead letter; the consumer's later records of K are
-- parked behind it (stored with payload, headers and position, not processed, acknowledged) until the sequence is
-- re-driven. A row of inbox_key_sequence exists only while its sequence is open: the re-drive deletes it once no
-- parked record is left. The tables are not partitioned, so this one file serves both modes.
CREATE TABLE IF NOT EXISTS inbox_key_sequence (
    id                 bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    consumer           text        NOT NULL,
    record_key         text        NOT NULL,  -- the Kafka record key as text (UTF-8, else 0x and its hex digits)
    head_dead_letter_id bigint     NOT NULL REFERENCES inbox_dead_letter (id),
    opened_at          timestamptz NOT NULL DEFAULT now(),
    redrive_claimed_at timestamptz,           -- a re-drive's lease: another re-drive of the key is refused meanwhile
    redrive_claimed_by text,
    UNIQUE (consumer, record_key)
);

-- The records of a sequence in their order (id): the head's record first (dead_letter_id set), then the parked ones.
-- A record delivered again (a crash before its acknowledgement) finds its row by position and adds none.
CREATE TABLE IF NOT EXISTS inbox_parked (
    id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    sequence_id     bigint      NOT NULL REFERENCES inbox_key_sequence (id),
    dead_letter_id  bigint      REFERENCES inbox_dead_letter (id), -- set for the head's record only
    event_id        text,                     -- NULL when not read (a parked record is not claimed)
    topic           text        NOT NULL,
    kafka_partition integer     NOT NULL,
    kafka_offset    bigint      NOT NULL,
    headers         bytea,                    -- the record's headers (ParkedRecord's encoding), NULL for none
    payload_ref     bytea       REFERENCES inbox_dead_letter_payload (payload_ref), -- NULL: a null value
    parked_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (sequence_id, topic, kafka_partition, kafka_offset)
);
CREATE INDEX IF NOT EXISTS inbox_parked_sequence_idx ON inbox_parked (sequence_id, id);
