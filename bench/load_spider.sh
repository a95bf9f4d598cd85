#!/usr/bin/env bash
# Load Spider databases into the project's cluster, each with the nl2sql extension:
#   bench/load_spider.sh [--set spider|spider_train] [--index] [DATA_DIR]
# spider (default): the 13 dev databases of ../shared/data/spider/pg as spider_<db> (for measuring);
# spider_train: the 108 train databases of ../shared/data/spider_train/pg as train_<db> (for tuning).
# --index also builds each database's value index (nl2sql_index_values; the embedding server must
# be running: scripts/llm.sh start). Idempotent: existing databases are kept, the extension is
# recreated (so it matches the installed build), and the value index rebuilt only with --index.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/env.sh"
set_name=spider
index=0
data="$NL2SQL_REPO/../shared/data"
while [ $# -gt 0 ]; do
    case "$1" in
        --set) set_name=$2; shift ;;
        --index) index=1 ;;
        *) data=$1 ;;
    esac
    shift
done
case "$set_name" in
    spider) prefix=spider_ ;;
    spider_train) prefix=train_ ;;
    *) die "unknown set $set_name (spider or spider_train)" ;;
esac
"$NL2SQL_REPO/scripts/cluster.sh" start
psql_() { "$NL2SQL_REPO/scripts/cluster.sh" psql -X -q -v ON_ERROR_STOP=1 "$@"; }
for f in "$data/$set_name"/pg/*.sql; do
    db="$prefix$(basename "$f" .sql)"
    if ! psql_ -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$db'" | grep -q 1; then
        log "loading $db"
        psql_ -d postgres -c "CREATE DATABASE $db"
        psql_ -d "$db" -f "$f" >/dev/null
        psql_ -d "$db" -c "ANALYZE"
    fi
    psql_ -d "$db" -c "DROP EXTENSION IF EXISTS nl2sql" -c "CREATE EXTENSION nl2sql CASCADE" 2>&1 | grep -v NOTICE || true
    if [ "$index" = 1 ]; then
        psql_ -d "$db" -tAc "SELECT coalesce(sum(indexed_values), 0) || ' values indexed in $db' FROM nl2sql_index_values()" >&2
    fi
done
log "$set_name databases ready (${prefix}*)"
