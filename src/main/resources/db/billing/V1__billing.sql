-- Billing example schema, version 1. Applied by Flyway at start (history table billing_schema_history).

CREATE SEQUENCE invoice_number_seq;

-- No unique constraint on order_id or event_id on purpose: the inbox alone keeps invoices single.
CREATE TABLE invoice (
    id             bigint        GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    invoice_number text          NOT NULL UNIQUE
                                 DEFAULT 'INV-' || lpad(nextval('invoice_number_seq')::text, 9, '0'),
    order_id       text          NOT NULL,
    event_id       text          NOT NULL,
    customer_email text          NOT NULL,
    amount         numeric(12,2) NOT NULL CHECK (amount > 0),
    currency       char(3)       NOT NULL,
    created_at     timestamptz   NOT NULL
);
CREATE INDEX invoice_order_id_idx ON invoice (order_id);

-- Consumer "analytics": revenue per UTC day and currency, incremented once per event.
CREATE TABLE daily_revenue (
    day      date          NOT NULL,
    currency char(3)       NOT NULL,
    amount   numeric(16,2) NOT NULL,
    orders   bigint        NOT NULL,
    PRIMARY KEY (day, currency)
);
