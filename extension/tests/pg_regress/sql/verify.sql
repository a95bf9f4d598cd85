-- nl2sql_verify: the checklist of one SQL for one question, with no model. Constraints come from the
-- question's words; the checks read the SQL's syntax tree, the catalog and (as the caller) the data.
SET client_min_messages = warning;

-- "top 3" asks for ORDER BY ... DESC and LIMIT 3
SELECT * FROM nl2sql_verify('Who are the top 3 customers by credit?',
                            'SELECT name FROM customers ORDER BY credit DESC');
SELECT * FROM nl2sql_verify('Who are the top 3 customers by credit?',
                            'SELECT name FROM customers ORDER BY credit DESC NULLS LAST LIMIT 3');

-- a column named credit_limit is no LIMIT: the checks read the syntax tree, never the text
SELECT requirement, satisfied FROM nl2sql_verify('How many customers are there?',
                            'SELECT count(*) FROM customers');

-- counting, with a count
SELECT * FROM nl2sql_verify('How many orders did Ada place?',
    'SELECT count(*) FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE c.name = ''Ada''');
-- and without one
SELECT * FROM nl2sql_verify('How many orders did Ada place?',
    'SELECT o.order_id FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE c.name = ''Ada''');

-- "oldest" on a birth date is the earliest date: the direction check reads the column's type
SELECT * FROM nl2sql_verify('Who is the oldest customer?',
                            'SELECT name FROM customers ORDER BY birth_date DESC LIMIT 1');
SELECT * FROM nl2sql_verify('Who is the oldest customer?',
                            'SELECT name FROM customers ORDER BY birth_date ASC LIMIT 1');

-- a column qualified with an alias whose table lacks it: PostgreSQL cannot plan it (check:plan)
SELECT * FROM nl2sql_verify('How many orders did customers from Paris place?',
    'SELECT count(T1.order_id) FROM customers AS T1 JOIN orders AS T2 ON T1.customer_id = T2.customer_id WHERE T1.city = ''Paris''');

-- a quoted value the question names must appear
SELECT * FROM nl2sql_verify('List the customers from "Lyon".',
                            'SELECT name FROM customers WHERE city = ''Paris''');

-- a value the column stores in another case: check:literal reads the stored values (as the caller)
SELECT * FROM nl2sql_verify('Which customers live in paris?',
                            'SELECT name FROM customers WHERE city = ''paris''');

-- columns the question does not ask for (the ranking key; an identifier beside the name), and
-- fewer columns than the question enumerates
SELECT * FROM nl2sql_verify('Which customer has the highest credit?',
    'SELECT customer_id, name, credit FROM customers ORDER BY credit DESC NULLS LAST LIMIT 1');
SELECT * FROM nl2sql_verify('What are the name and city of each customer?', 'SELECT name FROM customers');

-- SQL the executor would refuse gets a check:gate row with the SQLSTATE it would give
SELECT * FROM nl2sql_verify('How many orders?', 'DELETE FROM orders');
-- SQL that does not parse is an error
SELECT * FROM show_error($$SELECT * FROM nl2sql_verify('How many orders?', 'SELEC 1')$$);
SELECT * FROM show_error($$SELECT * FROM nl2sql_verify(NULL, 'SELECT 1')$$);
SELECT * FROM show_error($$SELECT * FROM nl2sql_verify('How many orders?', NULL)$$);
