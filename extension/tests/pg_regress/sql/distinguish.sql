-- nl2sql_distinguish: the smallest instance, cut from the real rows, on which two queries differ.
-- No model is involved; a DBA uses it to see why two queries are not the same.
SET client_min_messages = warning;

-- "> 12.5" and ">= 12.5" differ on the one order of exactly 12.50
SELECT d -> 'differ' AS differ, d -> 'found' AS found,
       d -> 'instance' AS instance,
       d -> 'answer_a' -> 'rows' AS answer_a, d -> 'answer_b' -> 'rows' AS answer_b
FROM nl2sql_distinguish('SELECT count(*) FROM orders WHERE amount > 12.5',
                        'SELECT count(*) FROM orders WHERE amount >= 12.5') AS d;

-- a join and its DISTINCT twin agree as sets; compared as bags (the default, as execution
-- accuracy compares results), one customer with two orders separates them, and the instance keeps
-- the rows the foreign key needs
SELECT d -> 'differ' AS differ, d ->> 'reason' AS reason
FROM nl2sql_distinguish('SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.customer_id',
                        'SELECT DISTINCT c.name FROM customers c JOIN orders o ON o.customer_id = c.customer_id',
                        '{"compare": "set"}') AS d;
SELECT d -> 'differ' AS differ, d -> 'found' AS found,
       d -> 'instance' -> 'row_count' AS instance_rows,
       (SELECT jsonb_agg(t -> 'table' ORDER BY t ->> 'table') FROM jsonb_array_elements(d -> 'instance' -> 'tables') AS t) AS tables,
       d -> 'answer_a' -> 'row_count' AS rows_a, d -> 'answer_b' -> 'row_count' AS rows_b
FROM nl2sql_distinguish('SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.customer_id',
                        'SELECT DISTINCT c.name FROM customers c JOIN orders o ON o.customer_id = c.customer_id',
                        '{"compare": "bag"}') AS d;

-- the same data, the same answer
SELECT d -> 'differ' AS differ, d ->> 'reason' AS reason
FROM nl2sql_distinguish($$SELECT name FROM customers WHERE city = 'Paris'$$,
                        $$SELECT name FROM customers WHERE city IN ('Paris')$$) AS d;

-- the instance is cut from what the caller may read. The reader may SELECT only some columns of
-- customers: rows are cut whole (by ctid), so no instance, and the error says why; a query over
-- anything not granted is an error too, never a leak
SET ROLE nl2sql_regress_reader;
SELECT * FROM show_error($$SELECT nl2sql_distinguish('SELECT name FROM customers WHERE city = ''Paris''',
                                                      'SELECT name FROM customers WHERE city LIKE ''P%'' AND name < ''B''')$$);
SELECT * FROM show_error($$SELECT nl2sql_distinguish('SELECT count(*) FROM orders', 'SELECT count(*) FROM customers')$$);
SELECT * FROM show_error($$SELECT nl2sql_distinguish('SELECT name FROM customers ORDER BY credit', 'SELECT name FROM customers')$$);
RESET ROLE;

-- refused and failing queries, bad options
SELECT * FROM show_error($$SELECT nl2sql_distinguish('DELETE FROM orders', 'SELECT 1')$$);
SELECT * FROM show_error($$SELECT nl2sql_distinguish('SELECT 1', 'SELECT 1 / 0')$$);
SELECT * FROM show_error($$SELECT nl2sql_distinguish('SELECT 1', 'SELECT 2', '{"compare": "list"}')$$);
SELECT * FROM show_error($$SELECT nl2sql_distinguish('SELECT 1', 'SELECT 2', '{"no_such_option": 1}')$$);
SELECT * FROM show_error($$SELECT nl2sql_distinguish(NULL, 'SELECT 2')$$);

-- nothing is left behind: no temp schema, no table
SELECT count(*) AS temp_tables FROM pg_class WHERE relpersistence = 't';
