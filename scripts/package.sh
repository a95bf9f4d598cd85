#!/usr/bin/env bash
# A binary package of nl2sql for PostgreSQL 15 on this architecture: a tarball whose paths are the
# server's own (lib/ and share/extension/ under the pg_config of the build), for a server without
# Rust. Install it there with:  sudo tar -C / -xzf nl2sql-<version>-pg15-<arch>.tar.gz
# then CREATE EXTENSION nl2sql CASCADE (pgvector and pg_trgm must be installed on that server).
#   scripts/package.sh [OUT_DIR]      (default: target/package)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$NL2SQL_REPO"

out="${1:-$NL2SQL_REPO/target/package}"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
arch=$(uname -m)
tree="$out/nl2sql-pg15"
rm -rf "$tree" && mkdir -p "$out"

log "cargo pgrx package (release) into $tree"
(cd extension && cargo pgrx package --pg-config "$PG_CONFIG" --out-dir "$tree" >/dev/null)

# what a server needs, and nothing else
libdir="${tree}$("$PG_CONFIG" --pkglibdir)"
extdir="${tree}$("$PG_CONFIG" --sharedir)/extension"
for f in "$libdir/nl2sql.so" "$extdir/nl2sql.control" "$extdir/nl2sql--$version.sql"; do
    [ -s "$f" ] || die "the package lacks $f"
done
for up in extension/sql/nl2sql--*--*.sql; do
    [ -s "$extdir/$(basename "$up")" ] || die "the package lacks the upgrade script $(basename "$up")"
done
grep -q "default_version = '$version'" "$extdir/nl2sql.control" || die "the control file does not name version $version"
if nm -D --defined-only "$libdir/nl2sql.so" | grep -q "pg_test"; then die "the package holds a test build"; fi

tarball="$out/nl2sql-$version-pg15-$arch.tar.gz"
tar -C "$tree" -czf "$tarball" .
log "$tarball ($(du -h "$tarball" | cut -f1)):"
tar -tzf "$tarball" | grep -v '/$' | sed 's/^/  /'
