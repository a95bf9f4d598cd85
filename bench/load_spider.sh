#!/usr/bin/env bash
# Load the Spider dev databases (../shared/data/spider/pg/*.sql) into the project's cluster as
# spider_<db>, each with the nl2sql extension. Idempotent: existing databases are kept, the
# extension is recreated (so it matches the installed build).
#   bench/load_spider.sh [DATA_DIR]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/env.sh"
data="${1:-$NL2SQL_REPO/../shared/data}"
"$NL2SQL_REPO/scripts/cluster.sh" start
psql_() { "$NL2SQL_REPO/scripts/cluster.sh" psql -X -q -v ON_ERROR_STOP=1 "$@"; }
for f in "$data"/spider/pg/*.sql; do
    db="spider_$(basename "$f" .sql)"
    if ! psql_ -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$db'" | grep -q 1; then
        log "loading $db"
        psql_ -d postgres -c "CREATE DATABASE $db"
        psql_ -d "$db" -f "$f" >/dev/null
        psql_ -d "$db" -c "ANALYZE"
    fi
    psql_ -d "$db" -c "DROP EXTENSION IF EXISTS nl2sql" -c "CREATE EXTENSION nl2sql CASCADE" 2>&1 | grep -v NOTICE || true
done
log "Spider databases ready"
