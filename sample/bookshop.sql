-- A small bookshop: authors, books, customers, orders and their lines.
-- It exercises joins over foreign keys, dates, text values (genres, cities, countries), NULLs and money.
-- Deterministic: no random(); loaded by scripts/demo.sh into the database nl2sql_demo.

CREATE TABLE authors (
    author_id  integer PRIMARY KEY,
    name       text NOT NULL,
    country    text NOT NULL,
    born       date
);
COMMENT ON TABLE authors IS 'Writers whose books the shop sells';

CREATE TABLE books (
    book_id    integer PRIMARY KEY,
    title      text NOT NULL,
    author_id  integer NOT NULL REFERENCES authors,
    genre      text NOT NULL,
    published  date NOT NULL,
    price      numeric(6,2) NOT NULL CHECK (price > 0),
    pages      integer
);
COMMENT ON COLUMN books.price IS 'List price in euros';

CREATE TABLE customers (
    customer_id integer PRIMARY KEY,
    name        text NOT NULL,
    city        text NOT NULL,
    email       text UNIQUE,
    joined_on   date NOT NULL
);

CREATE TABLE orders (
    order_id    integer PRIMARY KEY,
    customer_id integer NOT NULL REFERENCES customers,
    ordered_at  timestamp NOT NULL,
    status      text NOT NULL CHECK (status IN ('paid', 'shipped', 'cancelled'))
);

CREATE TABLE order_items (
    order_id   integer NOT NULL REFERENCES orders,
    book_id    integer NOT NULL REFERENCES books,
    quantity   integer NOT NULL CHECK (quantity > 0),
    unit_price numeric(6,2) NOT NULL,
    PRIMARY KEY (order_id, book_id)
);
COMMENT ON COLUMN order_items.unit_price IS 'Price paid per copy, after any discount';

INSERT INTO authors VALUES
    (1, 'Ursula K. Le Guin', 'United States', '1929-10-21'),
    (2, 'Chinua Achebe', 'Nigeria', '1930-11-16'),
    (3, 'Italo Calvino', 'Italy', '1923-10-15'),
    (4, 'Tove Jansson', 'Finland', '1914-08-09'),
    (5, 'Haruki Murakami', 'Japan', '1949-01-12'),
    (6, 'Chimamanda Ngozi Adichie', 'Nigeria', '1977-09-15'),
    (7, 'Jorge Luis Borges', 'Argentina', '1899-08-24'),
    (8, 'Olga Tokarczuk', 'Poland', '1962-01-29'),
    (9, 'Anonymous Collective', 'Unknown', NULL);

INSERT INTO books VALUES
    (1,  'A Wizard of Earthsea',          1, 'fantasy',  '1968-11-01', 12.50, 183),
    (2,  'The Left Hand of Darkness',     1, 'science fiction', '1969-03-01', 14.00, 304),
    (3,  'The Dispossessed',              1, 'science fiction', '1974-05-01', 15.50, 387),
    (4,  'Things Fall Apart',             2, 'literary', '1958-06-17', 11.00, 209),
    (5,  'Arrow of God',                  2, 'literary', '1964-01-01', 13.00, 287),
    (6,  'Invisible Cities',              3, 'literary', '1972-11-01', 10.50, 165),
    (7,  'If on a Winter''s Night a Traveler', 3, 'literary', '1979-06-01', 14.50, 260),
    (8,  'The Summer Book',               4, 'literary', '1972-01-01', 12.00, 172),
    (9,  'Finn Family Moomintroll',       4, 'children', '1948-01-01', 9.50, 170),
    (10, 'Kafka on the Shore',            5, 'fantasy',  '2002-09-12', 16.00, 505),
    (11, 'Norwegian Wood',                5, 'literary', '1987-09-04', 13.50, 296),
    (12, 'Half of a Yellow Sun',          6, 'historical', '2006-08-11', 15.00, 433),
    (13, 'Americanah',                    6, 'literary', '2013-05-14', 16.50, 477),
    (14, 'Ficciones',                     7, 'short stories', '1944-01-01', 11.50, 174),
    (15, 'The Aleph',                     7, 'short stories', '1949-01-01', 11.50, 210),
    (16, 'Flights',                       8, 'literary', '2007-01-01', 17.00, 403),
    (17, 'Drive Your Plow Over the Bones of the Dead', 8, 'crime', '2009-01-01', 16.00, 274),
    (18, 'The Book of Jacob',             8, 'historical', '2014-10-01', 24.00, 912),
    (19, 'Tales Without Names',           9, 'short stories', '2020-02-02', 7.00, NULL);

INSERT INTO customers VALUES
    (1,  'Ana Souza',        'Lisbon',   'ana@example.org',    '2021-01-15'),
    (2,  'Bjorn Larsen',     'Oslo',     'bjorn@example.org',  '2021-03-02'),
    (3,  'Chloe Martin',     'Paris',    'chloe@example.org',  '2021-06-20'),
    (4,  'Dmitri Volkov',    'Berlin',   NULL,                 '2022-01-09'),
    (5,  'Emeka Obi',        'Lagos',    'emeka@example.org',  '2022-02-14'),
    (6,  'Fatima Zahra',     'Paris',    'fatima@example.org', '2022-05-30'),
    (7,  'Giulia Rossi',     'Milan',    'giulia@example.org', '2022-09-11'),
    (8,  'Hiro Tanaka',      'Osaka',    'hiro@example.org',   '2023-01-05'),
    (9,  'Ingrid Nilsson',   'Oslo',     'ingrid@example.org', '2023-04-18'),
    (10, 'Jonas Weber',      'Berlin',   'jonas@example.org',  '2023-08-01'),
    (11, 'Kasia Nowak',      'Warsaw',   'kasia@example.org',  '2024-02-20'),
    (12, 'Luis Ortega',      'Buenos Aires', NULL,             '2024-06-07');

-- 40 orders over 2023-2024, spread over customers, with a few cancellations.
INSERT INTO orders
SELECT g,
       1 + (g * 7) % 12,
       timestamp '2023-01-03 09:00' + (g * 17) * interval '1 day' + (g % 9) * interval '1 hour',
       CASE WHEN g % 11 = 0 THEN 'cancelled' WHEN g <= 32 THEN 'shipped' ELSE 'paid' END
FROM generate_series(1, 40) g;

-- One to three lines per order; some copies sold at a discount.
INSERT INTO order_items
SELECT o.order_id, b.book_id, 1 + (o.order_id + b.book_id) % 3,
       CASE WHEN o.order_id % 5 = 0 THEN round(b.price * 0.9, 2) ELSE b.price END
FROM orders o
JOIN books b ON b.book_id IN (1 + (o.order_id * 3) % 19, 1 + (o.order_id * 5 + 2) % 19, 1 + (o.order_id * 11 + 7) % 19)
WHERE (o.order_id + b.book_id) % 4 <> 0 OR b.book_id = 1 + (o.order_id * 3) % 19;

ANALYZE;
