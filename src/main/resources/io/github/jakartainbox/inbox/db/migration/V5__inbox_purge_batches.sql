-- jakarta-inbox schema, version 5: count the purge's DELETE transactions too, so batching is visible.
ALTER TABLE inbox_purge_state ADD COLUMN total_batches bigint NOT NULL DEFAULT 0;
