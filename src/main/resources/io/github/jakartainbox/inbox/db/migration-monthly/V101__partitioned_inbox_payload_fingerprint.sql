-- jakarta-inbox partitioned mode: the payload fingerprint of schema version 6 on the partitioned table.
-- V100 re-creates table inbox with its own column list, so a database partitioned after version 6 needs the column
-- again here (rows moved by V100 keep no fingerprint); on one partitioned before version 6, V6 added it already.
ALTER TABLE inbox ADD COLUMN IF NOT EXISTS payload_sha256 bytea;
