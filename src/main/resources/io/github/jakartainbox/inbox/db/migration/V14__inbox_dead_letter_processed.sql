-- jakarta-inbox schema, version 14: a dead letter resolved by its consumer processing the event.
--
-- Until version 13 a dead letter stayed open when its consumer processed the event later: a re-drive whose mark was
-- lost (the server stopped after the record was sent) or a replay of the event left a row that health and the
-- statistics counted as open, for an operator to discard by hand. Now the consumer's claim closes it in the same
-- transaction (InboxDeadLetters.resolveProcessed) and adds a history entry of kind 'processed'. The table is not
-- partitioned, so this one file serves both modes.
ALTER TABLE inbox_dead_letter_history DROP CONSTRAINT IF EXISTS inbox_dead_letter_history_kind_check;
ALTER TABLE inbox_dead_letter_history ADD CONSTRAINT inbox_dead_letter_history_kind_check
    CHECK (kind IN ('failed', 'redriven', 'discarded', 'processed'));
