-- nl2sql 0.3.0 -> 0.4.0 (ALTER EXTENSION nl2sql UPDATE). Keeps every row of nl2sql's tables.
--
-- 0.4.0: a run whose SQL never runs ends `error` and hands over no SQL (nl2sql returns NULL with a
-- WARNING, nl2sql_execute raises 38000); nl2sql_fix shows the mechanical repairs nl2sql would make
-- to one SQL for one question, without any model. The rest is in the library ($libdir/nl2sql):
-- one lexicon for the rules, English-only rules that stay silent on other languages, rewrites that
-- never make a degenerate join.
-- The upgrade test (extension/tests/upgrade) checks that an upgraded catalog equals a fresh
-- install of 0.4.0.
\echo Use "ALTER EXTENSION nl2sql UPDATE" to load this file. \quit

-- nl2sql::api::ask::nl2sql_fix
CREATE  FUNCTION "nl2sql_fix"(
	"question" TEXT, /* Option < & str > */
	"sql" TEXT /* Option < & str > */
) RETURNS TABLE (
	"step" INT,  /* i32 */
	"stage" TEXT,  /* String */
	"fix" TEXT,  /* Option < String > */
	"kept" bool,  /* bool */
	"detail" TEXT,  /* String */
	"sql" TEXT  /* String */
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'nl2sql_fix_wrapper';
