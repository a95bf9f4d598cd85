-- nl2sql 0.2.0 -> 0.3.0 (ALTER EXTENSION nl2sql UPDATE). Keeps every row of nl2sql's tables.
--
-- 0.3.0: a run may end `ambiguous`: the candidates split and neither the verifier nor the duels
-- decided between the two leading readings; the chosen SQL stands, and the `chosen` step says
-- how the other reading differs. The rest is in the library ($libdir/nl2sql): more checks
-- (check:columns, check:attributes, check:literal) and their mechanical fixes.
-- The upgrade test (extension/tests/upgrade) checks that an upgraded catalog equals a fresh
-- install of 0.3.0.
\echo Use "ALTER EXTENSION nl2sql UPDATE" to load this file. \quit

ALTER TABLE nl2sql.runs DROP CONSTRAINT runs_status_check;
ALTER TABLE nl2sql.runs ADD CONSTRAINT runs_status_check
    CHECK (status IN ('running', 'ok', 'unverified', 'ambiguous', 'error'));
