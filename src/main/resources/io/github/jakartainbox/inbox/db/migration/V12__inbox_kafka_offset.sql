-- jakarta-inbox schema, version 12: the inbox-kafka connector's offsets, kept with the effects they cover.
--
-- One row per consumer group and partition: the offset of the next record to read. A group of records writes it in
-- the same transaction as its claims and effects, so a database that loses commits (a failover to an asynchronous
-- standby) loses the matching offsets with them, and the channel reads again from what the database still holds.
-- Kafka's committed offsets are still written after each commit, for lag monitoring and tools.
CREATE TABLE IF NOT EXISTS inbox_kafka_offset (
    consumer_group text        NOT NULL,
    topic          text        NOT NULL,
    kafka_partition integer    NOT NULL,
    next_offset    bigint      NOT NULL CHECK (next_offset >= 0),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer_group, topic, kafka_partition)
);
