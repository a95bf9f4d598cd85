-- What scripts/demo.sh shows on the sample bookshop database.
\pset pager off
\echo '== the model servers nl2sql talks to'
SELECT jsonb_pretty(nl2sql_llm_status());

\echo '== the schema nl2sql sees for this user (tables, keys, row estimates)'
SELECT t->'name'->>'name' AS "table", jsonb_array_length(t->'columns') AS columns,
       t->'primary_key' AS primary_key, (t->>'row_estimate')::float8::int AS rows, t->>'comment' AS comment
FROM jsonb_array_elements(nl2sql_schema()->'tables') t;
SELECT format('%s(%s) -> %s(%s)', f->'from'->>'name', f->'from_columns'->>0, f->'to'->>'name', f->'to_columns'->>0)
       AS foreign_key
FROM jsonb_array_elements(nl2sql_schema()->'foreign_keys') f;

\echo '== the safe executor: a read-only query, bounded in rows'
SELECT r->'columns' AS columns, r->'rows' AS rows, r->'truncated_by' AS truncated_by
FROM nl2sql_try($$
    SELECT a.country, count(*) AS books, round(avg(b.price), 2) AS avg_price
    FROM books b JOIN authors a USING (author_id)
    GROUP BY a.country ORDER BY books DESC, a.country$$, 3) AS r;

\echo '== anything but a read-only query is refused, with a reason'
SELECT nl2sql_try('DELETE FROM orders')->>'error' AS refused,
       nl2sql_try('DELETE FROM orders')->>'hint' AS hint;

\echo '== a side effect hidden in a function is stopped by the engine (read-only subtransaction)'
CREATE OR REPLACE FUNCTION pg_temp.sneaky() RETURNS int LANGUAGE sql AS $$ UPDATE books SET price = 0 RETURNING 1 $$;
SELECT nl2sql_try('SELECT pg_temp.sneaky()') - 'elapsed_ms' AS result;
SELECT count(*) AS free_books FROM books WHERE price = 0;

\echo '== a query over the time limit is stopped and reported as such'
SET nl2sql.statement_timeout = '300ms';
SELECT nl2sql_try('SELECT pg_sleep(5)') - 'elapsed_ms' AS result;

RESET nl2sql.statement_timeout;

\echo '== the value index: values of text columns, embedded; what a question names'
SELECT table_name, column_name, status, coalesce(reason, '') AS reason, indexed_values, embedded FROM nl2sql_index_values();
SELECT table_name, column_name, value, round(score::numeric, 2) AS score, matched_by
FROM nl2sql_search_values('customers living in Pariss who read fantasy');

\echo '== asking in words: the explanation of each run (NOTICEs show the stages as they happen)'
SET client_min_messages = warning;
SELECT step, stage, status, left(detail, 90) AS detail, sql
FROM nl2sql_run('What are the titles of the 3 most expensive books?');
SELECT step, stage, status, left(detail, 90) AS detail, sql
FROM nl2sql_run('How many orders did customers from Paris place?');
SELECT step, stage, status, left(detail, 90) AS detail, sql
FROM nl2sql_run('Which authors from Nigeria have written books published after 2000?');

\echo '== a question the data cannot answer gets no SQL, and the reason'
SELECT step, stage, status, left(detail, 120) AS detail
FROM nl2sql_run('Which books will sell best next Christmas?') WHERE stage IN ('scope', 'chosen');
SELECT step, stage, status, left(detail, 160) AS detail
FROM nl2sql_run('What is the average customer satisfaction rating of each city?') WHERE stage IN ('scope', 'chosen');

\echo '== for a BI tool: the answer rows of a question'
SELECT * FROM nl2sql_execute('How many books are there in each genre?', NULL, '{"max_probes": 2}');

\echo '== for a DBA: the checklist of a query against a question, without a model'
SELECT * FROM nl2sql_verify('What are the top 3 customers by number of orders?',
                            'SELECT customer_id, count(*) FROM orders GROUP BY customer_id ORDER BY 2 DESC');

\echo '== why two queries differ: the smallest instance cut from the real rows'
SELECT jsonb_pretty(nl2sql_distinguish('SELECT count(*) FROM books WHERE price > 12',
                                       'SELECT count(*) FROM books WHERE price >= 12') - 'full_database');

\echo '== choosing among candidate SQL: clusters, and a duel on a separating instance judged by the model'
SELECT candidate, status, cluster, round(confidence::numeric, 2) AS confidence, wins, chosen, reason
FROM nl2sql_select('Which author wrote the most expensive book?', ARRAY[
  'SELECT a.name FROM authors a JOIN books b ON b.author_id = a.author_id ORDER BY b.price DESC LIMIT 1',
  'SELECT a.name FROM authors a JOIN books b ON b.author_id = a.author_id ORDER BY b.price ASC LIMIT 1',
  'SELECT a.name FROM authors a JOIN books b ON b.author_id = a.author_id ORDER BY b.price ASC LIMIT 1',
  'DELETE FROM books'], NULL, '{"select_gate": 0.9}');

\echo '== the audit log'
SELECT run_id, who, function, status, left(question, 50) AS question, llm_calls, prompt_tokens, completion_tokens,
       round(elapsed_ms) AS ms
FROM nl2sql.runs ORDER BY run_id;
