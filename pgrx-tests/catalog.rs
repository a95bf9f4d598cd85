// The catalog reader: what the current user can see, and nothing more.

fn catalog_fixture() {
    exec(
        r#"
        CREATE SCHEMA cat;
        CREATE TABLE cat.customers (id int PRIMARY KEY, name text NOT NULL, credit_limit numeric);
        COMMENT ON TABLE cat.customers IS 'people who buy';
        COMMENT ON COLUMN cat.customers.credit_limit IS 'in euros';
        CREATE TABLE cat.orders (id int PRIMARY KEY, customer_id int REFERENCES cat.customers, placed date);
        CREATE TABLE cat.order_lines (order_id int REFERENCES cat.orders, line int, qty int,
                                      PRIMARY KEY (order_id, line));
        CREATE TABLE cat.secrets (id int PRIMARY KEY, customer_id int REFERENCES cat.customers);
        CREATE VIEW cat.big_orders AS SELECT * FROM cat.orders WHERE id > 10;
        INSERT INTO cat.customers SELECT g, 'c' || g, g FROM generate_series(1, 50) g;
        ANALYZE cat.customers;
        CREATE ROLE cat_analyst NOLOGIN;
        GRANT USAGE ON SCHEMA cat TO cat_analyst;
        GRANT SELECT ON cat.orders, cat.order_lines, cat.big_orders TO cat_analyst;
        GRANT SELECT (id, name) ON cat.customers TO cat_analyst;
        "#,
    );
}

fn table_names(c: &nl2sql_core::catalog::Catalog) -> Vec<String> {
    c.tables.iter().filter(|t| t.name.schema == "cat").map(|t| t.name.name.clone()).collect()
}

#[pg_test]
fn catalog_reads_tables_keys_comments_and_estimates() {
    catalog_fixture();
    let c = crate::spi::catalog::read().unwrap();
    assert_eq!(table_names(&c), ["big_orders", "customers", "order_lines", "orders", "secrets"]);
    let customers = c.resolve(Some("cat"), "customers").unwrap();
    assert_eq!(customers.comment.as_deref(), Some("people who buy"));
    assert_eq!(customers.primary_key, ["id"]);
    assert_eq!(customers.row_estimate, Some(50.0));
    let limit = customers.column("credit_limit").unwrap();
    assert_eq!((limit.type_name.as_str(), limit.comment.as_deref()), ("numeric", Some("in euros")));
    assert!(!customers.column("name").unwrap().nullable);
    let lines = c.resolve(Some("cat"), "order_lines").unwrap();
    assert_eq!(lines.primary_key, ["order_id", "line"]);
    assert_eq!(c.resolve(Some("cat"), "big_orders").unwrap().kind, nl2sql_core::catalog::RelKind::View);
    let fks: Vec<(String, String)> = c
        .foreign_keys
        .iter()
        .filter(|f| f.from.schema == "cat")
        .map(|f| (f.from.name.clone(), f.to.name.clone()))
        .collect();
    assert_eq!(
        fks,
        [("order_lines".into(), "orders".into()), ("orders".into(), "customers".into()), ("secrets".into(), "customers".into())]
    );
    let graph = c.fk_graph();
    let orders = nl2sql_core::catalog::RelName::new("cat", "orders");
    assert_eq!(graph[&orders].len(), 2);
    // nl2sql's own catalog is not part of what users ask about
    assert!(c.tables.iter().all(|t| t.name.schema != "nl2sql"));
}

#[pg_test]
fn catalog_shows_only_what_the_user_may_select() {
    catalog_fixture();
    exec("SET LOCAL ROLE cat_analyst");
    let c = crate::spi::catalog::read().unwrap();
    assert_eq!(table_names(&c), ["big_orders", "customers", "order_lines", "orders"]);
    let customers = c.resolve(Some("cat"), "customers").unwrap();
    let cols: Vec<&str> = customers.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(cols, ["id", "name"], "credit_limit is not granted");
    // the key from the hidden table is gone with it
    assert!(c.foreign_keys.iter().all(|f| f.from.name != "secrets"));
    assert_eq!(c.foreign_keys.iter().filter(|f| f.from.schema == "cat").count(), 2);
    // and the SQL function agrees
    let doc = json_of("SELECT nl2sql_schema()");
    assert!(!doc.to_string().contains("secrets") && !doc.to_string().contains("credit_limit"));
}
