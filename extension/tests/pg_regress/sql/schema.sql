-- nl2sql_schema: what the model is shown is what the caller may SELECT, no more.
SET client_min_messages = warning;

CREATE VIEW schema_shown AS
SELECT t -> 'name' ->> 'name' AS relation,
       (SELECT string_agg(c ->> 'name', ', ') FROM jsonb_array_elements(t -> 'columns') AS c) AS columns,
       t -> 'primary_key' AS primary_key
FROM jsonb_array_elements(nl2sql_schema() -> 'tables') AS t
WHERE t -> 'name' ->> 'name' <> 'schema_shown'
ORDER BY 1;
GRANT SELECT ON schema_shown TO nl2sql_regress_reader;

SELECT * FROM schema_shown;
SELECT jsonb_pretty(nl2sql_schema() -> 'foreign_keys') AS foreign_keys;

-- the reader: the granted columns of customers; orders is not there, nor any key to it
SET ROLE nl2sql_regress_reader;
SELECT * FROM schema_shown;
SELECT nl2sql_schema() -> 'foreign_keys' AS foreign_keys;
RESET ROLE;
DROP VIEW schema_shown;
