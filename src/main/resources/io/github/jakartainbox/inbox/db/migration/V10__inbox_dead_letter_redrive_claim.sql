-- jakarta-inbox schema, version 10: a re-drive claims its dead letter before it sends the record.
--
-- Until version 9 a re-drive sent the stored payload and then marked the row re-driven, so two operators re-driving
-- one row at the same moment each sent a record. Now a re-drive first sets redrive_claimed_at / redrive_claimed_by
-- in a transaction of its own (only when no live claim is there), sends, then marks the row re-driven and clears the
-- claim; a send that fails clears it too. A claim older than inbox.dead-letter.redrive-lease (a server that stopped
-- between the claim and the mark) no longer counts. The table is not partitioned, so this one file serves both modes.
ALTER TABLE inbox_dead_letter ADD COLUMN IF NOT EXISTS redrive_claimed_at timestamptz;
ALTER TABLE inbox_dead_letter ADD COLUMN IF NOT EXISTS redrive_claimed_by text;
