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
-- a value the column holds in no form: judged only when the data says what was meant (a stored
-- value like it, another column holding it); an absent value with neither is no finding
SELECT * FROM nl2sql_verify('Which customers live in Pariss?',
                            'SELECT name FROM customers WHERE city = ''Pariss''');
SELECT requirement, message FROM nl2sql_verify('Which customers live in Chloé?',
                            'SELECT name FROM customers WHERE city = ''Chloé''') WHERE NOT satisfied;
SELECT requirement, message FROM nl2sql_verify('Which customers live in Oslo?',
                            'SELECT name FROM customers WHERE city = ''Oslo''') WHERE NOT satisfied;
-- excluding a value the column never holds excludes nothing; a pattern nothing matches
SELECT requirement, message FROM nl2sql_verify('Which customers do not live in Pariss?',
                            'SELECT name FROM customers WHERE city <> ''Pariss''') WHERE NOT satisfied;
SELECT requirement, message FROM nl2sql_verify('Which customers have a name with Zed in it?',
                            'SELECT name FROM customers WHERE name ILIKE ''%Zed%''') WHERE NOT satisfied;
-- the other columns searched are the caller's: a column the reader may not read is never named
BEGIN;
CREATE TABLE customer_notes (customer_id int REFERENCES customers, note text);
INSERT INTO customer_notes VALUES (1, 'owes us a favour');
SELECT requirement, message FROM nl2sql_verify('Which customers live in owes us a favour?',
    'SELECT name FROM customers WHERE city = ''owes us a favour''') WHERE NOT satisfied;
SET ROLE nl2sql_regress_reader;
SELECT requirement, message FROM nl2sql_verify('Which customers live in owes us a favour?',
    'SELECT name FROM customers WHERE city = ''owes us a favour''') WHERE NOT satisfied;
RESET ROLE;
ROLLBACK;

-- a pattern that widens the value the question names to others the column holds; a question that
-- asks for part of a value means its pattern
BEGIN;
INSERT INTO customers VALUES (5, 'Eve', 'Paris-Plage', NULL, NULL);
SELECT requirement, message FROM nl2sql_verify('How many customers live in Paris?',
    'SELECT count(*) FROM customers WHERE city ILIKE ''%paris%''') WHERE NOT satisfied;
SELECT requirement, message FROM nl2sql_verify('How many customers live in a city whose name contains Paris?',
    'SELECT count(*) FROM customers WHERE city ILIKE ''%paris%''') WHERE NOT satisfied;
ROLLBACK;

-- "do not" answered by <> on a table with a row per pair: rows are excluded, not customers
BEGIN;
CREATE TABLE customer_tags (customer_id int REFERENCES customers, tag text, PRIMARY KEY (customer_id, tag));
INSERT INTO customer_tags VALUES (1, 'vip'), (1, 'late'), (2, 'late');
SELECT requirement, message FROM nl2sql_verify('Which customers do not have the tag vip?',
    'SELECT customer_id FROM customer_tags WHERE tag <> ''vip''') WHERE NOT satisfied;
SELECT requirement, message FROM nl2sql_verify('Which customers do not have the tag vip?',
    'SELECT customer_id FROM customers WHERE customer_id NOT IN (SELECT customer_id FROM customer_tags WHERE tag = ''vip'')') WHERE NOT satisfied;
ROLLBACK;

-- a table joined in that the answer takes nothing from: orders drops Chloé (no order) and repeats
-- Ada (two orders); named by the question, or under a count, the join is not judged
SELECT requirement, message FROM nl2sql_verify('List the names of all customers in Paris.',
    'SELECT c.name FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id WHERE c.city = ''Paris''') WHERE NOT satisfied;
SELECT requirement, message FROM nl2sql_verify('List the names of customers in Paris who placed orders.',
    'SELECT c.name FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id WHERE c.city = ''Paris''') WHERE NOT satisfied;
SELECT requirement, message FROM nl2sql_verify('How many purchases did each customer make?',
    'SELECT c.name, count(*) FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id GROUP BY c.name') WHERE NOT satisfied;

-- "both" answered by IN: Ada has both tags, Bruno one; the intersection is the answer. Cities are
-- one per customer, so nobody lives in both: there the question means either, and IN stands
BEGIN;
CREATE TABLE customer_tags (customer_id int REFERENCES customers, tag text, PRIMARY KEY (customer_id, tag));
INSERT INTO customer_tags VALUES (1, 'vip'), (1, 'late'), (2, 'late');
SELECT requirement, message FROM nl2sql_verify('Which customers have both the tags vip and late?',
    'SELECT customer_id FROM customer_tags WHERE tag IN (''vip'', ''late'')') WHERE NOT satisfied;
SELECT requirement, message FROM nl2sql_verify('Which customers have both the tags vip and late?',
    'SELECT customer_id FROM customer_tags WHERE tag = ''vip'' INTERSECT SELECT customer_id FROM customer_tags WHERE tag = ''late''') WHERE NOT satisfied;
SELECT requirement, message FROM nl2sql_verify('List the customers of both Paris and Lyon.',
    'SELECT name FROM customers WHERE city IN (''Paris'', ''Lyon'')') WHERE NOT satisfied;
ROLLBACK;

-- one column of one row asked for two values: no row can meet it
SELECT requirement, message FROM nl2sql_verify('How many customers live in both Paris and Lyon?',
    'SELECT count(*) FROM customers WHERE city = ''Paris'' AND city = ''Lyon''') WHERE NOT satisfied;

-- aggregates that compute nothing: keys added up; a count over customers grouped by their key,
-- one row per group (what each customer placed is in orders, which the finding names); counted
-- over the join, the groups hold the orders and nothing is found
SELECT requirement, message FROM nl2sql_verify('How many orders are there in total?',
    'SELECT sum(order_id) FROM orders') WHERE NOT satisfied;
SELECT requirement, message FROM nl2sql_verify('Which customer placed the most orders?',
    'SELECT name FROM customers GROUP BY customer_id ORDER BY count(*) DESC LIMIT 1') WHERE NOT satisfied;
SELECT requirement, message FROM nl2sql_verify('Which customer placed the most orders?',
    'SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.customer_id ORDER BY count(*) DESC LIMIT 1') WHERE NOT satisfied;

-- columns the question does not ask for (the ranking key; an identifier beside the name), and
-- fewer columns than the question enumerates
SELECT * FROM nl2sql_verify('Which customer has the highest credit?',
    'SELECT customer_id, name, credit FROM customers ORDER BY credit DESC NULLS LAST LIMIT 1');
SELECT * FROM nl2sql_verify('What are the name and city of each customer?', 'SELECT name FROM customers');
-- the names of a table's things asked, another of its columns returned
SELECT requirement, message FROM nl2sql_verify('What are the names of all customers in Paris?',
    'SELECT city FROM customers WHERE city = ''Paris''') WHERE NOT satisfied;

-- "different" with no DISTINCT is settled on the data, as the caller: the query's rows against its
-- duplicate-free rewrite. An ordered list compares without its ORDER BY (DISTINCT cannot sort by a
-- column it does not return): Paris comes twice, the names never do
SELECT requirement, satisfied, message FROM nl2sql_verify('List the different cities of the customers, by credit.',
    'SELECT city FROM customers ORDER BY credit DESC') WHERE requirement = 'distinct';
SELECT requirement, satisfied, message FROM nl2sql_verify('List the different names of the customers, by credit.',
    'SELECT name FROM customers ORDER BY credit DESC') WHERE requirement = 'distinct';
-- a count of the rows of the table the word after "different" names counts different rows; the
-- rows of customers are no cities, whatever the data
SELECT requirement, satisfied, message FROM nl2sql_verify('How many different customers are there?',
    'SELECT count(*) FROM customers') WHERE requirement = 'distinct';
SELECT requirement, satisfied, message FROM nl2sql_verify('How many different cities are there?',
    'SELECT count(*) FROM customers') WHERE requirement = 'distinct';

-- SQL the executor would refuse gets a check:gate row with the SQLSTATE it would give
SELECT * FROM nl2sql_verify('How many orders?', 'DELETE FROM orders');
-- SQL that does not parse is an error
SELECT * FROM show_error($$SELECT * FROM nl2sql_verify('How many orders?', 'SELEC 1')$$);
SELECT * FROM show_error($$SELECT * FROM nl2sql_verify(NULL, 'SELECT 1')$$);
SELECT * FROM show_error($$SELECT * FROM nl2sql_verify('How many orders?', NULL)$$);

-- a question with a non-breaking space (U+00A0) inside a number phrase: once a panic (XX000)
SELECT requirement, satisfied FROM nl2sql_verify(U&'Which customers placed more than 1\00A0order?',
    'SELECT c.name FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id GROUP BY c.name HAVING count(*) > 1');
SELECT requirement, satisfied FROM nl2sql_verify(U&'Which customers placed more than 5\00A0orders?', 'SELECT name FROM customers');

-- a question in German: no rule that reads English words (or their absence) finds anything in a
-- LIMIT or a join it cannot read ("die drei" is a count it does not know)
SELECT * FROM nl2sql_verify('Welche drei Kunden haben die höchsten Bestellbeträge?',
    'SELECT c.name FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id ORDER BY o.amount DESC LIMIT 3');
SELECT * FROM nl2sql_fix('Welche drei Kunden haben die höchsten Bestellbeträge?',
    'SELECT c.name FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id ORDER BY o.amount DESC LIMIT 3');

-- nl2sql_fix: the mechanical fixes of one SQL for one question, each verified as the caller; a
-- fix is kept only if it runs with fewer problems
-- a column on the wrong alias, moved to the one table that has it
SELECT step, stage, fix, kept, sql FROM nl2sql_fix('How many orders did customers from Paris place?',
    'SELECT count(c.order_id) FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id WHERE c.city = ''Paris''');
-- a column on the wrong alias inside the join: moving it would make o.order_id = o.order_id, a
-- self-comparison that joins nothing, so no fix is proposed and the query stays as it fails
SELECT step, stage, fix, kept, sql FROM nl2sql_fix('Which customers placed orders?',
    'SELECT c.name FROM customers AS c JOIN orders AS o ON c.order_id = o.order_id');
-- a LIMIT nobody asked for, dropped
SELECT step, stage, fix, kept, sql FROM nl2sql_fix('Which customers live in Paris?',
    'SELECT name FROM customers WHERE city = ''Paris'' LIMIT 5');
-- DISTINCT ordered by another column, as the grouping it means
SELECT step, stage, fix, kept, sql FROM nl2sql_fix('Which cities have the customers with the most credit?',
    'SELECT DISTINCT city FROM customers ORDER BY credit DESC LIMIT 2');
-- a ranking by an aggregate with no GROUP BY, which PostgreSQL refuses, grouped by what it selects
SELECT step, stage, fix, kept, sql FROM nl2sql_fix('Which customer placed the most orders?',
    'SELECT c.name FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id ORDER BY count(*) DESC LIMIT 1');
-- a column orders lacks, read from the one table its foreign key leads to (customers): joined on
-- that key, which repeats no order
SELECT step, stage, fix, kept, sql FROM nl2sql_fix('How many orders did customers from Paris place?',
    'SELECT count(*) FROM orders WHERE city = ''Paris''');
-- customers has no key to orders: a column of orders is not guessed from customers' side
SELECT step, stage, fix, kept, sql FROM nl2sql_fix('What did customers from Paris spend?',
    'SELECT sum(amount) FROM customers WHERE city = ''Paris''');
-- a join on a column customers lacks: joined on the foreign key between the two tables instead
SELECT step, stage, fix, kept, sql FROM nl2sql_fix('What did customers from Paris spend?',
    'SELECT sum(o.amount) FROM customers AS c JOIN orders AS o ON c.order_id = o.customer_id WHERE c.city = ''Paris''');
-- a column both tables have, which the join makes equal: PostgreSQL calls it ambiguous; read from the first
SELECT step, stage, fix, kept, sql FROM nl2sql_fix('How many orders did each customer place?',
    'SELECT customer_id, count(*) FROM customers AS c JOIN orders AS o ON c.customer_id = o.customer_id GROUP BY customer_id');
-- two wrong names, one error at a time: PostgreSQL reports the join's column first, so the alias fix alone
-- fails as the query did and is dropped; the join fix alone fails on the other name, so it is a step, and
-- the alias fix on top of it is kept
SELECT step, stage, fix, kept, sql FROM nl2sql_fix('Which customers placed orders over 40?',
    'SELECT DISTINCT o.name FROM customers AS c JOIN orders AS o ON c.order_id = o.customer_id WHERE o.amount > 40');
-- nothing to fix: one row, the query itself
SELECT step, stage, fix, kept, sql FROM nl2sql_fix('How many customers are there?', 'SELECT count(*) FROM customers');
SELECT * FROM show_error($$SELECT * FROM nl2sql_fix('How many orders?', 'SELEC 1')$$);
