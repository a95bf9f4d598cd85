#!/usr/bin/env python3
"""The most that reusing taught examples can add in a Benchmark 11 run (`learning`'s raw results), and what the
run's k > 0 answers gained and lost, by where they came from. Standard library only:

    bench/reuse_ceiling.py bench/results/learning_v8_train.jsonl [MORE.jsonl ...]

For each file and each k > 0 against k = 0 on the same questions:
- wrong at k = 0: the questions the default got wrong with nothing taught;
- of those, gold taught: a taught example's gold SQL is the question's own (`same_sql_taught`, whitespace and case
  aside): the only questions a taught example answers by being asked again. With every one of them recognised
  and right, and no loss anywhere else, the gain is the ceiling of reuse, in points of all the questions asked;
- wins and losses of the run, split by whether a taught example's gold was the question's own: the rest is what
  the examples shown in a prompt (or the model's run-to-run noise) changed.
A gain beyond the ceiling must come from examples shown in a prompt making fresh generations right.
"""
import json
import sys
from collections import defaultdict


def main(paths):
    for path in paths:
        by_k = defaultdict(dict)
        for line in open(path):
            line = line.strip()
            if not line:
                continue
            r = json.loads(line)
            if r.get("glossary"):
                continue
            by_k[r["k"]][(r["db"], r["question_id"])] = r
        if 0 not in by_k:
            print(f"{path}: no k = 0 rows; nothing to pair")
            continue
        base = by_k[0]
        for k in sorted(by_k):
            if k == 0:
                continue
            common = [q for q in by_k[k] if q in base]
            n = len(common)
            wrong0 = [q for q in common if not base[q]["strict"]]
            taught = [q for q in wrong0 if by_k[k][q]["same_sql_taught"]]
            split = {True: [0, 0], False: [0, 0]}
            for q in common:
                before, after = base[q]["strict"], by_k[k][q]["strict"]
                if before != after:
                    split[by_k[k][q]["same_sql_taught"]][0 if after else 1] += 1
            print(
                f"{path}: k = {k}, {n} questions, wrong at k = 0: {len(wrong0)}, of which gold taught: {len(taught)}; "
                f"ceiling of reuse {100 * len(taught) / n:+.1f} points; "
                f"the run: gold taught {split[True][0]} wins / {split[True][1]} losses, "
                f"the rest {split[False][0]} wins / {split[False][1]} losses"
            )


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
