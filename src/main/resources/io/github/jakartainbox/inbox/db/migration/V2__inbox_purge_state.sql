-- jakarta-inbox schema, version 2: the state of the retention purge, shared by every server of the database.
-- One row; a purge run takes the lease (owner, leased_until) so that only one server purges at a time.
CREATE TABLE inbox_purge_state (
    id               text        PRIMARY KEY CHECK (id = 'inbox'),
    owner            text,
    leased_until     timestamptz,
    last_started_at  timestamptz,
    last_finished_at timestamptz,           -- end of the last successful run
    last_deleted     bigint      NOT NULL DEFAULT 0,
    total_deleted    bigint      NOT NULL DEFAULT 0,
    last_error       text,                  -- set when the last run failed, cleared by the next good one
    last_error_at    timestamptz
);
INSERT INTO inbox_purge_state (id) VALUES ('inbox');
