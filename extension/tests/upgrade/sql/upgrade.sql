-- ALTER EXTENSION nl2sql UPDATE from the previous release keeps every row of nl2sql's tables and
-- ends with the same catalog as a fresh install of the new version.
SET client_min_messages = warning;

-- the catalog of an installed nl2sql, as text: every member object with its definition, grants
-- and comment (what a fresh install and an upgraded one must agree on)
CREATE TEMP VIEW nl2sql_catalog AS
WITH members AS (
    SELECT classid, objid, objsubid FROM pg_depend
    WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
      AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'nl2sql')
)
SELECT pg_describe_object(m.classid, m.objid, m.objsubid) || ': ' || coalesce(
    CASE m.classid
        WHEN 'pg_proc'::regclass THEN (SELECT pg_get_function_arguments(p.oid) || ' -> ' || pg_get_function_result(p.oid)
            || ' ' || p.provolatile::text || p.proisstrict::text || p.prosecdef::text || ' ' || md5(p.prosrc) || ' ' || coalesce(p.proacl::text, '')
            FROM pg_proc p WHERE p.oid = m.objid)
        WHEN 'pg_class'::regclass THEN (SELECT c.relkind::text || ' ' || coalesce(c.relacl::text, '') || ' ' || c.relrowsecurity::text || ' '
            || coalesce(pg_get_viewdef(c.oid), '') || ' ' || coalesce((SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
                || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END || coalesce(' default ' || pg_get_expr(ad.adbin, ad.adrelid), '')
                || CASE WHEN a.attidentity <> '' THEN ' identity ' || a.attidentity::text ELSE '' END, ', ' ORDER BY a.attnum)
                FROM pg_attribute a LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
                WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '')
            || ' ' || coalesce((SELECT string_agg(conname || ' ' || pg_get_constraintdef(oid), '; ' ORDER BY conname) FROM pg_constraint WHERE conrelid = c.oid), '')
            || ' ' || coalesce((SELECT string_agg(pg_get_indexdef(indexrelid), '; ' ORDER BY 1) FROM pg_index WHERE indrelid = c.oid), '')
            || ' ' || coalesce((SELECT string_agg(polname || ' ' || polcmd::text || ' ' || coalesce(pg_get_expr(polqual, polrelid), ''), '; ' ORDER BY polname)
                FROM pg_policy WHERE polrelid = c.oid), '')
            FROM pg_class c WHERE c.oid = m.objid)
        WHEN 'pg_namespace'::regclass THEN (SELECT coalesce(nspacl::text, '') FROM pg_namespace WHERE oid = m.objid)
        ELSE ''
    END, '') || coalesce(' -- ' || obj_description(m.objid, (SELECT relname FROM pg_class WHERE oid = m.classid)), '') AS line
FROM members m;

-- the previous release, with some history
CREATE EXTENSION nl2sql VERSION '0.1.0' CASCADE;
SELECT extversion FROM pg_extension WHERE extname = 'nl2sql';
CREATE TABLE items (id int PRIMARY KEY, label text);
INSERT INTO items VALUES (1, 'one'), (2, 'two'), (3, 'three');
SELECT count(*) AS candidates FROM nl2sql_select('How many items are there?',
    ARRAY['SELECT count(*) FROM items', 'SELECT count(id) FROM items', 'SELECT 2'], NULL,
    '{"adjudicate": false, "experts": ["upgrade:a", "upgrade:b", "upgrade:c"]}');
SELECT (nl2sql_feedback(max(run_id), 'SELECT count(*) FROM items')) ? 'experts' AS feedback_recorded FROM nl2sql.runs;
INSERT INTO nl2sql.value_index (table_schema, table_name, column_name, value, embedding, model)
SELECT 'public', 'items', 'label', label, array_fill(0.1::real, ARRAY[384])::vector, 'all-minilm-l6-v2' FROM items;
CREATE TEMP TABLE kept AS
SELECT 'runs' AS t, count(*) AS n FROM nl2sql.runs UNION ALL
SELECT 'steps', count(*) FROM nl2sql.steps UNION ALL
SELECT 'experts', count(*) FROM nl2sql.experts UNION ALL
SELECT 'feedback', count(*) FROM nl2sql.feedback UNION ALL
SELECT 'examples', count(*) FROM nl2sql.examples UNION ALL
SELECT 'value_index', count(*) FROM nl2sql.value_index;
SELECT * FROM kept ORDER BY t;

-- the upgrade
ALTER EXTENSION nl2sql UPDATE;
SELECT extversion = (SELECT default_version FROM pg_available_extensions WHERE name = 'nl2sql') AS at_default_version
FROM pg_extension WHERE extname = 'nl2sql';
SELECT k.t, k.n AS before, now.n AS after
FROM kept k JOIN (
    SELECT 'runs' AS t, count(*) AS n FROM nl2sql.runs UNION ALL
    SELECT 'steps', count(*) FROM nl2sql.steps UNION ALL
    SELECT 'experts', count(*) FROM nl2sql.experts UNION ALL
    SELECT 'feedback', count(*) FROM nl2sql.feedback UNION ALL
    SELECT 'examples', count(*) FROM nl2sql.examples UNION ALL
    SELECT 'value_index', count(*) FROM nl2sql.value_index) AS now USING (t)
ORDER BY k.t;
-- the upgraded extension works: a new run, and the experts' record goes on
SELECT count(*) AS candidates FROM nl2sql_select('How many items are there?',
    ARRAY['SELECT count(*) FROM items', 'SELECT 2'], NULL, '{"adjudicate": false}');
SELECT md5(string_agg(line, E'\n' ORDER BY line)) AS upgraded FROM nl2sql_catalog \gset

-- a fresh install of the new version (the data was checked above)
DROP EXTENSION nl2sql;
CREATE EXTENSION nl2sql;
SELECT extversion = (SELECT default_version FROM pg_available_extensions WHERE name = 'nl2sql') AS at_default_version
FROM pg_extension WHERE extname = 'nl2sql';
SELECT md5(string_agg(line, E'\n' ORDER BY line)) = :'upgraded' AS same_catalog_as_upgraded,
       count(*) AS members_compared
FROM nl2sql_catalog;
