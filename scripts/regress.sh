#!/usr/bin/env bash
# The SQL regression tests: extension/tests/pg_regress/sql/*.sql run by PostgreSQL's pg_regress
# against expected/*.out, on a throwaway cluster of their own, with the nl2sql build installed in
# this PostgreSQL's directories. The files are the layout `cargo pgrx regress` reads; that command
# starts its cluster as the calling user, which cannot be root, so the test command runs pg_regress
# itself, as `postgres`.
# Then the hot-standby suite, extension/tests/standby: a standby of that cluster (pg_basebackup -R)
# answers the same database; it needs the embedding server (the value index is built on the
# primary first) and, for standby_model, the chat server: scripts/llm.sh start.
#   scripts/regress.sh            run every test (setup first)
#   scripts/regress.sh --accept   also copy each result over its expected output (review the diff)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$NL2SQL_REPO"

accept=false
[ "${1:-}" = "--accept" ] && accept=true

suite="$NL2SQL_REPO/extension/tests/pg_regress"
area="$NL2SQL_WORK/regress"
port="${NL2SQL_REGRESS_PORT:-54816}"
pg_regress="$("$PG_CONFIG" --pkglibdir)/pgxs/src/test/regress/pg_regress"
[ -x "$pg_regress" ] || die "pg_regress not found at $pg_regress (package postgresql-server-dev-15)"

primary="$area/primary"
standby="$area/standby"
added=()
stop_all() {
    for d in "$standby" "$primary"; do
        [ -f "$d/postmaster.pid" ] && as_postgres "$PG_BIN/pg_ctl" -D "$d" -m immediate -w stop >/dev/null 2>&1 || true
    done
    for f in "${added[@]}"; do rm -f "$f"; done
}
trap stop_all EXIT
stop_all
rm -rf "$area" && mkdir -p "$area" && chown postgres "$area" && chmod 700 "$area"

log "regression cluster on 127.0.0.1:$port ($primary)"
as_postgres "$PG_BIN/initdb" -D "$primary" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
cat >> "$primary/postgresql.conf" <<CONF
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$area'
# quiet and stable output
lc_messages = 'C'
# the chat model the local server serves (scripts/llm.sh)
nl2sql.llm_model = 'qwen2.5-coder-$NL2SQL_CHAT_MODEL-instruct'
CONF
# RUST_BACKTRACE=1 as a DBA might set it: executor.sql checks no backtrace reaches a client
as_postgres env RUST_BACKTRACE=1 "$PG_BIN/pg_ctl" -D "$primary" -l "$area/primary.log" -w -t 60 start >/dev/null ||
    die "the regression cluster did not start; see $area/primary.log"

# setup first, then the others in name order
tests=(setup)
for f in "$suite"/sql/*.sql; do
    name=$(basename "$f" .sql)
    [ "$name" = setup ] || tests+=("$name")
done

# run_suite NAME DIR PORT DATABASE PG_REGRESS_ARGS... TESTS...
run_suite() {
    local name=$1 dir=$2 port=$3 db=$4; shift 4
    local out="$area/out-$name" status=0 arg
    mkdir -p "$out" && chown postgres "$out"
    if $accept; then  # a new test starts from an empty expected output
        mkdir -p "$dir/expected"
        for arg in "$@"; do
            case "$arg" in --*) ;; *) [ -f "$dir/expected/$arg.out" ] || : > "$dir/expected/$arg.out" ;; esac
        done
    fi
    log "pg_regress ($name): ${*}"
    as_postgres "$pg_regress" --host=127.0.0.1 --port="$port" --user=postgres --dbname="$db" \
        --inputdir="$dir" --outputdir="$out" "$@" || status=$?
    [ "$status" -eq 0 ] && return 0
    [ -f "$out/regression.diffs" ] && cat "$out/regression.diffs"
    if $accept; then
        for f in "$out"/results/*.out; do cp "$f" "$dir/expected/"; done
        log "accepted the $name results as expected output: review them with git diff"
        return 0
    fi
    die "SQL regression tests ($name) failed (diffs above; results in $out/results)"
}
run_suite primary "$suite" "$port" nl2sql_regress "${tests[@]}"

# the upgrade from each archived release: its full script is put beside the installed build for
# the test, and taken away after
extdir="$("$PG_CONFIG" --sharedir)/extension"
for old in "$NL2SQL_REPO"/extension/sql/archive/nl2sql--*.sql; do
    [ -e "$extdir/$(basename "$old")" ] && continue
    cp "$old" "$extdir/"
    added+=("$extdir/$(basename "$old")")
done
upgrade_suite="$NL2SQL_REPO/extension/tests/upgrade"
run_suite upgrade "$upgrade_suite" "$port" nl2sql_upgrade upgrade

log "a hot standby of the regression cluster on 127.0.0.1:$((port + 1))"
psql -X -q -h 127.0.0.1 -p "$port" -U postgres -d nl2sql_regress -v ON_ERROR_STOP=1 \
    -c "SET client_min_messages = warning" -c "SELECT nl2sql_index_values('customers')" >/dev/null ||
    die "could not build the value index on the primary (is the embedding server up? scripts/llm.sh start)"
as_postgres "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$port" -U postgres -D "$standby" -R -X stream -c fast
cat >> "$standby/postgresql.conf" <<CONF
port = $((port + 1))
hot_standby = on
CONF
as_postgres "$PG_BIN/pg_ctl" -D "$standby" -l "$area/standby.log" -w -t 60 start >/dev/null ||
    die "the standby did not start; see $area/standby.log"
standby_suite="$NL2SQL_REPO/extension/tests/standby"
standby_tests=(standby)
[ "${NL2SQL_REGRESS_MODEL:-0}" = 1 ] && standby_tests+=(standby_model)
run_suite standby "$standby_suite" "$((port + 1))" nl2sql_regress --use-existing "${standby_tests[@]}"
grep -q "nl2sql run .* step 1:" "$area/standby.log" || die "the standby's server log holds no audited nl2sql run"
log "SQL regression tests passed (primary and hot standby)"
