-- The transactional outbox (package io.github.jakartainbox.outbox): one row per outgoing message, written in the
-- caller's JTA transaction through the inbox datasource, delivered to Kafka after the commit by the relay.
-- Applied by the outbox's own Flyway (history table outbox_schema_history). IF NOT EXISTS: in a database where an
-- earlier build's inbox migration V8 made these tables, this version only records them.

CREATE TABLE IF NOT EXISTS outbox (
    id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id        uuid        NOT NULL UNIQUE,           -- UUIDv7, made at write time; header event_id
    topic           text        NOT NULL,
    record_key      text,                                  -- NULL: no key (no per-key order)
    payload         text        NOT NULL,
    headers         jsonb       NOT NULL DEFAULT '{}',     -- extra record headers, name -> UTF-8 text
    created_at      timestamptz NOT NULL DEFAULT now(),
    delivered_at    timestamptz,                           -- set once the broker acknowledged the record
    attempts        integer     NOT NULL DEFAULT 0,        -- failed sends so far
    next_attempt_at timestamptz,                           -- backoff: not sent before this
    last_error      text,
    last_failed_at  timestamptz,
    given_up_at     timestamptz,                           -- an operator gave the row up: never sent
    resolved_by     text                                   -- who retried or gave it up
);

-- the relay's scan: rows neither delivered nor given up, in id order
CREATE INDEX IF NOT EXISTS outbox_pending_idx ON outbox (id) WHERE delivered_at IS NULL AND given_up_at IS NULL;
-- the retention purge of delivered and given-up rows (inbox.outbox.retention)
CREATE INDEX IF NOT EXISTS outbox_delivered_at_idx ON outbox (delivered_at) WHERE delivered_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS outbox_given_up_at_idx ON outbox (given_up_at) WHERE given_up_at IS NOT NULL;

-- one relay at a time across servers: the lease, and the running total of delivered rows
CREATE TABLE IF NOT EXISTS outbox_relay_state (
    id              text        PRIMARY KEY,
    owner           text,
    leased_until    timestamptz,
    total_delivered bigint      NOT NULL DEFAULT 0
);
INSERT INTO outbox_relay_state (id) VALUES ('outbox') ON CONFLICT (id) DO NOTHING;
