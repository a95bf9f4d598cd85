#!/usr/bin/env bash
# The project's local PostgreSQL 15 cluster: run as `postgres`, private port, data inside .work/.
#   scripts/cluster.sh start|stop|status|psql [args...]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

SOCKDIR="$NL2SQL_WORK/run"
LOGFILE="$NL2SQL_WORK/postgresql.log"

prepare_dirs() {
    mkdir -p "$NL2SQL_WORK" "$SOCKDIR"
    chmod 755 "$NL2SQL_WORK"
    chown postgres "$SOCKDIR"
    # postgres must be able to reach the data directory through every parent
    local d="$NL2SQL_WORK"
    while [ "$d" != "/" ]; do
        [ -x "$d" ] || die "postgres cannot traverse $d"
        d=$(dirname "$d")
    done
}

init() {
    [ -f "$NL2SQL_PGDATA/PG_VERSION" ] && return 0
    prepare_dirs
    log "initdb $NL2SQL_PGDATA"
    mkdir -p "$NL2SQL_PGDATA"
    chown postgres "$NL2SQL_PGDATA"
    chmod 700 "$NL2SQL_PGDATA"
    # trust only on this machine's loopback and the private socket directory
    as_postgres "$PG_BIN/initdb" -D "$NL2SQL_PGDATA" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
    cat >> "$NL2SQL_PGDATA/postgresql.conf" <<CONF
# nl2sql's private cluster
port = $NL2SQL_PGPORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$SOCKDIR'
CONF
}

running() { as_postgres "$PG_BIN/pg_ctl" -D "$NL2SQL_PGDATA" status >/dev/null 2>&1; }

start() {
    init
    prepare_dirs
    running && return 0
    log "starting PostgreSQL on 127.0.0.1:$NL2SQL_PGPORT (data: $NL2SQL_PGDATA)"
    touch "$LOGFILE" && chown postgres "$LOGFILE"
    as_postgres "$PG_BIN/pg_ctl" -D "$NL2SQL_PGDATA" -l "$LOGFILE" -w -t 60 start >/dev/null ||
        die "PostgreSQL did not start; see $LOGFILE"
}

stop() {
    [ -f "$NL2SQL_PGDATA/PG_VERSION" ] && running || return 0
    as_postgres "$PG_BIN/pg_ctl" -D "$NL2SQL_PGDATA" -m fast -w stop >/dev/null
    log "stopped PostgreSQL"
}

status() {
    if [ -f "$NL2SQL_PGDATA/PG_VERSION" ] && running; then
        echo "postgres: up on 127.0.0.1:$NL2SQL_PGPORT, socket $SOCKDIR, data $NL2SQL_PGDATA"
    else
        echo "postgres: down (data $NL2SQL_PGDATA)"; return 3
    fi
}

cmd="${1:-status}"; shift || true
case "$cmd" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    psql) exec psql -h "$SOCKDIR" -p "$NL2SQL_PGPORT" -U postgres "$@" ;;
    pg_dump) exec pg_dump -h "$SOCKDIR" -p "$NL2SQL_PGPORT" -U postgres "$@" ;;
    *) die "usage: $0 start|stop|status|psql [args...]|pg_dump [args...]" ;;
esac
