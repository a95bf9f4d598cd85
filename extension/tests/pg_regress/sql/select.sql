-- nl2sql_select without the model: candidates run through the safe executor, are clustered by
-- their results, and the largest cluster (or the heaviest, with experts) is chosen.
SET client_min_messages = warning;

-- three readings of "Which customer placed the most orders?"; two agree, one is refused
SELECT candidate, status, cluster, cluster_size, round(confidence::numeric, 2) AS confidence, chosen, reason
FROM nl2sql_select('Which customer placed the most orders?', ARRAY[
    'SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.name ORDER BY count(*) DESC, c.name LIMIT 1',
    'SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.customer_id, c.name ORDER BY count(*) DESC, c.name LIMIT 1',
    'SELECT c.name FROM customers c ORDER BY c.credit DESC NULLS LAST LIMIT 1',
    'DELETE FROM orders'], NULL, '{"adjudicate": false}');

-- set or bag: the same names with and without duplicates are one cluster as sets, two as bags
SELECT candidate, cluster, chosen
FROM nl2sql_select('Which customers placed an order?', ARRAY[
    'SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.customer_id',
    'SELECT DISTINCT c.name FROM customers c JOIN orders o ON o.customer_id = c.customer_id'], NULL,
    '{"adjudicate": false, "compare": "set"}');
SELECT candidate, cluster, chosen
FROM nl2sql_select('Which customers placed an order?', ARRAY[
    'SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.customer_id',
    'SELECT DISTINCT c.name FROM customers c JOIN orders o ON o.customer_id = c.customer_id'], NULL,
    '{"adjudicate": false, "compare": "bag"}');

-- experts: a cluster's confidence is its experts' weight over the weight of all that ran
-- (every expert starts at weight 1; nl2sql_feedback moves them)
SELECT candidate, cluster, round(confidence::numeric, 2) AS confidence, chosen
FROM nl2sql_select('How many customers live in Paris?', ARRAY[
    $$SELECT count(*) FROM customers WHERE city = 'Paris'$$,
    $$SELECT count(*) FROM customers WHERE city = 'paris'$$,
    $$SELECT count(*) FROM customers WHERE city ILIKE 'paris'$$], NULL,
    '{"adjudicate": false, "experts": ["regress:a", "regress:b", "regress:c"]}');

-- two readings, one candidate each, and no model to judge: the first stands, the run's status is
-- `ambiguous`, and the other reading's row says on which rows the two differ
SELECT candidate, chosen, reason
FROM nl2sql_select('Which customers live in Paris?', ARRAY[
    $$SELECT name FROM customers WHERE city = 'Paris'$$,
    $$SELECT name FROM customers WHERE city = 'Paris' AND credit > 300$$], NULL, '{"adjudicate": false}');

-- every call is in the audit log, with its stages
SELECT r.function, r.status, array_agg(s.stage ORDER BY s.step) AS stages
FROM nl2sql.runs r JOIN nl2sql.steps s USING (run_id)
WHERE r.function = 'nl2sql_select'
GROUP BY r.run_id, r.function, r.status ORDER BY r.run_id;

-- bad arguments
SELECT * FROM show_error($$SELECT * FROM nl2sql_select('q', ARRAY[]::text[], NULL, '{"adjudicate": false}')$$);
SELECT * FROM show_error($$SELECT * FROM nl2sql_select('q', NULL, NULL, '{}')$$);
SELECT * FROM show_error($$SELECT * FROM nl2sql_select('q', ARRAY['SELECT 1'], NULL, '{"top_clusters": 1}')$$);
SELECT * FROM show_error($$SELECT * FROM nl2sql_select('q', ARRAY['SELECT 1'], NULL, '{"experts": ["x", "y"]}')$$);
SELECT * FROM show_error($$SELECT * FROM nl2sql_select('q', ARRAY['SELECT 1'], NULL, '[1, 2]')$$);
