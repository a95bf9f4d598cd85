// Many schemas: the schemas a question is asked of, and the names of the SQL resolved there.

/// Two schemas beside the bookshop in `public`: a fleet of vehicles, and an atlas.
fn load_fleet() {
    load_bookshop();
    exec(
        "CREATE SCHEMA fleet;
         CREATE TABLE fleet.vehicles (vehicle_id int PRIMARY KEY, make text NOT NULL, horsepower int);
         INSERT INTO fleet.vehicles VALUES (1, 'Volvo', 120), (2, 'Fiat', 70), (3, 'Saab', 150);
         CREATE SCHEMA atlas;
         CREATE TABLE atlas.rivers (river_id int PRIMARY KEY, name text NOT NULL, length_km int);
         INSERT INTO atlas.rivers VALUES (1, 'Loire', 1006);
         ANALYZE fleet.vehicles, atlas.rivers",
    );
}

/// The schema step's detail and the chosen row (status, sql) of a run.
fn scoped_run(question: &str, options: &str) -> (String, String, Option<String>) {
    Spi::connect(|c| {
        let rows: Vec<(String, String, String, Option<String>)> = c
            .select("SELECT stage, status, detail, sql FROM nl2sql_run($1, NULL, $2::jsonb) ORDER BY step", None, &[question.into(), options.into()])
            .unwrap()
            .map(|r| (r.get::<String>(1).unwrap().unwrap(), r.get::<String>(2).unwrap().unwrap(), r.get::<String>(3).unwrap().unwrap_or_default(), r.get::<String>(4).unwrap()))
            .collect();
        let schema = rows.iter().find(|r| r.0 == "schema").map(|r| r.2.clone()).unwrap_or_default();
        let chosen = rows.last().unwrap();
        (schema, chosen.1.clone(), chosen.3.clone())
    })
}

#[pg_test]
fn schemas_the_catalog_carries_the_search_path() {
    load_fleet();
    exec("SET LOCAL search_path = fleet, public");
    let catalog = json_of("SELECT nl2sql_schema()");
    assert_eq!(catalog["search_path"], json!(["fleet", "public"]), "{}", catalog["search_path"]);
}

#[pg_test]
fn schemas_a_question_off_the_search_path_is_asked_of_the_schema_that_fits_with_the_local_model() {
    load_fleet();
    exec("SET LOCAL search_path = public");
    let (schema, status, sql) = scoped_run("How many vehicles are there?", r#"{"probe": false}"#);
    assert!(schema.starts_with("in schema fleet: its names fit the question best"), "{schema}");
    assert!(status == "ok" || status == "unverified", "{status}: {sql:?}");
    let sql = sql.expect("SQL");
    // whatever the model wrote, the relation is the one in fleet, so the SQL runs as the caller
    assert!(sql.contains("fleet.vehicles"), "{sql}");
    let ran = try_sql(&sql, 10);
    assert_eq!(ran["ok"], json!(true), "{sql}: {ran}");
    assert_eq!(ran["rows"], json!([[3]]), "{sql}: {ran}");

    // the value index is searched in the schema asked of (its rows first, then the exact distance)
    exec("SELECT count(*) FROM nl2sql_index_values('fleet.vehicles')");
    let values = Spi::get_one_with_args::<String>(
        "SELECT detail FROM nl2sql_run($1, NULL, '{\"probe\": false, \"verify\": false, \"refuse\": false}') WHERE stage = 'values'",
        &["What is the horsepower of the Volvo vehicles?".into()],
    )
    .unwrap()
    .unwrap_or_default();
    assert!(values.contains("vehicles.make = 'Volvo'"), "{values}");
}

#[pg_test]
fn schemas_the_setting_and_the_option_name_the_schemas_and_bad_names_are_clear_errors() {
    load_fleet();
    exec("SET LOCAL nl2sql.schemas = 'atlas'");
    let (schema, _, _) = scoped_run("How many vehicles are there?", r#"{"probe": false, "verify": false, "refuse": false}"#);
    assert!(schema.starts_with("in schemas atlas (named by the option schemas or nl2sql.schemas)"), "{schema}");
    let (schema, _, _) = scoped_run("How many rivers are there?", r#"{"probe": false, "verify": false, "refuse": false, "schemas": "fleet, atlas"}"#);
    assert!(schema.starts_with("in schemas fleet, atlas (named"), "{schema}");
    exec("SET LOCAL nl2sql.schemas = 'nowhere'");
    let err = error_of("nl2sql('How many rivers are there?')").unwrap();
    assert!(err.starts_with("42704: none of the schemas named (nowhere) holds a relation you can SELECT"), "{err}");
    exec("SET LOCAL nl2sql.schemas = ''");
    let err = error_of("nl2sql('How many rivers are there?', NULL, '{\"schemas\": \"a;b\"}')").unwrap();
    assert!(err.starts_with("22023: option \"schemas\" must be schema names"), "{err}");
}

#[pg_test]
fn schemas_a_schema_the_caller_may_not_use_is_never_the_scope() {
    load_fleet();
    exec("CREATE ROLE schemas_reader NOLOGIN; GRANT USAGE ON SCHEMA public TO schemas_reader; GRANT SELECT ON ALL TABLES IN SCHEMA public TO schemas_reader");
    exec("GRANT SELECT ON fleet.vehicles TO schemas_reader"); // SELECT, but no USAGE on the schema
    exec("SET LOCAL ROLE schemas_reader");
    let (schema, _, _) = scoped_run("How many vehicles are there?", r#"{"probe": false, "verify": false, "refuse": false}"#);
    assert!(!schema.contains("fleet"), "{schema}");
    let named = error_of("nl2sql('How many vehicles are there?', NULL, '{\"schemas\": \"fleet\"}')").unwrap();
    assert!(named.starts_with("42704"), "{named}");
    exec("RESET ROLE");
}

#[pg_test]
fn schemas_a_value_only_one_schema_stores_decides_between_schemas_whose_names_fit_alike() {
    load_fleet();
    exec(
        "CREATE SCHEMA depot;
         CREATE TABLE depot.vehicles (vehicle_id int PRIMARY KEY, make text NOT NULL, horsepower int);
         INSERT INTO depot.vehicles VALUES (1, 'Scania', 400), (2, 'Iveco', 360);
         ANALYZE depot.vehicles",
    );
    exec("SELECT count(*) FROM nl2sql_index_values('fleet.vehicles')");
    exec("SELECT count(*) FROM nl2sql_index_values('depot.vehicles')");
    exec("SET LOCAL search_path = public");
    let opts = r#"{"probe": false, "verify": false, "refuse": false}"#;
    // by names alone the two schemas tie (depot is asked of first, fleet a reading)
    let (schema, _, _) = scoped_run("How many vehicles are there?", opts);
    assert!(schema.starts_with("in schema depot:") && schema.contains("fleet fits as well"), "{schema}");
    // a value only fleet stores moves the question there, and the tie is gone
    let (schema, _, _) = scoped_run("How many vehicles has the maker Volvo?", opts);
    assert!(schema.starts_with("in schema fleet:") && schema.contains("it stores values the question names (volvo)"), "{schema}");
    assert!(!schema.contains("fits as well"), "{schema}");
    // a value the caller cannot see now (deleted since the index was built) moves nothing
    exec("DELETE FROM fleet.vehicles WHERE make = 'Volvo'");
    let (schema, _, _) = scoped_run("How many vehicles has the maker Volvo?", opts);
    assert!(schema.starts_with("in schema depot:") && schema.contains("fleet fits as well"), "{schema}");
}
