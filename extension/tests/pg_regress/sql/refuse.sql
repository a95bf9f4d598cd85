-- A question the database cannot answer gets no SQL: the run ends 'unanswerable' with the reason.
-- On the sample bookshop (authors, books, customers, orders, order_items), one question of each
-- kind. A question beyond what SQL over stored data gives (a prediction, a cause, advice) is
-- decided by the lexicon's patterns, without the chat model: its outcome is shown in full. The
-- other kinds are decided by evidence and a vote of the model: what is shown is the evidence (the
-- words that link to nothing in the schema), that the model was asked, and that the run ended as
-- the vote said (the vote of a small model is not an expected output).
SET client_min_messages = warning;
CREATE DATABASE nl2sql_bookshop;
\c nl2sql_bookshop
SET client_min_messages = warning;
CREATE EXTENSION nl2sql CASCADE;
\getenv abs_srcdir PG_ABS_SRCDIR
\set bookshop :abs_srcdir '/../../../sample/bookshop.sql'
\set ECHO none
\i :bookshop
\set ECHO all
SET client_min_messages = warning;
-- errors as rows, as in the regression database (setup.sql)
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

-- options that make every run stop early when it is answered: only the scope step matters here
\set fast '{"generators": ["direct"], "probe": false, "verify": false, "confirm": false}'

-- beyond the data: a prediction. nl2sql returns NULL (nothing for \gexec to run), with a WARNING
SET client_min_messages = error;
SELECT nl2sql('Which books will sell best next Christmas?') IS NULL AS no_sql;
SET client_min_messages = warning;
SELECT status, coalesce(chosen_sql, '') AS chosen_sql, function FROM nl2sql.runs ORDER BY run_id DESC LIMIT 1;

-- beyond the data: a cause. The explanation: the scope step gives the kind and the words; no SQL is written
SELECT stage, status, detail
FROM nl2sql_run('Why do customers in Paris order more books than customers in Oslo?')
WHERE stage IN ('scope', 'generate', 'chosen') ORDER BY step;

-- beyond the data: advice. nl2sql_execute raises 0A000 with a hint, never an empty result
SELECT sqlstate, regexp_replace(message, '\m\d+\M', 'N', 'g') AS message, hint
FROM show_error($$SELECT * FROM nl2sql_execute('Which author should we stop selling?')$$);

-- beyond the data: an opinion. "best" and the word after it name no column the bookshop stores
-- (the authors' table says they are writers: what is ranked, not by what)
SELECT stage, status, detail
FROM nl2sql_run('Which author is the best writer?')
WHERE stage IN ('scope', 'generate', 'chosen') ORDER BY step;

-- general knowledge, a fact of history: no column of the bookshop records who invented a thing
SELECT stage, status, detail
FROM nl2sql_run('Who invented the paperback?')
WHERE stage IN ('scope', 'generate', 'chosen') ORDER BY step;

-- the evidence and the vote of a run, by question. ended_as_voted: the run ended unanswerable
-- exactly when the vote said so, or, the vote having read the words as the schema's, when the
-- query the model then wrote confirmed the suspicion (a second scope step, which holds that query)
CREATE FUNCTION scope_of(question text, options jsonb DEFAULT :'fast')
RETURNS TABLE(unlinked text, model_asked bool, ended_as_voted bool) LANGUAGE sql AS $$
    WITH r AS (SELECT step, stage, status, sql, data FROM nl2sql_run(question, NULL, options)),
         s AS (SELECT data FROM r WHERE stage = 'scope' ORDER BY step LIMIT 1),
         written AS (SELECT count(*) > 0 AS refused FROM r WHERE stage = 'scope' AND status = 'unanswerable' AND sql IS NOT NULL)
    SELECT (SELECT string_agg(l->>'word', ', ' ORDER BY l->>'word') FROM s, jsonb_array_elements(s.data->'evidence'->'links') l
            WHERE l->'to' = 'null' AND NOT (l->>'soft')::bool),
           (SELECT jsonb_typeof(data->'vote') = 'object' FROM s),
           (SELECT ((SELECT status FROM r WHERE stage = 'chosen') = 'unanswerable')
                   = ((data->'vote'->>'answerable')::bool IS FALSE OR (SELECT refused FROM written)) FROM s)
$$;

-- data the schema has no place for: nothing stores a satisfaction score
SELECT * FROM scope_of('What is the average customer satisfaction score?');
-- a name that only looks like one the schema has: books have no publisher
SELECT * FROM scope_of('Which publisher printed the most books?');
-- general knowledge unrelated to the bookshop
SELECT * FROM scope_of('What is the boiling point of water at sea level?');
-- knowledge about the bookshop's things that it does not store: the population of an author's country
SELECT * FROM scope_of('What is the population of the country each author comes from?');

-- answerable: every word links to a table, a column or a stored value, and the model is not asked;
-- an absent value is answerable (its answer is no rows)
SELECT * FROM scope_of('How many orders did each customer place?');
SELECT * FROM scope_of('Which customers from Atlantis ordered books by Italo Calvino?');
SELECT * FROM scope_of('Which authors were born before 1930?');

-- refusal off, per call or by the setting: the scope step is skipped and the question gets SQL
SELECT stage, status, detail FROM nl2sql_run('Which books will sell best next Christmas?', NULL,
    :'fast'::jsonb || '{"refuse": false}') WHERE stage = 'scope';
SET nl2sql.refuse = off;
SELECT nl2sql('Which books will sell best next Christmas?', NULL, :'fast') IS NOT NULL AS got_sql;
RESET nl2sql.refuse;

\c nl2sql_regress
SET client_min_messages = warning;
DROP DATABASE nl2sql_bookshop;
