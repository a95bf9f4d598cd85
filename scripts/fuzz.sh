#!/usr/bin/env bash
# The fuzzers of nl2sql-core's entry points that read user text or SQL (cargo-fuzz, libFuzzer):
#   question  constraint extraction and the lexicon (nl2sql_verify's question)
#   sql       the SQL gate (parse, one read-only statement) and the facts read from it
#   checks    every check of a question and a SQL over a scripted database
#   fix       the mechanical fix stage over a question and a SQL
# A crash (panic) stops the run and leaves its input under fuzz/artifacts/<target>/.
#   scripts/fuzz.sh [RUNS] [TARGET...]   RUNS executions per target (default 10000000), every target by default
# Installs cargo-fuzz when missing; needs a nightly-capable rustc (RUSTC_BOOTSTRAP=1 is set
# here: the sanitizer flags are nightly-only; -s none builds without a sanitizer, as safe Rust needs).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$NL2SQL_REPO/fuzz"
if ! command -v cargo-fuzz >/dev/null; then
    log "installing cargo-fuzz 0.13.2"
    cargo install cargo-fuzz --version 0.13.2 --locked >/dev/null
fi
runs="${1:-10000000}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(question sql checks fix)
export RUSTC_BOOTSTRAP=1
for t in "${targets[@]}"; do
    log "fuzz target $t: $runs executions"
    mkdir -p "corpus/$t"
    start=$(date +%s)
    out="$NL2SQL_WORK/fuzz-$t.log"
    mkdir -p "$NL2SQL_WORK"
    if ! cargo fuzz run -s none -O "$t" "corpus/$t" -- -runs="$runs" -max_len=512 -timeout=10 -print_final_stats=1 >"$out" 2>&1; then
        if grep -q "libFuzzer: run interrupted" "$out"; then
            grep -E "^stat::number_of_executed_units" "$out" >&2 || true
            die "fuzz target $t was interrupted before $runs executions, without a crash (log: $out)"
        fi
        grep -E "panicked|SUMMARY|Test unit written" "$out" >&2 || tail -20 "$out" >&2
        die "fuzz target $t crashed: its input is under fuzz/artifacts/$t/ (log: $out)"
    fi
    grep -E "^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)" "$out" || true
    log "fuzz target $t: $runs executions without a crash in $(( $(date +%s) - start )) s"
done
