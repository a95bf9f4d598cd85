#!/usr/bin/env bash
# Command 1: the main job. Sets up what is missing, builds and installs the extension, starts the
# local cluster and the local model, loads the sample bookshop database and puts nl2sql to work.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$NL2SQL_REPO"

"$NL2SQL_REPO/scripts/setup.sh" all

log "building and installing the extension (release)"
(cd extension && cargo pgrx install --release --pg-config "$PG_CONFIG" >/dev/null)

"$NL2SQL_REPO/scripts/cluster.sh" start
"$NL2SQL_REPO/scripts/llm.sh" start

psql_demo() { "$NL2SQL_REPO/scripts/cluster.sh" psql -X -v ON_ERROR_STOP=1 -d "$NL2SQL_DB" "$@"; }

if ! "$NL2SQL_REPO/scripts/cluster.sh" psql -X -tAc "SELECT 1 FROM pg_database WHERE datname = '$NL2SQL_DB'" -d postgres | grep -q 1; then
    log "loading the sample database $NL2SQL_DB (sample/bookshop.sql)"
    "$NL2SQL_REPO/scripts/cluster.sh" psql -X -qc "CREATE DATABASE $NL2SQL_DB" -d postgres
    psql_demo -q -f "$NL2SQL_REPO/sample/bookshop.sql"
fi
# the freshly built version: recreate the extension (the demo's audit log starts over)
psql_demo -q -c "DROP EXTENSION IF EXISTS nl2sql" -c "CREATE EXTENSION nl2sql CASCADE" 2>&1 | grep -v NOTICE || true

log "asking the sample database"
psql_demo -f "$NL2SQL_REPO/sample/demo.sql"

cat <<MSG

The cluster and the model servers keep running:
  scripts/cluster.sh psql -d $NL2SQL_DB     # try it yourself
  scripts/cluster.sh stop; scripts/llm.sh stop
MSG
