-- nl2sql on a hot standby: the regression database streamed from its primary by pg_basebackup -R.
-- Everything that only reads works; the audit goes to the server log; separating instances are
-- read without temp tables; what must write says so.
SET client_min_messages = warning;
SELECT pg_is_in_recovery() AS standby;

-- the safe executor, the checklist, the schema
SELECT r - 'elapsed_ms' AS result FROM nl2sql_try('SELECT count(*) AS orders FROM orders') AS r;
SELECT * FROM nl2sql_verify('Who is the oldest customer?', 'SELECT name FROM customers ORDER BY birth_date DESC LIMIT 1');
SELECT t -> 'name' ->> 'name' AS relation FROM jsonb_array_elements(nl2sql_schema() -> 'tables') AS t ORDER BY 1;

-- the value index, built on the primary, replicated
SELECT table_name, column_name, value FROM nl2sql_search_values('Pariss', 1);

-- separating instances without temp tables: the same instance as on the primary
SELECT d -> 'differ' AS differ, d -> 'found' AS found, d -> 'instance' AS instance,
       d -> 'answer_a' -> 'rows' AS answer_a, d -> 'answer_b' -> 'rows' AS answer_b
FROM nl2sql_distinguish('SELECT count(*) FROM orders WHERE amount > 12.5',
                        'SELECT count(*) FROM orders WHERE amount >= 12.5') AS d;
SELECT d -> 'differ' AS differ, d -> 'found' AS found, d -> 'instance' -> 'row_count' AS instance_rows,
       d -> 'answer_a' -> 'row_count' AS rows_a, d -> 'answer_b' -> 'row_count' AS rows_b
FROM nl2sql_distinguish('SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.customer_id',
                        'SELECT DISTINCT c.name FROM customers c JOIN orders o ON o.customer_id = c.customer_id',
                        '{"compare": "bag"}') AS d;
-- a grouping that leans on the primary key cannot run on a CTE: no instance, and the reason
SELECT d -> 'differ' AS differ, d -> 'found' AS found, d ->> 'reason' AS reason
FROM nl2sql_distinguish('SELECT c.name, count(*) FROM customers c JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.customer_id',
                        'SELECT c.name, count(*) FROM customers c JOIN orders o ON o.customer_id = c.customer_id WHERE o.amount > 20 GROUP BY c.customer_id') AS d;

-- choosing without the model; the run is audited in the server log, and a NOTICE says so
SET client_min_messages = notice;
SELECT candidate, cluster, chosen, reason
FROM nl2sql_select('Which customer placed the most orders?', ARRAY[
    'SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.name ORDER BY count(*) DESC, c.name LIMIT 1',
    'SELECT c.name FROM customers c ORDER BY c.credit DESC NULLS LAST LIMIT 1',
    'SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.customer_id, c.name ORDER BY count(*) DESC, c.name LIMIT 1'],
    NULL, '{"adjudicate": false}');
SET client_min_messages = warning;

-- a DBA who wants no run without its audit row says so; then the call is refused
SET nl2sql.audit_read_only = error;
SELECT * FROM show_error($$SELECT * FROM nl2sql_select('q', ARRAY['SELECT 1'], NULL, '{"adjudicate": false}')$$);
RESET nl2sql.audit_read_only;

-- what must write says so
SELECT * FROM show_error($$SELECT nl2sql_index_values()$$);
SELECT * FROM show_error($$SELECT nl2sql_feedback(1, 'SELECT 1')$$);
