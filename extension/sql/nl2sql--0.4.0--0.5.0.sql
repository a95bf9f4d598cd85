-- nl2sql 0.4.0 -> 0.5.0 (ALTER EXTENSION nl2sql UPDATE). Keeps every row of nl2sql's tables.
--
-- 0.5.0: a question the database cannot answer (data the schema has no place for, advice, an
-- opinion, a prediction or a cause, general knowledge, facts the database does not store) gets no
-- SQL: the run ends `unanswerable` with the reason in words (nl2sql returns NULL with a WARNING,
-- nl2sql_execute raises 0A000); the setting nl2sql.refuse and the option refuse turn it off. The
-- scope stage compares the question's words with the schema's names by meaning; the names'
-- embeddings are kept in nl2sql.name_embeddings. The rest is in the library ($libdir/nl2sql): a
-- second reading confirms a verified answer over several tables (`confirm`), a failing query gets
-- a fresh generation, DISTINCT judged on the data, refinement only of what refinement can fix.
-- The upgrade test (extension/tests/upgrade) checks that an upgraded catalog equals a fresh
-- install of 0.5.0.
\echo Use "ALTER EXTENSION nl2sql UPDATE" to load this file. \quit

ALTER TABLE nl2sql.runs DROP CONSTRAINT runs_status_check;
ALTER TABLE nl2sql.runs ADD CONSTRAINT runs_status_check
    CHECK (status IN ('running', 'ok', 'unverified', 'ambiguous', 'error', 'unanswerable'));

CREATE TABLE nl2sql.name_embeddings (
    model      text NOT NULL,
    text       text NOT NULL,
    embedding  vector(384) NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (model, text)
);
COMMENT ON TABLE nl2sql.name_embeddings IS 'nl2sql: embeddings of the words of schema names, computed once per name and model';
REVOKE ALL ON nl2sql.name_embeddings FROM PUBLIC;
