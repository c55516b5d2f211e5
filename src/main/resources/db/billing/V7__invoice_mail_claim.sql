-- Billing example schema, version 7: one mail per invoice, whatever event names it. The mailer inserts the invoice's
-- row here, with the Message-ID it is about to send, in the transaction that claims its invoices.issued event and
-- before it sends: a second event of the same invoice under another event id finds the row (or waits for the racing
-- transaction that holds it) and mails nothing. invoice.mail_message_id now also names a refused or uncertain mail.
CREATE TABLE invoice_mail (
    invoice_id bigint      PRIMARY KEY REFERENCES invoice (id) ON DELETE CASCADE,
    message_id text        NOT NULL,
    claimed_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
INSERT INTO invoice_mail (invoice_id, message_id, claimed_at)
    SELECT id, mail_message_id, mailed_at FROM invoice WHERE mail_message_id IS NOT NULL AND mailed_at IS NOT NULL;
