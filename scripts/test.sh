#!/usr/bin/env bash
# Command 2: every test. Sets up what is missing, starts the fast local model, then runs
#   1. the pure-Rust unit tests (cargo test, no cluster), and a check that the decision code builds
#      without the HTTP clients,
#   2. the integration tests in pgrx-tests/ against pgrx's test cluster and the real model,
#   3. the SQL regression tests (scripts/regress.sh): pg_regress files a DBA can read, on a cluster
#      of their own, then an upgrade from the previous release and a hot standby of that cluster.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$NL2SQL_REPO"

NL2SQL_SETUP_MODELS="0.5b" "$NL2SQL_REPO/scripts/setup.sh" all

# What runs when the tests end, however they end (one EXIT trap; each step adds to it).
on_exit=()
at_exit() { local step; for step in "${on_exit[@]}"; do "$step" || true; done; }
trap at_exit EXIT

# The tests use the fast chat model. The model servers are left as they were found: a server
# these tests started is stopped at the end, a chat server that served another model is switched
# back to it, a server that was already up stays up.
chat_before=$("$NL2SQL_REPO/scripts/llm.sh" serving chat)
embed_before=$("$NL2SQL_REPO/scripts/llm.sh" serving embed)
restore_servers() {
    case "$chat_before" in
        "") "$NL2SQL_REPO/scripts/llm.sh" stop chat ;;
        qwen2.5-coder-0.5b-instruct) ;;
        qwen2.5-coder-*-instruct)
            local size=${chat_before#qwen2.5-coder-}
            log "switching the chat server back to $chat_before, as it was before the tests"
            NL2SQL_CHAT_MODEL=${size%-instruct} "$NL2SQL_REPO/scripts/llm.sh" start ;;
    esac
    [ -n "$embed_before" ] || "$NL2SQL_REPO/scripts/llm.sh" stop embed
}
on_exit+=(restore_servers)
NL2SQL_CHAT_MODEL=0.5b "$NL2SQL_REPO/scripts/llm.sh" start

log "the served embedding model against a numpy reference of the original weights"
"$NL2SQL_VENV/bin/python" "$NL2SQL_REPO/scripts/check_embedding.py" "$NL2SQL_CACHE/minilm/model" \
    "http://127.0.0.1:$NL2SQL_EMBED_PORT/v1"

log "unit tests (nl2sql-core)"
cargo test -p nl2sql-core
log "the decision code builds without any HTTP client (feature http off)"
cargo check -p nl2sql-core --no-default-features --lib

# `cargo pgrx test` installs its debug build into the server's directories, which the project
# cluster (scripts/demo.sh) and any other cluster of this PostgreSQL share: keep whatever build was
# installed before, and put it back when the tests end, however they end.
pkglib=$("$PG_CONFIG" --pkglibdir)
extdir="$("$PG_CONFIG" --sharedir)/extension"
saved="$NL2SQL_WORK/installed-build"
if [ -f "$pkglib/nl2sql.so" ]; then
    rm -rf "$saved" && mkdir -p "$saved/lib" "$saved/extension"
    cp -p "$pkglib/nl2sql.so" "$saved/lib/"
    cp -p "$extdir"/nl2sql.control "$extdir"/nl2sql--*.sql "$saved/extension/"
    restore_installed() {
        rm -f "$extdir"/nl2sql--*.sql
        cp -p "$saved/lib/nl2sql.so" "$pkglib/"
        cp -p "$saved/extension/"* "$extdir/"
        log "restored the nl2sql build that was installed before the tests ($pkglib/nl2sql.so)"
    }
    on_exit=(restore_installed "${on_exit[@]}")
fi

log "integration tests (pgrx test cluster, PostgreSQL 15)"
export CARGO_PGRX_TEST_RUNAS=postgres
export CARGO_PGRX_TEST_PGDATA="$NL2SQL_WORK/pgrx-test-data"
mkdir -p "$CARGO_PGRX_TEST_PGDATA"
chown postgres "$CARGO_PGRX_TEST_PGDATA"
(cd extension && cargo pgrx test pg15 "$@")

# the SQL tests run against the build a user installs: cargo pgrx test left its pg_test build
log "SQL regression tests (pg_regress; upgrade; hot standby), with the debug build installed"
(cd extension && cargo pgrx install --pg-config "$PG_CONFIG" >/dev/null)
NL2SQL_CHAT_MODEL=0.5b NL2SQL_REGRESS_MODEL=1 "$NL2SQL_REPO/scripts/regress.sh"
