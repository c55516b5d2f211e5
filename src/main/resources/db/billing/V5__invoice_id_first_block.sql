-- Billing example schema, version 5: EclipseLink takes each value of invoice_id_seq as the last id of a block of 50
-- (Invoice, @SequenceGenerator allocationSize 50) and refuses a value below 49 as a sequence whose increment does
-- not match the allocation size (EclipseLink-7027). V4 left a new database's sequence to start at 1, so the first
-- invoice of a new database failed once (its group rolled back and went on one by one). A sequence that has not
-- given a value yet now starts at 50 (ids 1 to 50 first); one that has is left as it is.
ALTER TABLE invoice ALTER COLUMN id SET START WITH 50;
SELECT setval('invoice_id_seq', 50, false) FROM pg_sequences
 WHERE schemaname = current_schema() AND sequencename = 'invoice_id_seq' AND last_value IS NULL;
