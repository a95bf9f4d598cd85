// Helpers shared by the integration tests (included into the extension's `tests` module).

/// Run SQL that returns nothing; panic with the SQL on failure.
fn exec(sql: &str) {
    Spi::run(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// One jsonb value from a query.
fn json_of(sql: &str) -> Value {
    Spi::get_one::<JsonB>(sql).unwrap_or_else(|e| panic!("{sql}: {e}")).map(|j| j.0).unwrap_or(Value::Null)
}

/// `nl2sql_try(sql, max_rows)` as a JSON value.
fn try_sql(sql: &str, max_rows: i32) -> Value {
    Spi::get_one_with_args::<JsonB>("SELECT nl2sql_try($1, $2)", &[sql.into(), max_rows.into()])
        .unwrap_or_else(|e| panic!("nl2sql_try({sql:?}): {e}"))
        .map(|j| j.0)
        .unwrap_or(Value::Null)
}
