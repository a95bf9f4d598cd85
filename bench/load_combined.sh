#!/usr/bin/env bash
# Load all 108 spider_train databases into ONE database, each in its own schema named after it
# (about 800 tables, similar names in many schemas), for Benchmark 12 (many schemas):
#   bench/load_combined.sh [--set spider_train|spider] [--db NAME] [DATA_DIR]
# (default: spider_train into train_all; --set spider loads the 13 dev databases into dev_all)
# Each dump is loaded into a scratch database, its schema `public` renamed to the database's name,
# and that schema dumped into the combined one. The value index is copied from the train_<db> (spider_<db>)
# databases (bench/load_spider.sh --set <set> --index builds it there): the same values,
# embedded by the same model, with the schema renamed, so the combined database is indexed as its
# parts are. Idempotent: a schema already present is kept.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/env.sh"
target=
set_name=spider_train
data="$NL2SQL_REPO/../shared/data"
while [ $# -gt 0 ]; do
    case "$1" in
        --db) target=$2; shift ;;
        --set) set_name=$2; shift ;;
        *) data=$1 ;;
    esac
    shift
done
case "$set_name" in
    spider_train) prefix=train_; target=${target:-train_all} ;;
    spider) prefix=spider_; target=${target:-dev_all} ;;
    *) die "unknown set $set_name (spider_train or spider)" ;;
esac
"$NL2SQL_REPO/scripts/cluster.sh" start
psql_() { "$NL2SQL_REPO/scripts/cluster.sh" psql -X -q -v ON_ERROR_STOP=1 "$@"; }
dump_() { "$NL2SQL_REPO/scripts/cluster.sh" pg_dump "$@"; }
scratch=nl2sql_load_scratch
if ! psql_ -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$target'" | grep -q 1; then
    psql_ -d postgres -c "CREATE DATABASE $target"
fi
psql_ -d "$target" -c "CREATE EXTENSION IF NOT EXISTS nl2sql CASCADE" 2>&1 | grep -v NOTICE || true
for f in "$data/$set_name"/pg/*.sql; do
    name=$(basename "$f" .sql)
    if psql_ -d "$target" -tAc "SELECT 1 FROM pg_namespace WHERE nspname = '$name'" | grep -q 1; then
        continue
    fi
    log "loading schema $name"
    psql_ -d postgres -c "DROP DATABASE IF EXISTS $scratch" -c "CREATE DATABASE $scratch"
    psql_ -d "$scratch" -f "$f" >/dev/null
    psql_ -d "$scratch" -c "ALTER SCHEMA public RENAME TO \"$name\""
    dump_ -d "$scratch" -n "\"$name\"" --no-owner | psql_ -d "$target" >/dev/null
    if psql_ -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$prefix$name'" | grep -q 1; then
        psql_ -d "$prefix$name" -c "\\copy (SELECT '$name', table_name, column_name, value, embedding, model FROM nl2sql.value_index WHERE table_schema = 'public') TO STDOUT" \
            | psql_ -d "$target" -c "\\copy nl2sql.value_index (table_schema, table_name, column_name, value, embedding, model) FROM STDIN"
        psql_ -d "$prefix$name" -c "\\copy (SELECT '$name', table_name, column_name, status, reason, distinct_values, indexed_values, model, changes_at_refresh FROM nl2sql.value_columns WHERE table_schema = 'public') TO STDOUT" \
            | psql_ -d "$target" -c "\\copy nl2sql.value_columns (table_schema, table_name, column_name, status, reason, distinct_values, indexed_values, model, changes_at_refresh) FROM STDIN"
    fi
done
psql_ -d postgres -c "DROP DATABASE IF EXISTS $scratch"
psql_ -d "$target" -c "ANALYZE"
log "$target ready: $(psql_ -d "$target" -tAc "SELECT count(*) || ' tables in ' || count(DISTINCT table_schema) || ' schemas' FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema', 'nl2sql', 'public')")"
