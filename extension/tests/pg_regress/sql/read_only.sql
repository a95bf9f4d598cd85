-- In a read-only transaction (what a hot standby gives every session, and what some BI tools ask
-- for), nothing is written: separating instances are read without temp tables, and the audit
-- goes to the server log. The hot-standby suite (extension/tests/standby) runs the same on a
-- real standby.
SET client_min_messages = warning;
SELECT count(*) AS runs_before FROM nl2sql.runs \gset
BEGIN READ ONLY;
SELECT d -> 'differ' AS differ, d -> 'found' AS found, d -> 'instance' AS instance,
       d -> 'answer_a' -> 'rows' AS answer_a, d -> 'answer_b' -> 'rows' AS answer_b
FROM nl2sql_distinguish('SELECT count(*) FROM orders WHERE amount > 12.5',
                        'SELECT count(*) FROM orders WHERE amount >= 12.5') AS d;
SELECT candidate, cluster, chosen
FROM nl2sql_select('Which customer has the most credit?', ARRAY[
    'SELECT name FROM customers ORDER BY credit DESC NULLS LAST LIMIT 1',
    'SELECT name FROM customers WHERE credit = (SELECT max(credit) FROM customers)',
    'SELECT name FROM customers ORDER BY credit DESC LIMIT 1'], NULL, '{"adjudicate": false}');
COMMIT;
SELECT count(*) - :runs_before AS runs_written FROM nl2sql.runs;
