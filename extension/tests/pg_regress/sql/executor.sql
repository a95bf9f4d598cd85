-- nl2sql_try: the safe executor. One read-only query, bounded in rows and time, run under the
-- caller's privileges; a query it refuses or that fails is an answer ("ok": false), not an error.
SET client_min_messages = warning;

-- a query that runs: typed columns, rows as JSON values, the truncation and its cause
SELECT r - 'elapsed_ms' AS result
FROM nl2sql_try('SELECT city, count(*) AS customers FROM customers GROUP BY city ORDER BY 2 DESC, 1', 2) AS r;

-- values keep their type: numeric digits, dates in ISO, NULL as null
SELECT r -> 'rows' AS rows
FROM nl2sql_try('SELECT name, birth_date, credit FROM customers ORDER BY customer_id') AS r;

-- refused before it runs, with the SQLSTATE and hint a client would get
SELECT r ->> 'sqlstate' AS sqlstate, r ->> 'error' AS error, r ->> 'hint' AS hint
FROM (VALUES
    ('DELETE FROM orders'),
    ('UPDATE customers SET credit = 0'),
    ('SELECT 1; SELECT 2'),
    ('CREATE TABLE t (a int)'),
    ('SELECT * INTO copy_of_orders FROM orders'),
    ('WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d'),
    ('SELECT * FROM orders FOR UPDATE'),
    ('SELEC 1'),
    ('')
) AS q(statement), nl2sql_try(statement) AS r;

-- a function that writes cannot sneak in: the query runs read-only
CREATE SEQUENCE regress_seq;
SELECT r ->> 'sqlstate' AS sqlstate, r ->> 'error' AS error
FROM nl2sql_try($$SELECT nextval('regress_seq')$$) AS r;
SELECT last_value FROM regress_seq;
DROP SEQUENCE regress_seq;
CREATE FUNCTION regress_forget_orders() RETURNS bigint LANGUAGE sql AS 'DELETE FROM orders RETURNING 1';
SELECT r ->> 'sqlstate' AS sqlstate, r ->> 'error' AS error
FROM nl2sql_try('SELECT regress_forget_orders()') AS r;
SELECT count(*) AS orders_still_there FROM orders;
DROP FUNCTION regress_forget_orders();

-- a query that fails on the database: its own SQLSTATE and message
SELECT r ->> 'sqlstate' AS sqlstate, r ->> 'error' AS error
FROM nl2sql_try('SELECT 1 / 0') AS r;
SELECT r ->> 'sqlstate' AS sqlstate, r ->> 'error' AS error
FROM nl2sql_try('SELECT no_such_column FROM customers') AS r;

-- bounded in time: nl2sql.statement_timeout ends a slow query
SET nl2sql.statement_timeout = '50ms';
SELECT r ->> 'ok' AS ok, r ->> 'timed_out' AS timed_out, r ->> 'sqlstate' AS sqlstate
FROM nl2sql_try('SELECT pg_sleep(1)') AS r;
RESET nl2sql.statement_timeout;

-- the caller's own statement_timeout is not swallowed: the call ends with it. The server runs with
-- RUST_BACKTRACE=1 (scripts/regress.sh), and still no Rust backtrace reaches the client (no DETAIL)
SET statement_timeout = '300ms';
SELECT nl2sql_try('SELECT pg_sleep(5)');
RESET statement_timeout;

-- bounded in rows: max_rows
SELECT r -> 'row_count' AS row_count, r -> 'truncated' AS truncated, r -> 'truncated_by' AS truncated_by
FROM nl2sql_try('SELECT g FROM generate_series(1, 1000) AS g', 10) AS r;

-- under the caller's privileges: the reader sees customers' names, not their credit nor any order
SET ROLE nl2sql_regress_reader;
SELECT r -> 'rows' AS rows FROM nl2sql_try('SELECT name FROM customers WHERE city = ''Paris'' ORDER BY 1') AS r;
SELECT r ->> 'sqlstate' AS sqlstate, r ->> 'error' AS error FROM nl2sql_try('SELECT credit FROM customers') AS r;
SELECT r ->> 'sqlstate' AS sqlstate, r ->> 'error' AS error FROM nl2sql_try('SELECT count(*) FROM orders') AS r;
RESET ROLE;

-- bad arguments are errors
SELECT * FROM show_error($$SELECT nl2sql_try('SELECT 1', -1)$$);
SELECT * FROM show_error($$SELECT nl2sql_try(NULL)$$);
