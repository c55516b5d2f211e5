-- Billing example schema, version 8: the event id under which this database issued each invoice (its outbox row's
-- invoices.issued event, written with the invoice). The mailer mails an invoice only for that event: after a failover
-- that lost commits, the promoted database hands the lost invoices' ids out again, and a record of a lost invoice could
-- otherwise be mailed, and recorded, as the new invoice of the same order. NULL on invoices written before V8 (any
-- event whose fields match them is theirs, as before).
ALTER TABLE invoice ADD COLUMN issued_event_id text;
