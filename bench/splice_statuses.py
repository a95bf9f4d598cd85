#!/usr/bin/env python3
"""Benchmark 10, spliced: the latest recorded status of each unanswerable question, per half.

Each `answerability -- statuses` run records one row per question it asked (`bench/results/answerability_statuses_*.jsonl`).
Later runs ask again only the questions a change can reach, so the standing figure of a half is the status of each
question in the latest run that asked it. This program replays the files in the order given (oldest first), prints the
refused share of each half after each file, and the held-out figure of the measuring half (without the questions a
rule read off that half refuses, `--held-out`).

    bench/splice_statuses.py                      # the standing chain (the latest figures in docs/benchmarks.md)
    bench/splice_statuses.py --then FILE [...]    # the default chain, then newer runs
    bench/splice_statuses.py --tune F1 F2 --measure F3 F4
    bench/splice_statuses.py --answerable bench/results/b2_dev100_warm_X.jsonl [...]

With `--answerable`, TrustSQL's reliability score of each Benchmark 2 raw file (its `full` rows: the default) mixed
with the measuring half as spliced, as `answerability -- statuses` computes it: +1 an answerable question answered
right or an unanswerable one given no SQL, 0 an answerable one given no SQL, -c an answer that is wrong or SQL given
to an unanswerable question; under the default (every status but `error` and `unanswerable` hands SQL over) and with
`nl2sql.answer_unverified = off` (only `ok` does). N is the number of questions.
"""
import argparse
import collections
import json
import os

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")

TUNE = [
    "answerability_statuses_tune_a6d6f71.jsonl",
    "answerability_statuses_tune_left_rules.jsonl",
    "answerability_statuses_tune_rerun_dc551a7.jsonl",
    "answerability_statuses_tune_left_dcd241a.jsonl",
    "answerability_statuses_history_e4be094.jsonl",
    "answerability_statuses_unwritten_c90d508.jsonl",
    "answerability_statuses_of_each_45a6c06.jsonl",
    "answerability_statuses_tune_left_a75ad6e.jsonl",
]
MEASURE = [
    "answerability_statuses_measure_3f36e64.jsonl",
    "answerability_statuses_measure_left_rules.jsonl",
    "answerability_statuses_measure_left_a7d930a.jsonl",
    "answerability_statuses_history_e4be094.jsonl",
    "answerability_statuses_unwritten_c90d508.jsonl",
    "answerability_statuses_measure_left_a75ad6e.jsonl",
]
# The advice pattern ("how can/should X ...") was read off these three measuring questions (thirty-first session).
HELD_OUT = [141, 157, 291]


def path(name):
    return name if os.path.exists(name) else os.path.join(RESULTS, name)


def rows(name):
    with open(path(name)) as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def splice(files, half, verbose):
    latest = {}
    for name in files:
        for r in rows(name):
            if r.get("split") == half:
                latest[r["id"]] = r
        if verbose:
            c = collections.Counter(r["status"] for r in latest.values())
            print(f"  {half:8} after {os.path.basename(name):55} {c['unanswerable']:4} of {len(latest)}  {dict(c)}")
    return latest


def reliability(answerable, unanswerable):
    """Rows of RS(0), RS(10), RS(N) per policy: `answerable` is [(status, right)], `unanswerable` [status]."""
    out = []
    for policy, holds in (("every status with SQL (default)", {"ok", "unverified", "ambiguous"}),
                          ("only ok (answer_unverified off)", {"ok"})):
        outcomes = [("abstained" if s not in holds else "right" if right else "wrong") for s, right in answerable]
        outcomes += ["wrong" if s in holds else "right" for s in unanswerable]
        n = len(outcomes)
        c = collections.Counter(outcomes)
        rs = lambda pen: 100 * (c["right"] - pen * c["wrong"]) / n
        out.append((policy, c["right"], c["wrong"], c["abstained"], rs(0), rs(10), rs(n)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tune", nargs="+", default=TUNE)
    ap.add_argument("--measure", nargs="+", default=MEASURE)
    ap.add_argument("--then", nargs="*", default=[], help="newer runs, applied to both halves after the chains")
    ap.add_argument("--held-out", default=",".join(map(str, HELD_OUT)),
                    help="measuring ids a rule read off that half refuses (comma-separated)")
    ap.add_argument("--list", action="store_true", help="print each half's questions not refused")
    ap.add_argument("-q", "--quiet", action="store_true")
    ap.add_argument("--answerable", nargs="*", default=[],
                    help="Benchmark 2 raw files: the reliability score of each with the spliced measuring half")
    a = ap.parse_args()
    held = {int(x) for x in a.held_out.split(",") if x}
    print("command: bench/splice_statuses.py " + " ".join(
        ((["--then"] + a.then) if a.then else []) + ((["--answerable"] + a.answerable) if a.answerable else [])))
    measured = {}
    for half, files in (("tune", a.tune + a.then), ("measure", a.measure + a.then)):
        latest = splice(files, half, not a.quiet)
        if half == "measure":
            measured = latest
        n = len(latest)
        refused = [i for i, r in latest.items() if r["status"] == "unanswerable"]
        print(f"{half}: refused {len(refused)} of {n} ({100 * len(refused) / n:.1f}%)")
        if half == "measure" and held:
            kept = [i for i in refused if i not in held]
            print(f"measure, held out (without ids {sorted(held)}): {len(kept)} of {n} ({100 * len(kept) / n:.1f}%)")
        if a.list:
            for i, r in sorted(latest.items()):
                if r["status"] != "unanswerable":
                    print(f"    {i:4} {r['status']:11} {r['db']:28} {r['question']}")

    if a.answerable:
        unans = [r["status"] for r in measured.values()]
        print(f"\nTrustSQL reliability score (points), each answerable file's default runs with the {len(unans)} "
              "unanswerable questions of the measuring half as spliced:")
        print("| answerable file | policy | right | wrong | no SQL for an answerable one | RS(0) | RS(10) | RS(N) |")
        print("|---|---|---|---|---|---|---|---|")
        for name in a.answerable:
            answerable = [(r.get("status") or "none", r.get("strict") is True) for r in rows(name) if r.get("config") == "full"]
            for policy, right, wrong, abstained, r0, r10, rn in reliability(answerable, unans):
                print(f"| {os.path.basename(name)} ({len(answerable)}) | {policy} | {right} | {wrong} | {abstained} "
                      f"| {r0:.1f} | {r10:.1f} | {rn:.1f} |")


if __name__ == "__main__":
    main()
