-- jakarta-inbox schema, version 3: the purge deletes per consumer by age, so index (consumer, processed_at).
-- CONCURRENTLY: built without blocking the consumers' inserts (Flyway runs this file outside a transaction).
CREATE INDEX CONCURRENTLY IF NOT EXISTS inbox_consumer_processed_at_idx ON inbox (consumer, processed_at);
