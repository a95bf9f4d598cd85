-- The regression database: the extension, a small shop, and a role that may read only part of it.
-- Every other file runs after this one, in this database.
SET client_min_messages = warning;
CREATE EXTENSION nl2sql CASCADE;

CREATE TABLE customers (
    customer_id int PRIMARY KEY,
    name        text NOT NULL,
    city        text,
    birth_date  date,
    credit      numeric(10,2)
);
CREATE TABLE orders (
    order_id    int PRIMARY KEY,
    customer_id int NOT NULL REFERENCES customers,
    placed      date NOT NULL,
    amount      numeric(10,2) NOT NULL
);
COMMENT ON TABLE orders IS 'one row per order a customer placed';
INSERT INTO customers VALUES
    (1, 'Ada',    'Paris',  '1980-03-01', 500),
    (2, 'Bruno',  'Lyon',   '1975-07-12', 200),
    (3, 'Chloé',  'Paris',  '1992-11-30', NULL),
    (4, 'Dmitri', 'Berlin', '1968-01-05', 900);
INSERT INTO orders VALUES
    (10, 1, '2024-01-03', 30.00),
    (11, 1, '2024-02-14', 12.50),
    (12, 2, '2024-02-20', 99.90),
    (13, 4, '2024-03-01', 15.00),
    (14, 4, '2024-03-09', 45.00);

-- a role that may read customers' names and cities, and nothing of orders
DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'nl2sql_regress_reader') THEN
        CREATE ROLE nl2sql_regress_reader NOLOGIN;
    END IF;
END $$;
GRANT USAGE ON SCHEMA nl2sql TO nl2sql_regress_reader;
GRANT SELECT (customer_id, name, city) ON customers TO nl2sql_regress_reader;

-- errors as rows: the SQLSTATE, message and hint a client receives
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
