// Teaching nl2sql a database: verified examples and the glossary (api/learn.rs).

/// (example_id, question) of the examples the current role sees.
fn listed_examples() -> Vec<(i64, String)> {
    Spi::connect(|c| {
        let rows = c.select("SELECT example_id, question FROM nl2sql_examples() ORDER BY example_id", None, &[])?;
        let mut out = Vec::new();
        for r in rows {
            out.push((r.get::<i64>(1)?.unwrap(), r.get::<String>(2)?.unwrap()));
        }
        Ok::<_, pgrx::spi::Error>(out)
    })
    .unwrap()
}

#[pg_test]
fn learn_teach_checks_the_sql_stores_it_lists_it_to_who_may_read_it_and_forgets_it() {
    load_bookshop();
    let taught = json_of("SELECT nl2sql_teach('How many books are there?', 'select count(*) from books')");
    let id = taught["example_id"].as_i64().unwrap();
    assert_eq!(taught["sql"], json!("SELECT count(*) FROM books"), "{taught}");
    assert_eq!((taught["rows"].clone(), taught["tables"].clone()), (json!(1), json!(["public.books"])), "{taught}");
    assert_eq!(listed_examples(), vec![(id, "How many books are there?".to_string())]);
    let who = Spi::get_one::<String>(&format!("SELECT added_by FROM nl2sql_examples() WHERE example_id = {id}")).unwrap();
    assert_eq!(who, Spi::get_one::<String>("SELECT current_user::text").unwrap());

    // the same question taught again replaces the example
    let again = json_of("SELECT nl2sql_teach('how many books are there? ', 'SELECT count(book_id) FROM books')");
    assert_eq!(again["replaced"], json!([id]), "{again}");
    let id = again["example_id"].as_i64().unwrap();

    // SQL that does not run, is not one read-only query, or reads no table is refused with the reason
    let err = error_of("nl2sql_teach('How many pages?', 'SELECT sum(pagez) FROM books')").unwrap();
    assert!(err.starts_with("42703: the SQL cannot be planned: column \"pagez\" does not exist"), "{err}");
    let err = error_of("nl2sql_teach('Delete them', 'DELETE FROM books')").unwrap();
    assert!(err.starts_with("25006"), "{err}");
    let err = error_of("nl2sql_teach('What is one?', 'SELECT 1')").unwrap();
    assert!(err.starts_with("22023: the SQL reads no table"), "{err}");
    assert!(error_of("nl2sql_teach('  ', 'SELECT 1')").unwrap().starts_with("22023: question is empty"));
    assert!(error_of("nl2sql_teach(NULL, 'SELECT 1')").unwrap().starts_with("22004"));
    assert_eq!(listed_examples().len(), 1, "nothing was stored for the refused pairs");

    // a reader who may not SELECT books sees no example over it, and may not teach or forget
    exec("CREATE ROLE learn_reader NOLOGIN; GRANT SELECT ON authors TO learn_reader");
    exec("SET LOCAL ROLE learn_reader");
    assert!(listed_examples().is_empty());
    let err = error_of("nl2sql_teach('How many authors?', 'SELECT count(*) FROM authors')").unwrap();
    assert!(err.starts_with("42501: permission denied for nl2sql_teach"), "{err}");
    assert!(error_of(&format!("nl2sql_forget({id})")).unwrap().starts_with("42501"));
    exec("RESET ROLE");

    // a curator (UPDATE on nl2sql.experts) may
    exec("CREATE ROLE learn_curator NOLOGIN; GRANT SELECT ON authors, books TO learn_curator; GRANT UPDATE ON nl2sql.experts TO learn_curator");
    exec("SET LOCAL ROLE learn_curator");
    let by_curator = json_of("SELECT nl2sql_teach('How many authors are there?', 'SELECT count(*) FROM authors')");
    assert!(by_curator["example_id"].as_i64().is_some(), "{by_curator}");
    assert_eq!(Spi::get_one::<bool>(&format!("SELECT nl2sql_forget({id})")).unwrap(), Some(true));
    assert_eq!(Spi::get_one::<bool>(&format!("SELECT nl2sql_forget({id})")).unwrap(), Some(false));
    exec("RESET ROLE");
    assert_eq!(listed_examples().iter().map(|(_, q)| q.as_str()).collect::<Vec<_>>(), vec!["How many authors are there?"]);
}

#[pg_test]
fn learn_glossary_terms_are_checked_listed_to_who_may_read_them_and_removed() {
    load_bookshop();
    let d = json_of("SELECT nl2sql_define('Long  Book', 'a book of more than 500 pages', 'books.pages > 500')");
    assert_eq!((d["term"].clone(), d["replaced"].clone()), (json!("long book"), json!(false)), "{d}");
    let d = json_of("SELECT nl2sql_define('long book', 'a book of more than 400 pages', 'books.pages > 400')");
    assert_eq!(d["replaced"], json!(true), "{d}");
    json_of("SELECT nl2sql_define('classic', 'a book published before 1950')");
    let err = error_of("nl2sql_define('x', 'y', 'SELECT 1; DROP TABLE books')").unwrap();
    assert!(err.starts_with("42601: the SQL of \"x\" is not one SQL expression"), "{err}");
    let err = error_of("nl2sql_define('payroll', 'salaries paid', 'sum(employees.salary)')").unwrap();
    assert!(err.starts_with("42704"), "{err}");
    let terms = |sql: &str| Spi::get_one::<Vec<String>>(sql).unwrap().unwrap_or_default();
    assert_eq!(terms("SELECT array_agg(term ORDER BY term) FROM nl2sql_glossary()"), vec!["classic", "long book"]);

    // who cannot read books does not see the term over it
    exec("CREATE ROLE learn_glossary_reader NOLOGIN; GRANT SELECT ON authors TO learn_glossary_reader");
    exec("SET LOCAL ROLE learn_glossary_reader");
    assert_eq!(terms("SELECT array_agg(term ORDER BY term) FROM nl2sql_glossary()"), vec!["classic"]);
    assert!(error_of("nl2sql_define('a', 'b')").unwrap().starts_with("42501"));
    exec("RESET ROLE");
    assert_eq!(Spi::get_one::<bool>("SELECT nl2sql_undefine('Long Book')").unwrap(), Some(true));
    assert_eq!(terms("SELECT array_agg(term ORDER BY term) FROM nl2sql_glossary()"), vec!["classic"]);
}

#[pg_test]
fn ask_is_shown_the_taught_example_the_embedding_model_finds_and_the_glossary_term() {
    load_bookshop();
    json_of("SELECT nl2sql_teach('How many books did each author write?', 'SELECT a.name, count(*) FROM authors AS a JOIN books AS b ON b.author_id = a.author_id GROUP BY a.name')");
    json_of("SELECT nl2sql_teach('Which customers live in Paris?', $$SELECT name FROM customers WHERE city = 'Paris'$$)");
    json_of("SELECT nl2sql_define('long book', 'a book of more than 400 pages', 'books.pages > 400')");
    // the examples are found and judged by the real embedding model; the chat answer is scripted
    // only so that the run ends the same way whatever a small model writes (the claim here is what
    // the prompt is shown, not the SQL)
    let url = scripted_llm(&["{\"sql\": \"SELECT a.name, count(*) FROM authors AS a JOIN books AS b ON b.author_id = a.author_id WHERE b.pages > 400 GROUP BY a.name\"}"], 10);
    exec(&format!("SET LOCAL nl2sql.llm_endpoint = '{url}'"));
    // examples shown only when asked for (`examples` is 0 by default)
    let options = "{\"generators\": [\"direct\"], \"probe\": false, \"verify\": false, \"refuse\": false, \"examples\": 3}";
    let (run_id, rows) = run_question("How many long books did each author write?", options);
    let taught = rows.iter().find(|(s, _, _)| s == "taught").unwrap_or_else(|| panic!("no taught step: {rows:?}"));
    assert_eq!(taught.1, "ok", "{rows:?}");
    let shown = json_of(&format!("SELECT output FROM nl2sql.steps WHERE run_id = {} AND stage = 'taught'", run_id.unwrap()));
    assert_eq!(shown["examples"].as_array().map(Vec::len), Some(1), "the Paris example is about something else: {shown}");
    assert_eq!(shown["examples"][0]["question"], json!("How many books did each author write?"), "{shown}");
    assert!(shown["examples"][0]["distance"].as_f64().unwrap() < 0.15, "{shown}");
    assert_eq!(shown["terms"][0]["term"], json!("long book"), "{shown}");
    // with no example shown (the default), the glossary still is
    let (run_id, _) = run_question("How many long books did each author write?", &options.replace(", \"examples\": 3}", "}"));
    let shown = json_of(&format!("SELECT output FROM nl2sql.steps WHERE run_id = {} AND stage = 'taught'", run_id.unwrap()));
    assert_eq!(shown["examples"], json!([]), "{shown}");
    assert_eq!(shown["terms"][0]["term"], json!("long book"), "{shown}");
}

#[pg_test]
fn learn_a_taught_question_asked_again_in_other_words_is_answered_with_its_verified_sql() {
    load_bookshop();
    let taught = "SELECT a.name, count(*) FROM authors AS a JOIN books AS b ON b.author_id = a.author_id GROUP BY a.name";
    json_of(&format!("SELECT nl2sql_teach('How many books did each author write?', $${taught}$$)"));
    let stored: String = Spi::get_one("SELECT sql FROM nl2sql_examples()").unwrap().unwrap();
    // the real embedding model measures how near the two questions are; a chat call would get a
    // query that is not the taught one
    let url = scripted_llm(&["{\"sql\": \"SELECT count(*) FROM books\"}"], 20);
    exec(&format!("SET LOCAL nl2sql.llm_endpoint = '{url}'"));
    let options = "{\"probe\": false, \"refuse\": false}";
    let (run_id, rows) = run_question("For each author, how many books did they write?", options);
    let generate = rows.iter().find(|(s, _, _)| s == "generate").unwrap_or_else(|| panic!("no generate step: {rows:?}"));
    assert_eq!(generate.2.as_deref(), Some(stored.as_str()), "{rows:?}");
    let run = json_of(&format!("SELECT jsonb_build_object('status', status, 'chosen', chosen_sql, 'calls', llm_calls) FROM nl2sql.runs WHERE run_id = {}", run_id.unwrap()));
    assert_eq!(run, json!({"status": "ok", "chosen": stored, "calls": 0}), "{rows:?}");
    let data = json_of(&format!("SELECT output FROM nl2sql.steps WHERE run_id = {} AND stage = 'generate'", run_id.unwrap()));
    assert_eq!(data["generator"], json!("verified_example"), "{data}");
    // another question about the same tables is generated: the scripted model's answer
    let (_, rows) = run_question("How many books are there?", options);
    let chosen = rows.last().unwrap();
    assert_eq!(chosen.2.as_deref(), Some("SELECT count(*) FROM books"), "{rows:?}");
    // with the option off, the example is only shown
    let (_, rows) = run_question("For each author, how many books did they write?", "{\"probe\": false, \"refuse\": false, \"reuse\": false}");
    assert_eq!(rows.last().unwrap().2.as_deref(), Some("SELECT count(*) FROM books"), "{rows:?}");
}

#[pg_test]
fn learn_a_taught_question_worded_otherwise_is_answered_unless_the_data_holds_the_other_word() {
    load_bookshop();
    let taught = "SELECT a.name, count(*) FROM authors AS a JOIN books AS b ON b.author_id = a.author_id GROUP BY a.name";
    json_of(&format!("SELECT nl2sql_teach('How many books did each author write?', $${taught}$$)"));
    let stored: String = Spi::get_one("SELECT sql FROM nl2sql_examples()").unwrap().unwrap();
    let url = scripted_llm(&["{\"sql\": \"SELECT count(*) FROM books\"}"], 20);
    exec(&format!("SET LOCAL nl2sql.llm_endpoint = '{url}'"));
    let options = "{\"probe\": false, \"refuse\": false}";
    let near = |run_id: i64| {
        let taught = json_of(&format!("SELECT output FROM nl2sql.steps WHERE run_id = {run_id} AND stage = 'taught'"));
        taught["nearest"][0]["distance"].as_f64().unwrap_or(1.0)
    };
    // "actually" is no qualifier, no word of the schema, and no stored value the example reads
    // holds it (scanned as the caller): the same question, answered with the verified SQL
    let (run_id, rows) = run_question("How many books did each author actually write?", options);
    let run_id = run_id.unwrap();
    assert!(near(run_id) <= 0.3, "the example is within the reuse cut: {}", near(run_id));
    let generate = json_of(&format!("SELECT output FROM nl2sql.steps WHERE run_id = {run_id} AND stage = 'generate'"));
    assert_eq!(generate["generator"], json!("verified_example"), "{rows:?}");
    assert_eq!(generate["wording"], json!(["actually"]), "{generate}");
    assert_eq!(rows.last().unwrap().2.as_deref(), Some(stored.as_str()), "{rows:?}");
    // "fantasy" is a genre the books hold: a value the example does not ask for, generated afresh
    let (run_id, rows) = run_question("How many fantasy books did each author write?", options);
    assert!(near(run_id.unwrap()) <= 0.3, "the example is within the reuse cut: {}", near(run_id.unwrap()));
    assert_eq!(rows.last().unwrap().2.as_deref(), Some("SELECT count(*) FROM books"), "{rows:?}");
}

#[pg_test]
fn learn_a_taught_question_asked_of_another_value_is_answered_with_its_sql_adapted_when_the_data_holds_the_value() {
    load_bookshop();
    let taught = "SELECT count(*), avg(b.price) FROM books AS b JOIN authors AS a ON a.author_id = b.author_id WHERE a.country = 'Nigeria'";
    json_of(&format!("SELECT nl2sql_teach('How many books did authors from Nigeria write, and what is their average price?', $${taught}$$)"));
    let stored: String = Spi::get_one("SELECT sql FROM nl2sql_examples()").unwrap().unwrap();
    // the real embedding model measures how near the questions are; a chat call would get a
    // query that is not the taught one
    let url = scripted_llm(&["{\"sql\": \"SELECT count(*) FROM books\"}"], 20);
    exec(&format!("SET LOCAL nl2sql.llm_endpoint = '{url}'"));
    let options = "{\"probe\": false, \"refuse\": false}";
    let (run_id, rows) = run_question("How many books did authors from Japan write, and what is their average price?", options);
    let run = json_of(&format!("SELECT jsonb_build_object('status', status, 'chosen', chosen_sql, 'calls', llm_calls) FROM nl2sql.runs WHERE run_id = {}", run_id.unwrap()));
    assert_eq!(run, json!({"status": "ok", "chosen": stored.replace("Nigeria", "Japan"), "calls": 0}), "{rows:?}");
    let data = json_of(&format!("SELECT output FROM nl2sql.steps WHERE run_id = {} AND stage = 'generate'", run_id.unwrap()));
    assert_eq!(data["generator"], json!("adapted_example"), "{data}");
    assert_eq!(data["substitutions"], json!([{"from": "Nigeria", "to": "Japan", "number": false}]), "{data}");
    // a value no author's country holds is answered too, by no matching row, as a question about
    // orders from Atlantis is (the data may simply not have it)
    let (_, rows) = run_question("How many books did authors from Atlantis write, and what is their average price?", options);
    assert_eq!(rows.last().unwrap().2.as_deref(), Some(stored.replace("Nigeria", "Atlantis").as_str()), "{rows:?}");
    // a value the column holds only in another case fails the literal check on the data: the
    // adapted SQL is not the answer, the question is generated afresh (the scripted model's query)
    let (run_id, rows) = run_question("How many books did authors from JAPAN write, and what is their average price?", options);
    let verify = json_of(&format!("SELECT to_jsonb(detail) FROM nl2sql.steps WHERE run_id = {} AND stage = 'verify' ORDER BY step LIMIT 1", run_id.unwrap()));
    assert!(verify.as_str().unwrap_or("").starts_with("the adapted example's SQL does not pass here"), "{verify} {rows:?}");
    let generated = json_of(&format!("SELECT to_jsonb(sql) FROM nl2sql.steps WHERE run_id = {} AND stage = 'generate' ORDER BY step DESC LIMIT 1", run_id.unwrap()));
    assert_eq!(generated, json!("SELECT count(*) FROM books"), "{rows:?}");
}
