-- Teaching nl2sql a database: verified question/SQL pairs (nl2sql_teach, nl2sql_examples,
-- nl2sql_forget) and a glossary of business terms (nl2sql_define, nl2sql_glossary,
-- nl2sql_undefine). Every generation is shown the terms its question mentions and, with nl2sql.examples
-- (or the option) above its default 0, the nearest examples, only those over tables the caller may
-- SELECT. On the sample bookshop.
SET client_min_messages = warning;
CREATE DATABASE nl2sql_learn;
\c nl2sql_learn
SET client_min_messages = warning;
CREATE EXTENSION nl2sql CASCADE;
\getenv abs_srcdir PG_ABS_SRCDIR
\set bookshop :abs_srcdir '/../../../sample/bookshop.sql'
\set ECHO none
\i :bookshop
\set ECHO all
SET client_min_messages = warning;
CREATE FUNCTION show_error(statement text)
RETURNS TABLE(sqlstate text, message text, hint text) LANGUAGE plpgsql AS $$
DECLARE
    state text; msg text; hnt text;
BEGIN
    EXECUTE statement;
    RETURN QUERY SELECT '00000'::text, 'no error'::text, NULL::text;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, hnt = PG_EXCEPTION_HINT;
    RETURN QUERY SELECT state, msg, NULLIF(hnt, '');
END $$;

-- teaching a pair: the SQL is checked (one read-only query, planned, run as the caller) and stored
-- in its normal form, with what it reads and how many rows it returned
SELECT nl2sql_teach('How many books did each author write?',
    'select a.name, count(*) from authors a join books b on b.author_id = a.author_id group by a.name') - 'example_id' AS taught;
SELECT nl2sql_teach('Which customers live in Paris?', 'SELECT name FROM customers WHERE city = ''Paris''') - 'example_id' AS taught;
-- a pair whose SQL does not run, writes, or reads no table is refused with the reason; nothing is stored
SELECT * FROM show_error($$SELECT nl2sql_teach('How many pages in all?', 'SELECT sum(page_count) FROM books')$$);
SELECT * FROM show_error($$SELECT nl2sql_teach('Remove the old orders', 'DELETE FROM orders')$$);
SELECT * FROM show_error($$SELECT nl2sql_teach('What is one plus one?', 'SELECT 1 + 1')$$);
SELECT question, sql, run_id IS NULL AS taught_directly, added_by = current_user AS added_by_me FROM nl2sql_examples() ORDER BY example_id;

-- the glossary: a term, its meaning, and the SQL expression it stands for when it is one
SELECT nl2sql_define('Long Book', 'a book of more than 400 pages', 'books.pages > 400');
SELECT nl2sql_define('bestseller', 'a book ordered more than 3 times');
SELECT * FROM show_error($$SELECT nl2sql_define('payroll', 'the salaries paid', 'sum(employees.salary)')$$);
SELECT * FROM show_error($$SELECT nl2sql_define('trick', 'not an expression', '1; DROP TABLE books')$$);
SELECT term, meaning, sql FROM nl2sql_glossary() ORDER BY term;

-- a question is shown the examples that ask nearly the same (cosine distance of the questions with schema
-- words masked at most 0.2) and the terms it mentions (the `taught` step); the model's SQL is not shown
-- (a small model's output is not an expected output)
\set fast '{"generators": ["direct"], "probe": false, "verify": false, "confirm": false, "refuse": false, "examples": 3}'
SELECT stage, status, detail FROM nl2sql_run('How many long books did each author write?', NULL, :'fast') WHERE stage = 'taught';
-- with no example shown (examples 0, the default), the glossary terms the question names still are
SELECT stage, status, detail FROM nl2sql_run('How many long books did each author write?', NULL, :'fast'::jsonb || '{"examples": 0}') WHERE stage = 'taught';

-- a reader who may SELECT customers only: no example or term over books is listed or shown to them,
-- and only a curator (UPDATE on nl2sql.experts) may teach
CREATE ROLE nl2sql_learn_reader NOLOGIN;
GRANT SELECT ON customers TO nl2sql_learn_reader;
SET ROLE nl2sql_learn_reader;
SELECT question FROM nl2sql_examples();
SELECT term FROM nl2sql_glossary() ORDER BY term;
SELECT status, regexp_replace(detail, '#\d+', '#N') AS detail FROM nl2sql_run('How many books did each author write?', NULL, :'fast') WHERE stage = 'taught';
SELECT status, regexp_replace(detail, '#\d+', '#N') AS detail FROM nl2sql_run('Which customers are living in Paris?', NULL, :'fast') WHERE stage = 'taught';
SELECT * FROM show_error($$SELECT nl2sql_teach('How many customers?', 'SELECT count(*) FROM customers')$$);
SELECT * FROM show_error($$SELECT nl2sql_define('regular', 'a customer with two orders')$$);
RESET ROLE;

-- removing: an example by its id, a term by its name
SELECT nl2sql_forget(example_id) FROM nl2sql_examples() WHERE question = 'Which customers live in Paris?';
SELECT nl2sql_undefine('long book'), nl2sql_undefine('long book');
SELECT count(*) AS examples FROM nl2sql_examples();
SELECT term FROM nl2sql_glossary();

\c nl2sql_regress
SET client_min_messages = warning;
DROP DATABASE nl2sql_learn;
DROP ROLE nl2sql_learn_reader;
