-- nl2sql's catalog objects, in schema nl2sql. The SQL functions are created in the extension's schema.

CREATE SCHEMA nl2sql;
COMMENT ON SCHEMA nl2sql IS 'nl2sql catalog: the audit log of runs and their steps';
GRANT USAGE ON SCHEMA nl2sql TO PUBLIC;

-- One row per call of an nl2sql function that asks a model or chooses among candidates.
CREATE TABLE nl2sql.runs (
    run_id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    started_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at       timestamptz,
    who               name NOT NULL,
    session_user_name name NOT NULL DEFAULT session_user,
    backend_pid       integer NOT NULL DEFAULT pg_backend_pid(),
    function          text NOT NULL,
    question          text,
    evidence          text,
    settings          jsonb NOT NULL DEFAULT '{}',
    status            text NOT NULL DEFAULT 'running'
                      CHECK (status IN ('running', 'ok', 'unverified', 'error')),
    error             text,
    chosen_sql        text,
    prompt_tokens     bigint NOT NULL DEFAULT 0,
    completion_tokens bigint NOT NULL DEFAULT 0,
    llm_calls         integer NOT NULL DEFAULT 0,
    elapsed_ms        double precision
);
COMMENT ON TABLE nl2sql.runs IS 'nl2sql audit log: one row per run (who, when, question, settings, outcome, chosen SQL, tokens, time)';
CREATE INDEX runs_who_started ON nl2sql.runs (who, started_at);

-- The steps of a run: stage, input, output, timing.
CREATE TABLE nl2sql.steps (
    run_id     bigint NOT NULL REFERENCES nl2sql.runs ON DELETE CASCADE,
    step       integer NOT NULL,
    logged_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    stage      text NOT NULL,
    status     text NOT NULL,
    detail     text,
    sql        text,
    input      jsonb,
    output     jsonb,
    elapsed_ms double precision,
    PRIMARY KEY (run_id, step)
);
COMMENT ON TABLE nl2sql.steps IS 'nl2sql audit log: the steps of each run';

-- Users read their own runs; superusers, the owner and members of pg_read_all_data read all.
-- Nobody but the extension writes here: nl2sql writes with its owner's privileges.
ALTER TABLE nl2sql.runs ENABLE ROW LEVEL SECURITY;
ALTER TABLE nl2sql.steps ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_runs ON nl2sql.runs FOR SELECT
    USING (who = current_user OR pg_has_role(current_user, 'pg_read_all_data', 'MEMBER'));
CREATE POLICY own_steps ON nl2sql.steps FOR SELECT
    USING (EXISTS (SELECT 1 FROM nl2sql.runs r WHERE r.run_id = steps.run_id));
REVOKE ALL ON nl2sql.runs, nl2sql.steps FROM PUBLIC;
GRANT SELECT ON nl2sql.runs, nl2sql.steps TO PUBLIC;

-- pg_dump keeps the audit log.
SELECT pg_catalog.pg_extension_config_dump('nl2sql.runs', '');
SELECT pg_catalog.pg_extension_config_dump('nl2sql.steps', '');
