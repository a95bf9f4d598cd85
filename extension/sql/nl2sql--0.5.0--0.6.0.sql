-- nl2sql 0.5.0 -> 0.6.0 (ALTER EXTENSION nl2sql UPDATE). Keeps every row of nl2sql's tables.
--
-- 0.6.0: nl2sql learns each database from its curators. nl2sql_teach stores a verified question
-- and its SQL (checked: one read-only query, planned and run as the caller), nl2sql_examples lists
-- the examples the caller may see, nl2sql_forget removes one; nl2sql_define, nl2sql_glossary and
-- nl2sql_undefine keep a glossary of business terms (nl2sql.glossary, dumped by pg_dump). Every
-- generation is shown the nearest verified examples and the glossary terms its question mentions,
-- only those over tables the caller may SELECT (setting nl2sql.examples, option examples; 0 turns
-- it off). Writing needs the curating role (UPDATE on nl2sql.experts), as nl2sql_feedback does.
-- The upgrade test (extension/tests/upgrade) checks that an upgraded catalog equals a fresh
-- install of 0.6.0.
\echo Use "ALTER EXTENSION nl2sql UPDATE" to load this file. \quit

CREATE TABLE nl2sql.glossary (
    term       text PRIMARY KEY CHECK (term <> '' AND term = lower(term)),
    meaning    text NOT NULL CHECK (meaning <> ''),
    sql        text,
    added_by   name NOT NULL,
    added_at   timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE nl2sql.glossary IS 'nl2sql: business terms, their meaning in this database and their SQL; shown to every generation whose question mentions them';
REVOKE ALL ON nl2sql.glossary FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('nl2sql.glossary', '');

-- nl2sql::api::learn::nl2sql_teach
CREATE  FUNCTION "nl2sql_teach"(
	"question" TEXT, /* Option < & str > */
	"sql" TEXT /* Option < & str > */
) RETURNS jsonb /* std :: result :: Result < JsonB, ErrorReport > */
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'nl2sql_teach_wrapper';

-- nl2sql::api::learn::nl2sql_examples
CREATE  FUNCTION "nl2sql_examples"() RETURNS TABLE (
	"example_id" bigint,  /* i64 */
	"question" TEXT,  /* String */
	"sql" TEXT,  /* String */
	"run_id" bigint,  /* Option < i64 > */
	"added_by" TEXT,  /* String */
	"added_at" timestamp with time zone  /* Option < TimestampWithTimeZone > */
)
STRICT STABLE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'nl2sql_examples_wrapper';

-- nl2sql::api::learn::nl2sql_forget
CREATE  FUNCTION "nl2sql_forget"(
	"example_id" bigint /* Option < i64 > */
) RETURNS bool /* std :: result :: Result < bool, ErrorReport > */
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'nl2sql_forget_wrapper';

-- nl2sql::api::learn::nl2sql_define
CREATE  FUNCTION "nl2sql_define"(
	"term" TEXT, /* Option < & str > */
	"meaning" TEXT, /* Option < & str > */
	"sql" TEXT DEFAULT NULL /* Option < & str > */
) RETURNS jsonb /* std :: result :: Result < JsonB, ErrorReport > */
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'nl2sql_define_wrapper';

-- nl2sql::api::learn::nl2sql_undefine
CREATE  FUNCTION "nl2sql_undefine"(
	"term" TEXT /* Option < & str > */
) RETURNS bool /* std :: result :: Result < bool, ErrorReport > */
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'nl2sql_undefine_wrapper';

-- nl2sql::api::learn::nl2sql_glossary
CREATE  FUNCTION "nl2sql_glossary"() RETURNS TABLE (
	"term" TEXT,  /* String */
	"meaning" TEXT,  /* String */
	"sql" TEXT,  /* Option < String > */
	"added_by" TEXT,  /* String */
	"added_at" timestamp with time zone  /* Option < TimestampWithTimeZone > */
)
STRICT STABLE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'nl2sql_glossary_wrapper';
