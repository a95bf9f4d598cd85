#!/usr/bin/env bash
# Command 2: every test. Sets up what is missing, starts the fast local model, then runs
#   1. the pure-Rust unit tests (cargo test, no cluster), and a check that the decision code builds
#      without the HTTP clients,
#   2. the integration tests in pgrx-tests/ against pgrx's test cluster and the real model.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$NL2SQL_REPO"

NL2SQL_SETUP_MODELS="0.5b" "$NL2SQL_REPO/scripts/setup.sh" all
NL2SQL_CHAT_MODEL=0.5b "$NL2SQL_REPO/scripts/llm.sh" start

log "the served embedding model against a numpy reference of the original weights"
"$NL2SQL_VENV/bin/python" "$NL2SQL_REPO/scripts/check_embedding.py" "$NL2SQL_CACHE/minilm/model" \
    "http://127.0.0.1:$NL2SQL_EMBED_PORT/v1"

log "unit tests (nl2sql-core)"
cargo test -p nl2sql-core
log "the decision code builds without any HTTP client (feature http off)"
cargo check -p nl2sql-core --no-default-features --lib

log "integration tests (pgrx test cluster, PostgreSQL 15)"
export CARGO_PGRX_TEST_RUNAS=postgres
export CARGO_PGRX_TEST_PGDATA="$NL2SQL_WORK/pgrx-test-data"
mkdir -p "$CARGO_PGRX_TEST_PGDATA"
chown postgres "$CARGO_PGRX_TEST_PGDATA"
cd extension
cargo pgrx test pg15 "$@"
