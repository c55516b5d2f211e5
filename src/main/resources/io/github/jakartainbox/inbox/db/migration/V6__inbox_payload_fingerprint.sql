-- jakarta-inbox schema, version 6.
-- payload_sha256: SHA-256 of the payload bytes of the delivery that was processed, so that the same event id
-- arriving later with a different payload is reported (a producer reusing ids) instead of silently skipped.
-- NULL for rows written before this version, or by consumers with inbox.consumer.<c>.fingerprint=none.
-- Adding a nullable column without a default rewrites nothing, whatever the table's size.
ALTER TABLE inbox ADD COLUMN IF NOT EXISTS payload_sha256 bytea;

-- payload_bytes: the payload of a dead letter whose bytes are not valid UTF-8 text (payload is then NULL), kept
-- byte for byte so that it can be inspected and re-driven as it arrived.
ALTER TABLE inbox_dead_letter ADD COLUMN IF NOT EXISTS payload_bytes bytea;

-- What an operator did with a dead letter: re-drove it (redriven_at, since V1) or discarded it, and who.
ALTER TABLE inbox_dead_letter ADD COLUMN IF NOT EXISTS discarded_at timestamptz;
ALTER TABLE inbox_dead_letter ADD COLUMN IF NOT EXISTS resolved_by text;
