-- jakarta-inbox schema, version 1 (PostgreSQL 12 or later).
-- Applied by Flyway at application start (history table inbox_schema_history) unless inbox.schema.migrate=false,
-- in which case a DBA runs this file once.

-- One row per (consumer, event) whose effect has been committed.
CREATE TABLE inbox (
    consumer     text        NOT NULL CHECK (char_length(consumer) BETWEEN 1 AND 100),
    event_id     text        NOT NULL CHECK (char_length(event_id) BETWEEN 1 AND 255),
    processed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, event_id)
);

-- Lets the purge, which deletes per consumer by age (retention), find expired rows without scanning the table.
CREATE INDEX inbox_consumer_processed_at_idx ON inbox (consumer, processed_at);

-- Deliveries that could not be processed after all attempts, or whose event id was unusable.
CREATE TABLE inbox_dead_letter (
    id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    consumer        text        NOT NULL,
    event_id        text,                    -- NULL when the event id itself was missing or invalid
    payload         text,
    error           text        NOT NULL,
    attempts        integer     NOT NULL,
    first_failed_at timestamptz NOT NULL DEFAULT now(),
    last_failed_at  timestamptz NOT NULL DEFAULT now(),
    redriven_at     timestamptz              -- set by an operator when the event was sent again
);

-- One dead letter per failed event and consumer; a later failure of the same event updates it.
CREATE UNIQUE INDEX inbox_dead_letter_event_uq ON inbox_dead_letter (consumer, event_id) WHERE event_id IS NOT NULL;
CREATE INDEX inbox_dead_letter_consumer_idx ON inbox_dead_letter (consumer, last_failed_at);
