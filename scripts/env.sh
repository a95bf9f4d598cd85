# Shared settings of the project's scripts. Source it; every value can be overridden from the environment.
# shellcheck shell=bash
NL2SQL_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Working area of this checkout: cluster data, logs, pid files. Ignored by git.
NL2SQL_WORK="${NL2SQL_WORK:-$NL2SQL_REPO/.work}"
# Downloads and assembled model files, shared by every checkout on the machine.
NL2SQL_CACHE="${NL2SQL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nl2sql}"
NL2SQL_VENV="${NL2SQL_VENV:-$NL2SQL_CACHE/venv}"
NL2SQL_MODELS="${NL2SQL_MODELS:-$NL2SQL_CACHE/models}"
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
PG_CONFIG="${PG_CONFIG:-$PG_BIN/pg_config}"
NL2SQL_PGPORT="${NL2SQL_PGPORT:-54815}"
NL2SQL_PGDATA="${NL2SQL_PGDATA:-$NL2SQL_WORK/pgdata}"
NL2SQL_DB="${NL2SQL_DB:-nl2sql_demo}"
# Model servers (OpenAI-compatible): chat on one port, embeddings on another.
NL2SQL_CHAT_PORT="${NL2SQL_CHAT_PORT:-18081}"
NL2SQL_EMBED_PORT="${NL2SQL_EMBED_PORT:-18082}"
# Which chat model the server loads: 1.5b (default) or 0.5b (fast tests).
NL2SQL_CHAT_MODEL="${NL2SQL_CHAT_MODEL:-1.5b}"
NL2SQL_LLM_THREADS="${NL2SQL_LLM_THREADS:-2}"

# cargo installs into ~/.cargo/bin, which a non-login shell may not have on its PATH
case ":$PATH:" in *":$HOME/.cargo/bin:"*) ;; *) [ -d "$HOME/.cargo/bin" ] && PATH="$HOME/.cargo/bin:$PATH" ;; esac
export PATH

log() { printf '\033[1m[nl2sql]\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31m[nl2sql] error:\033[0m %s\n' "$*" >&2; exit 1; }
as_postgres() { sudo -u postgres -H -- "$@"; }
