-- Billing example schema, version 6: why an invoice's mail was not sent. mail_status: 'sent' (with mailed_at),
-- 'failed' (the SMTP server refused it for good) or 'uncertain' (sent, but the reply to its end never came, so it is
-- not sent again by itself); NULL while no mail was tried to the end. mail_error: the reason, with its message id.
-- Both are written by the mailer (InvoiceMailer, InvoiceMailStatus); the unmailed query shows them.
ALTER TABLE invoice ADD COLUMN mail_status text, ADD COLUMN mail_error text,
    ADD CONSTRAINT invoice_mail_status_check CHECK (mail_status IN ('sent', 'failed', 'uncertain'));
UPDATE invoice SET mail_status = 'sent' WHERE mailed_at IS NOT NULL;
