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
                      CHECK (status IN ('running', 'ok', 'unverified', 'ambiguous', 'error', 'unanswerable')),
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

-- The value index: distinct values of text columns worth indexing, with their embeddings (pgvector) for
-- semantic matches and a trigram index (pg_trgm) for lexical ones. Written only by nl2sql_index_values
-- (with the extension owner's privileges, from values the calling user could SELECT); read only through
-- nl2sql_search_values, which returns a value only if the caller can SELECT it now. No user reads it directly.
CREATE TABLE nl2sql.value_index (
    table_schema name NOT NULL,
    table_name   name NOT NULL,
    column_name  name NOT NULL,
    value        text NOT NULL,
    embedding    vector(384) NOT NULL,
    model        text NOT NULL,
    indexed_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_schema, table_name, column_name, value)
);
COMMENT ON TABLE nl2sql.value_index IS 'nl2sql value index: distinct column values with embeddings; read through nl2sql_search_values only';
CREATE INDEX value_index_embedding ON nl2sql.value_index USING hnsw (embedding vector_cosine_ops);
CREATE INDEX value_index_trigram ON nl2sql.value_index USING gin (value gin_trgm_ops);
REVOKE ALL ON nl2sql.value_index FROM PUBLIC;

-- One row per column nl2sql_index_values looked at: indexed or skipped (and why), with counts and times.
CREATE TABLE nl2sql.value_columns (
    table_schema     name NOT NULL,
    table_name       name NOT NULL,
    column_name      name NOT NULL,
    status           text NOT NULL CHECK (status IN ('indexed', 'skipped')),
    reason           text,
    distinct_values  bigint,
    indexed_values   bigint NOT NULL DEFAULT 0,
    model            text,
    refreshed_at     timestamptz NOT NULL DEFAULT now(),
    changes_at_refresh bigint,
    PRIMARY KEY (table_schema, table_name, column_name)
);
REVOKE ALL ON nl2sql.value_columns FROM PUBLIC;

-- What is indexed and how stale it is, for the columns the current user may SELECT.
CREATE VIEW nl2sql.value_index_status AS
SELECT c.table_schema, c.table_name, c.column_name, c.status, c.reason, c.distinct_values, c.indexed_values,
       c.model, c.refreshed_at, now() - c.refreshed_at AS age,
       (SELECT s.n_tup_ins + s.n_tup_upd + s.n_tup_del FROM pg_catalog.pg_stat_all_tables s
         WHERE s.schemaname = c.table_schema AND s.relname = c.table_name) - c.changes_at_refresh
         AS rows_changed_since
  FROM nl2sql.value_columns c
 WHERE pg_catalog.to_regclass(pg_catalog.format('%I.%I', c.table_schema, c.table_name)) IS NOT NULL
   AND pg_catalog.has_column_privilege(pg_catalog.format('%I.%I', c.table_schema, c.table_name), c.column_name, 'SELECT');
COMMENT ON VIEW nl2sql.value_index_status IS 'nl2sql value index: per column, indexed or skipped, counts, age, rows changed since the refresh';
GRANT SELECT ON nl2sql.value_index_status TO PUBLIC;

-- Experts (a generator with a model, a named system) and their weighted-majority weights, per database.
-- Everyone may read them; only nl2sql_feedback changes them, for callers granted UPDATE on this table
-- (GRANT UPDATE ON nl2sql.experts TO <curators>): that grant is "the right role".
CREATE TABLE nl2sql.experts (
    expert     text PRIMARY KEY,
    weight     double precision NOT NULL DEFAULT 1 CHECK (weight > 0),
    rounds     integer NOT NULL DEFAULT 0,
    mistakes   integer NOT NULL DEFAULT 0,
    updated_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE nl2sql.experts IS 'nl2sql experts and their weighted-majority weights; changed by nl2sql_feedback';
REVOKE ALL ON nl2sql.experts FROM PUBLIC;
GRANT SELECT ON nl2sql.experts TO PUBLIC;

-- Every verdict given with nl2sql_feedback.
CREATE TABLE nl2sql.feedback (
    feedback_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id      bigint NOT NULL REFERENCES nl2sql.runs ON DELETE CASCADE,
    given_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    who         name NOT NULL,
    verdict     text NOT NULL CHECK (verdict IN ('correct', 'wrong')),
    correct_sql text,
    mistaken    text[] NOT NULL DEFAULT '{}',
    epsilon     double precision
);
REVOKE ALL ON nl2sql.feedback FROM PUBLIC;

-- Verified question/SQL pairs (nl2sql_teach, nl2sql_feedback): every generation is shown the nearest
-- (by embedding similarity of the questions with schema words masked) whose SQL reads tables the caller
-- may SELECT. run_id is the run nl2sql_feedback confirmed, NULL for a pair taught directly.
CREATE TABLE nl2sql.examples (
    example_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    question   text NOT NULL,
    sql        text NOT NULL,
    embedding  vector(384) NOT NULL,
    run_id     bigint REFERENCES nl2sql.runs ON DELETE SET NULL,
    added_by   name NOT NULL,
    added_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX examples_embedding ON nl2sql.examples USING hnsw (embedding vector_cosine_ops);
REVOKE ALL ON nl2sql.examples FROM PUBLIC;

-- The glossary: business terms and what they mean in this database ("active customer": "ordered in
-- the last 90 days"), with the SQL expression a term stands for when it is one. Every generation is
-- shown the terms its question mentions, unless a term's SQL names a table the caller cannot read.
-- Written by nl2sql_define and nl2sql_undefine (the curating role: UPDATE on nl2sql.experts), read
-- with the extension owner's privileges; nl2sql_glossary() lists it.
CREATE TABLE nl2sql.glossary (
    term       text PRIMARY KEY CHECK (term <> '' AND term = lower(term)),
    meaning    text NOT NULL CHECK (meaning <> ''),
    sql        text,
    added_by   name NOT NULL,
    added_at   timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE nl2sql.glossary IS 'nl2sql: business terms, their meaning in this database and their SQL; shown to every generation whose question mentions them';
REVOKE ALL ON nl2sql.glossary FROM PUBLIC;

-- Embeddings of the words of schema names ("head born state" for head.born_state), by embedding model:
-- computed the first time a question needs them (the scope stage compares a question's words with the
-- names by meaning), read back afterwards. Texts of names only, no data; written and read with the
-- extension owner's privileges, nobody reads it directly. A cache: not dumped, rebuilt on demand.
CREATE TABLE nl2sql.name_embeddings (
    model      text NOT NULL,
    text       text NOT NULL,
    embedding  vector(384) NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (model, text)
);
COMMENT ON TABLE nl2sql.name_embeddings IS 'nl2sql: embeddings of the words of schema names, computed once per name and model';
REVOKE ALL ON nl2sql.name_embeddings FROM PUBLIC;

SELECT pg_catalog.pg_extension_config_dump('nl2sql.experts', '');
SELECT pg_catalog.pg_extension_config_dump('nl2sql.feedback', '');
SELECT pg_catalog.pg_extension_config_dump('nl2sql.examples', '');
SELECT pg_catalog.pg_extension_config_dump('nl2sql.glossary', '');
