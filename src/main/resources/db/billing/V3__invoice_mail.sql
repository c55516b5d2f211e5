-- Billing example schema, version 2: the invoice mail (consumer "mailer") and the order status (consumer
-- "order-status", idempotent by construction, no inbox).

-- set by the mailer in the transaction that claims the invoices.issued event; NULL: no mail recorded yet
ALTER TABLE invoice ADD COLUMN mailed_at timestamptz, ADD COLUMN mail_message_id text;
-- the compensation query: invoices still without a mail after a delay
CREATE INDEX invoice_unmailed_idx ON invoice (created_at) WHERE mailed_at IS NULL;

-- the last status each order event set; a replay sets the same values again
CREATE TABLE order_status (
    order_id text          PRIMARY KEY,
    status   text          NOT NULL,
    amount   numeric(12,2) NOT NULL,
    currency char(3)       NOT NULL
);
