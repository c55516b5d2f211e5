-- jakarta-inbox partitioned mode (inbox.partitioning=monthly): the inbox becomes a table partitioned by the
-- month of the EVENT's own time (event_month), never by the time of processing.
--
-- Why: PostgreSQL enforces a primary key on a partitioned table only together with the partition column. If the
-- partition column were the processing time, an event processed at 23:59:59 on the last day of a month and
-- delivered again at 00:00:01 would land in two partitions and be processed twice. The event's own time (from a
-- UUIDv7 event id, or a configured event-time field) is the same on every delivery, so (consumer, event_id,
-- event_month) is unique exactly when (consumer, event_id) is.
--
-- Existing rows keep their uniqueness: event_month comes from the id when it is a UUIDv7, else from the month of
-- processed_at (see README, "Partitioned mode", for the limit this implies for redeliveries of those old events).
-- The application creates the following months' partitions and drops expired ones (InboxPurge).

SET lock_timeout = '30s';

CREATE FUNCTION inbox_event_month(event_id text, fallback timestamptz) RETURNS date
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE
        WHEN event_id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
        THEN date_trunc('month', to_timestamp(('x' || substr(replace(event_id, '-', ''), 1, 12))::bit(48)::bigint
                                              / 1000.0) AT TIME ZONE 'UTC')::date
        ELSE date_trunc('month', fallback AT TIME ZONE 'UTC')::date
    END
$$;

ALTER TABLE inbox RENAME TO inbox_plain;
ALTER TABLE inbox_plain RENAME CONSTRAINT inbox_pkey TO inbox_plain_pkey;
ALTER INDEX IF EXISTS inbox_consumer_processed_at_idx RENAME TO inbox_plain_consumer_processed_at_idx;

CREATE TABLE inbox (
    consumer     text        NOT NULL CHECK (char_length(consumer) BETWEEN 1 AND 100),
    event_id     text        NOT NULL CHECK (char_length(event_id) BETWEEN 1 AND 255),
    event_month  date        NOT NULL CHECK (event_month = date_trunc('month', event_month)::date),
    processed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, event_id, event_month)
) PARTITION BY RANGE (event_month);
CREATE INDEX inbox_consumer_processed_at_idx ON inbox (consumer, processed_at);

-- partitions for every month that holds existing rows, and for this month and the next three
DO $$
DECLARE
    m date;
BEGIN
    FOR m IN
        SELECT DISTINCT inbox_event_month(event_id, processed_at) FROM inbox_plain
        UNION
        SELECT (date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => i))::date
        FROM generate_series(0, 3) AS i
    LOOP
        EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF inbox FOR VALUES FROM (%L) TO (%L)',
                       'inbox_y' || to_char(m, 'YYYY') || 'm' || to_char(m, 'MM'), m, (m + interval '1 month')::date);
    END LOOP;
END
$$;

INSERT INTO inbox (consumer, event_id, event_month, processed_at)
SELECT consumer, event_id, inbox_event_month(event_id, processed_at), processed_at FROM inbox_plain;

DROP TABLE inbox_plain;
