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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tune", nargs="+", default=TUNE)
    ap.add_argument("--measure", nargs="+", default=MEASURE)
    ap.add_argument("--then", nargs="*", default=[], help="newer runs, applied to both halves after the chains")
    ap.add_argument("--held-out", default=",".join(map(str, HELD_OUT)),
                    help="measuring ids a rule read off that half refuses (comma-separated)")
    ap.add_argument("--list", action="store_true", help="print each half's questions not refused")
    ap.add_argument("-q", "--quiet", action="store_true")
    a = ap.parse_args()
    held = {int(x) for x in a.held_out.split(",") if x}
    print("command: bench/splice_statuses.py " + " ".join(
        (["--then"] + a.then) if a.then else []))
    for half, files in (("tune", a.tune + a.then), ("measure", a.measure + a.then)):
        latest = splice(files, half, not a.quiet)
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


if __name__ == "__main__":
    main()
