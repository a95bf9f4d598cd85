// The value index against the real embedding server: build, refresh, skip rules, search, privileges.

/// (table.column, status, values, embedded) per row of nl2sql_index_values(target).
fn index(target: &str) -> Vec<(String, String, i64, i64)> {
    let sql = format!("SELECT table_name || '.' || column_name, status, indexed_values, embedded FROM nl2sql_index_values({target}) ORDER BY 1");
    Spi::connect(|c| {
        c.select(&sql, None, &[])
            .unwrap()
            .map(|r| (r.get::<String>(1).unwrap().unwrap(), r.get::<String>(2).unwrap().unwrap(), r.get::<i64>(3).unwrap().unwrap(), r.get::<i64>(4).unwrap().unwrap()))
            .collect()
    })
}

/// table.column = value for each search hit.
fn search(text: &str) -> Vec<String> {
    Spi::connect(|c| {
        c.select("SELECT table_name || '.' || column_name || ' = ' || value FROM nl2sql_search_values($1, 20, 3, 0.45)", None, &[text.into()])
            .unwrap()
            .map(|r| r.get::<String>(1).unwrap().unwrap())
            .collect()
    })
}

#[pg_test]
fn value_index_builds_refreshes_incrementally_and_skips_what_is_not_worth_it() {
    load_bookshop();
    exec(
        "CREATE TABLE gadgets (serial text PRIMARY KEY, ref text, phone text, manual text, label text);
         INSERT INTO gadgets SELECT 'S' || g, md5(g::text)::uuid::text, '+33 1 23 45 67 ' || g, repeat('words ', 30), 'gadget ' || (g % 3)
           FROM generate_series(1, 20) g;",
    );
    let first = index("'gadgets'");
    let status = |rows: &[(String, String, i64, i64)], col: &str| rows.iter().find(|r| r.0 == col).map(|r| r.1.clone());
    assert_eq!(status(&first, "gadgets.label").as_deref(), Some("indexed"), "{first:?}");
    for col in ["gadgets.serial", "gadgets.ref", "gadgets.phone", "gadgets.manual"] {
        assert_eq!(status(&first, col).as_deref(), Some("skipped"), "{col}: {first:?}");
    }
    let reasons = json_of(
        "SELECT jsonb_object_agg(column_name, reason) FROM nl2sql.value_index_status WHERE table_name = 'gadgets' AND status = 'skipped'",
    );
    assert_eq!(reasons["serial"], json!("a primary or foreign key column"));
    assert_eq!(reasons["ref"], json!("holds UUIDs"));
    assert_eq!(reasons["phone"], json!("holds numbers, dates or codes written as text"));
    assert!(reasons["manual"].as_str().unwrap().starts_with("long free text"), "{reasons}");

    let books = index("'books'");
    let genre = books.iter().find(|r| r.0 == "books.genre").expect("genre indexed");
    assert_eq!((genre.1.as_str(), genre.3), ("indexed", genre.2), "every value embedded the first time");
    // a refresh embeds nothing new; a new value is the only one embedded next time
    assert!(index("'books'").iter().all(|r| r.3 == 0));
    exec("INSERT INTO books VALUES (99, 'Neuromancer', 1, 'cyberpunk', '1984-07-01', 9.99, 271)");
    let again = index("'books'");
    assert_eq!(again.iter().find(|r| r.0 == "books.genre").unwrap().3, 1, "{again:?}");
    assert_eq!(again.iter().find(|r| r.0 == "books.title").unwrap().3, 1, "{again:?}");
    let status_row = json_of(
        "SELECT to_jsonb(s) FROM nl2sql.value_index_status s WHERE table_name = 'books' AND column_name = 'genre'",
    );
    assert_eq!(status_row["indexed_values"], json!(genre.2 + 1), "{status_row}");
    assert_eq!(status_row["model"], json!("all-minilm-l6-v2"));
    // nobody reads the index directly
    exec("CREATE ROLE vi_reader NOLOGIN");
    exec("SET LOCAL ROLE vi_reader");
    let err = error_of("(SELECT count(*) FROM nl2sql.value_index)");
    exec("RESET ROLE");
    assert_eq!(err.as_deref(), Some("42501: permission denied for table value_index"));
}

#[pg_test]
fn value_search_finds_values_the_caller_may_see_and_no_others() {
    load_bookshop();
    index("NULL");
    let hits = search("fantasy novels");
    assert!(hits.contains(&"books.genre = fantasy".to_string()), "{hits:?}");
    // lexical: a misspelt city
    let hits = search("customers living in Pariss");
    assert!(hits.contains(&"customers.city = Paris".to_string()), "{hits:?}");
    exec(
        "CREATE ROLE vs_reader NOLOGIN;
         GRANT SELECT ON books, authors TO vs_reader;
         ALTER TABLE books ENABLE ROW LEVEL SECURITY;
         CREATE POLICY no_fantasy ON books FOR SELECT TO vs_reader USING (genre <> 'fantasy');",
    );
    exec("SET LOCAL ROLE vs_reader");
    let as_reader = search("customers living in Paris who like fantasy");
    let literary = search("literary fiction");
    exec("RESET ROLE");
    // no column privilege on customers: none of its values; fantasy rows hidden by RLS: not that value
    assert!(!as_reader.iter().any(|h| h.starts_with("customers.")), "{as_reader:?}");
    assert!(!as_reader.contains(&"books.genre = fantasy".to_string()), "{as_reader:?}");
    assert!(literary.contains(&"books.genre = literary".to_string()), "{literary:?}");
}

#[pg_test]
fn ask_grounds_the_question_in_indexed_values() {
    load_bookshop();
    // before indexing: the stage says why it did nothing
    let stage = |q: &str| -> (String, String) {
        Spi::get_two_with_args::<String, String>(
            "SELECT status, detail FROM nl2sql_run($1, NULL, '{\"max_probes\": 0, \"verify\": false}') WHERE stage = 'values'",
            &[q.into()],
        )
        .map(|(a, b)| (a.unwrap_or_default(), b.unwrap_or_default()))
        .unwrap()
    };
    let (status, detail) = stage("How many fantasy books are there?");
    assert_eq!(status, "skipped", "{detail}");
    index("'books'");
    let (status, detail) = stage("How many fantasy books are there?");
    assert_eq!(status, "ok", "{detail}");
    assert!(detail.contains("genre = 'fantasy'"), "{detail}");
    // with value_keywords the real model lists the question's keywords, and they are searched
    let (status, _) = Spi::get_two::<String, String>(
        "SELECT status, detail FROM nl2sql_run('How many fantasy books are there?', NULL,
                '{\"max_probes\": 0, \"verify\": false, \"value_keywords\": true}') WHERE stage = 'values'",
    )
    .unwrap();
    assert_eq!(status.as_deref(), Some("ok"));
    let step = json_of("SELECT output FROM nl2sql.steps WHERE stage = 'values' AND status = 'ok' ORDER BY run_id DESC, step DESC LIMIT 1");
    assert!(step["keywords"].as_array().is_some_and(|k| !k.is_empty()), "{step}");
    // the same through the search function: keywords from the model, each searched with the whole text
    let hits = Spi::get_one::<String>(
        "SELECT string_agg(table_name || '.' || column_name || ' = ' || value, ', ')
           FROM nl2sql_search_values('Which of our fantasy books cost more than 10 euros?', keywords => true)",
    )
    .unwrap()
    .unwrap_or_default();
    assert!(hits.contains("books.genre = fantasy"), "{hits}");
}
