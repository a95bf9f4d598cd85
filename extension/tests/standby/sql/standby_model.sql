-- nl2sql on a hot standby with the model: questions are answered, the audit goes to the server
-- log (run_id is NULL: there is no nl2sql.runs row to point at).
SET client_min_messages = warning;
SELECT nl2sql('How many customers are there?') IS NOT NULL AS answered;
SELECT count(*) > 0 AS steps, count(run_id) AS run_ids, bool_or(stage = 'chosen') AS chosen
FROM nl2sql_run('How many orders are there?');
SELECT count(*) > 0 AS rows FROM nl2sql_execute('How many orders are there?');
