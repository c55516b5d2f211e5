-- Billing example schema, version 2: the tables hold whatever the orders.confirmed contract accepts
-- (OrderConfirmed.parse, README "Bad input").
--
-- daily_revenue.amount was numeric(16,2): 10,000 orders of the largest accepted amount (10 integer digits) in one
-- day and currency overflowed it, and every later order of that day failed for consumer analytics alone. Without
-- a precision limit a numeric holds up to 131,072 integer digits; no day's sum comes near. Removing the limit
-- rewrites nothing (PostgreSQL checks no stored value for it). Amounts keep two decimals: each one added has two.
ALTER TABLE daily_revenue ALTER COLUMN amount TYPE numeric;

-- Checked and unchanged: invoice.order_id (btree index, entries up to 2704 bytes) holds the contract's 200
-- characters (at most 800 bytes of UTF-8); invoice.amount numeric(12,2) holds 10 integer digits and 2 decimals;
-- invoice.currency char(3) holds an ISO 4217 code; event_id and customer_email are unindexed text; orders bigint.
