#!/usr/bin/env bash
# The fuzzers of nl2sql-core's entry points that read user text or SQL (cargo-fuzz, libFuzzer):
#   question  constraint extraction and the lexicon (nl2sql_verify's question)
#   sql       the SQL gate (parse, one read-only statement) and the facts read from it
#   checks    every check of a question and a SQL over a scripted database
#   fix       the mechanical fix stage over a question and a SQL
# A crash (panic) stops the run and leaves its input under fuzz/artifacts/<target>/.
#   scripts/fuzz.sh [RUNS] [TARGET...]   RUNS executions per target (default 10000000), every target by default
#   NL2SQL_FUZZ_JOBS=N scripts/fuzz.sh ...  N libFuzzer processes per target over one shared corpus (each runs
#                                          RUNS/N executions, picking up the others' new inputs); default 1
#   NL2SQL_FUZZ_TRACE_COMPARES=0 scripts/fuzz.sh ...  builds without libFuzzer's comparison tracing
#                                          (cargo fuzz build --no-trace-compares): about 1.6x the executions
#                                          per second, mutations no longer guided by the values compared;
#                                          for long runs over a corpus grown with it (default 1: traced)
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
jobs="${NL2SQL_FUZZ_JOBS:-1}"
trace=()
case "${NL2SQL_FUZZ_TRACE_COMPARES:-1}" in
    1) ;;
    0) trace=(--no-trace-compares) ;;
    *) die "NL2SQL_FUZZ_TRACE_COMPARES must be 1 or 0, not '${NL2SQL_FUZZ_TRACE_COMPARES}'" ;;
esac
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "NL2SQL_FUZZ_JOBS must be a positive number, not '$jobs'"
for t in "${targets[@]}"; do
    log "fuzz target $t: $runs executions ($jobs process(es)${trace:+, ${trace[*]}})"
    # libFuzzer writes a crashing input under the artifact prefix and refuses to start without it
    mkdir -p "corpus/$t" "artifacts/$t"
    mkdir -p "$NL2SQL_WORK"
    start=$(date +%s)
    cargo fuzz build -s none -O ${trace[@]+"${trace[@]}"} "$t" >"$NL2SQL_WORK/fuzz-$t-build.log" 2>&1 || { tail -20 "$NL2SQL_WORK/fuzz-$t-build.log" >&2; die "fuzz target $t does not build"; }
    bin="target/$(rustc -vV | sed -n 's/^host: //p')/release/$t"
    per=$(( (runs + jobs - 1) / jobs ))
    pids=()
    for j in $(seq 1 "$jobs"); do
        out="$NL2SQL_WORK/fuzz-$t.log"
        [ "$jobs" -eq 1 ] || out="$NL2SQL_WORK/fuzz-$t-$j.log"
        "$bin" "corpus/$t" -runs="$per" -max_len=512 -timeout=10 -print_final_stats=1 -artifact_prefix="artifacts/$t/" >"$out" 2>&1 &
        pids+=($!)
    done
    failed=0
    for p in "${pids[@]}"; do wait "$p" || failed=1; done
    logs=("$NL2SQL_WORK"/fuzz-"$t".log)
    [ "$jobs" -eq 1 ] || logs=("$NL2SQL_WORK"/fuzz-"$t"-[0-9]*.log)
    if [ "$failed" -ne 0 ]; then
        if grep -q "libFuzzer: run interrupted" "${logs[@]}"; then
            grep -E "^stat::number_of_executed_units" "${logs[@]}" >&2 || true
            die "fuzz target $t was interrupted before $runs executions, without a crash (logs: ${logs[*]})"
        fi
        grep -E "panicked|SUMMARY|Test unit written" "${logs[@]}" >&2 || tail -20 "${logs[@]}" >&2
        die "fuzz target $t crashed: its input is under fuzz/artifacts/$t/ (logs: ${logs[*]})"
    fi
    grep -E "^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)" "${logs[@]}" || true
    total=$(grep -h "^stat::number_of_executed_units" "${logs[@]}" | awk '{s += $2} END {print s}')
    log "fuzz target $t: $total executions without a crash in $(( $(date +%s) - start )) s"
done
