#!/usr/bin/env bash
# Start, stop or check the local model servers: a chat model and the embedding model.
#   scripts/llm.sh start|stop|status|restart
#   scripts/llm.sh stop chat|embed      one of them
#   scripts/llm.sh serving chat|embed   the model a server serves, nothing when it is down
# NL2SQL_CHAT_MODEL=0.5b|1.5b picks the chat model (default 1.5b); ports NL2SQL_CHAT_PORT / NL2SQL_EMBED_PORT.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

# The servers are a machine-wide resource bound to their ports, shared by every checkout: their
# pid files and logs live in the shared cache, so any checkout can stop or switch them.
RUN="$NL2SQL_CACHE/run"
mkdir -p "$RUN"

chat_file() {
    awk -v k="$NL2SQL_CHAT_MODEL" -F'\t' '$1==k {print $2}' "$NL2SQL_REPO/scripts/models.txt"
}
chat_alias() { echo "qwen2.5-coder-$NL2SQL_CHAT_MODEL-instruct"; }

healthy() { curl -fsS -m 2 "http://127.0.0.1:$1/health" 2>/dev/null | grep -q '"ok"'; }

serving_alias() {  # the model name a running chat server reports
    curl -fsS -m 2 "http://127.0.0.1:$1/v1/models" 2>/dev/null |
        "$NL2SQL_VENV/bin/python" -c 'import json,sys; print(json.load(sys.stdin)["data"][0]["id"])' 2>/dev/null || true
}

start_one() {  # name port args...
    local name=$1 port=$2; shift 2
    local pidfile="$RUN/$name.pid"
    if healthy "$port"; then return 0; fi
    if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
        log "$name server (pid $(cat "$pidfile")) is starting"
    else
        log "starting $name server on 127.0.0.1:$port"
        nohup "$NL2SQL_VENV/bin/python" "$NL2SQL_REPO/scripts/model_server.py" --port "$port" "$@" \
            > "$RUN/$name-server.log" 2>&1 &
        echo $! > "$pidfile"
    fi
    local i
    for ((i = 0; i < 240; i++)); do
        healthy "$port" && { log "$name server is up on port $port"; return 0; }
        kill -0 "$(cat "$pidfile")" 2>/dev/null || die "$name server exited; see $RUN/$name-server.log"
        sleep 0.5
    done
    die "$name server did not become healthy in 120 s; see $RUN/$name-server.log"
}

stop_one() {
    local name=$1 pidfile="$RUN/$1.pid"
    if [ -f "$pidfile" ]; then
        local pid; pid=$(cat "$pidfile")
        if kill -0 "$pid" 2>/dev/null; then
            kill "$pid"
            for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
            kill -9 "$pid" 2>/dev/null || true
            log "stopped $name server"
        fi
        rm -f "$pidfile"
    fi
}

start() {
    local file; file=$(chat_file)
    [ -n "$file" ] || die "unknown NL2SQL_CHAT_MODEL=$NL2SQL_CHAT_MODEL"
    [ -f "$NL2SQL_MODELS/$file" ] || NL2SQL_SETUP_MODELS="$NL2SQL_CHAT_MODEL" "$NL2SQL_REPO/scripts/setup.sh" models
    local running; running=$(serving_alias "$NL2SQL_CHAT_PORT")
    if [ -n "$running" ] && [ "$running" != "$(chat_alias)" ]; then
        log "chat server runs $running; switching to $(chat_alias)"
        stop_one chat
        if healthy "$NL2SQL_CHAT_PORT"; then
            die "port $NL2SQL_CHAT_PORT is served by a process nl2sql's scripts did not start (model $running); stop it, or set NL2SQL_CHAT_PORT"
        fi
    fi
    start_one chat "$NL2SQL_CHAT_PORT" --model "$NL2SQL_MODELS/$file" --alias "$(chat_alias)" \
        --ctx 8192 --parallel 2 --threads "$NL2SQL_LLM_THREADS"
    start_one embed "$NL2SQL_EMBED_PORT" --model "$NL2SQL_MODELS/all-minilm-l6-v2-f16.gguf" \
        --alias all-minilm-l6-v2 --embedding --ctx 4096 --parallel 8 --threads "$NL2SQL_LLM_THREADS"
}

status() {
    local rc=0
    if healthy "$NL2SQL_CHAT_PORT"; then
        echo "chat:  up on 127.0.0.1:$NL2SQL_CHAT_PORT, model $(serving_alias "$NL2SQL_CHAT_PORT")"
    else echo "chat:  down (port $NL2SQL_CHAT_PORT)"; rc=3; fi
    if healthy "$NL2SQL_EMBED_PORT"; then
        echo "embed: up on 127.0.0.1:$NL2SQL_EMBED_PORT, model $(serving_alias "$NL2SQL_EMBED_PORT")"
    else echo "embed: down (port $NL2SQL_EMBED_PORT)"; rc=3; fi
    return $rc
}

case "${1:-status}" in
    start) start ;;
    stop)
        case "${2:-both}" in
            chat | embed) stop_one "$2" ;;
            both) stop_one chat; stop_one embed ;;
            *) die "usage: $0 stop [chat|embed]" ;;
        esac ;;
    serving)
        case "${2:-}" in
            chat) serving_alias "$NL2SQL_CHAT_PORT" ;;
            embed) serving_alias "$NL2SQL_EMBED_PORT" ;;
            *) die "usage: $0 serving chat|embed" ;;
        esac ;;
    restart) stop_one chat; stop_one embed; start ;;
    status) status ;;
    *) die "usage: $0 start|stop [chat|embed]|status|restart|serving chat|embed" ;;
esac
