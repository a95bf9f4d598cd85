#!/usr/bin/env python3
"""A held-out set's figures after reruns: the statuses of one unanswerable set's runs, later files
overriding earlier ones question by question (a first run, then reruns of the questions it did not
refuse, as `answerability -- statuses --ids` writes them), with refusals by kind and TrustSQL's
reliability score computed as `bench/answerability.rs` (statuses mode) does: Benchmark 2's recorded
answerable runs (`b2_train_v060_time.jsonl`, `b2_dev_v060_time.jsonl`, config full) with the merged
unanswerable statuses. No database, no model.

    python3 bench/rs_merged.py bench/results/answerability_statuses_train6_54455aa.jsonl \
        bench/results/answerability_statuses_train6_left_33cf34d.jsonl
"""
import collections
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main(files):
    print("command: python3 bench/rs_merged.py " + " ".join(files))
    merged = {}
    for f in files:
        for line in open(f):
            r = json.loads(line)
            merged[r["id"]] = r
    by_kind = collections.defaultdict(lambda: [0, 0])
    by_status = collections.Counter()
    for r in merged.values():
        by_kind[r["kind"]][1] += 1
        by_kind[r["kind"]][0] += r["status"] == "unanswerable"
        by_status[r["status"]] += 1
    refused = sum(v[0] for v in by_kind.values())
    print(f"\n{len(merged)} questions, {refused} refused ({100 * refused / max(len(merged), 1):.1f}%)")
    print("| kind | refused | questions |\n|---|---|---|")
    for k, (n, t) in sorted(by_kind.items()):
        print(f"| {k} | {n} | {t} |")
    print("\n| status | questions |\n|---|---|")
    for s, n in sorted(by_status.items()):
        print(f"| {s} | {n} |")
    statuses = [r["status"] for r in merged.values()]

    def holds_sql(s, only_ok):
        return s == "ok" if only_ok else s in ("ok", "unverified", "ambiguous")

    print("\n| answerable set | policy | RS(0) | RS(10) | RS(N) |\n|---|---|---|---|---|")
    for name, file in (("spider_train", "b2_train_v060_time.jsonl"), ("spider", "b2_dev_v060_time.jsonl")):
        answerable = [json.loads(l) for l in open(os.path.join(HERE, "results", file))]
        answerable = [(r.get("status") or "none", r.get("strict") is True) for r in answerable if r.get("config") == "full"]
        for policy, only_ok in (("every status with SQL (default)", False), ("only ok (answer_unverified off)", True)):
            outcomes = ["abstained" if not holds_sql(s, only_ok) else "right" if right else "wrong" for s, right in answerable]
            outcomes += ["wrong" if holds_sql(s, only_ok) else "right" for s in statuses]
            n = len(outcomes)

            def rs(c):
                return 100.0 * sum(1.0 if o == "right" else -c if o == "wrong" else 0.0 for o in outcomes) / n

            print(f"| {name} | {policy} | {rs(0):.1f} | {rs(10):.1f} | {rs(n):.1f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
