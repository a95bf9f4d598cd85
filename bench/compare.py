#!/usr/bin/env python3
"""Paired comparison of two raw Benchmark 2 files (`ask_accuracy`'s NL2SQL_BENCH_OUT), on the questions
both hold. Standard library only:

    bench/compare.py BEFORE.jsonl AFTER.jsonl [--zero FILE]

For each configuration in both files: right (strict) before and after, wins / losses of AFTER against
BEFORE, the mean difference with a 95% interval (normal approximation of the paired differences), and
seconds per question. Then, for each file, the default (`full`) against `zero_shot` on the same questions:
strict difference with its interval, the time ratio, the `ok` share and how many `ok` answers are right.
`--zero FILE` takes the zero-shot rows from FILE when a run holds only `full` (zero-shot at temperature 0
is right on the same questions run after run; say so when you use it).
"""
import json, math, statistics as st, sys


def load(path):
    rows = {}
    for line in open(path):
        line = line.strip()
        if line:
            r = json.loads(line)
            rows[(r["question_id"], r["config"])] = r
    return rows


def interval(diffs):
    m = st.mean(diffs)
    se = st.pstdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0
    return 100 * m, 100 * (m - 1.96 * se), 100 * (m + 1.96 * se)


def paired(before, after):
    for cfg in sorted({k[1] for k in after} & {k[1] for k in before}):
        ks = sorted(k for k in after if k[1] == cfg and k in before)
        if not ks:
            continue
        wins = [k[0] for k in ks if after[k]["strict"] and not before[k]["strict"]]
        losses = [k[0] for k in ks if before[k]["strict"] and not after[k]["strict"]]
        m, lo, hi = interval([int(after[k]["strict"]) - int(before[k]["strict"]) for k in ks])
        print(f"{cfg}: {len(ks)} questions, right {sum(before[k]['strict'] for k in ks)} -> {sum(after[k]['strict'] for k in ks)}, "
              f"{len(wins)} W / {len(losses)} L, {m:+.1f} [{lo:+.1f}, {hi:+.1f}], "
              f"s/q {st.mean(before[k]['seconds'] for k in ks):.2f} -> {st.mean(after[k]['seconds'] for k in ks):.2f}")
        if wins or losses:
            print(f"    wins {wins}\n    losses {losses}")


def against_zero(name, rows, zero):
    qs = sorted(k[0] for k in rows if k[1] == "full" and (k[0], "zero_shot") in zero)
    if not qs:
        return
    full = [rows[(q, "full")] for q in qs]
    zs = [zero[(q, "zero_shot")] for q in qs]
    m, lo, hi = interval([int(f["strict"]) - int(z["strict"]) for f, z in zip(full, zs)])
    fs, zt = st.mean(f["seconds"] for f in full), st.mean(z["seconds"] for z in zs)
    ok = [f for f in full if f["status"] == "ok"]
    right_ok = sum(f["strict"] for f in ok)
    print(f"{name}: {len(qs)} questions, zero-shot {sum(z['strict'] for z in zs)}, default {sum(f['strict'] for f in full)}, "
          f"{m:+.1f} [{lo:+.1f}, {hi:+.1f}], time {fs / zt:.2f}x ({fs:.2f} vs {zt:.2f} s), "
          f"ok {len(ok)} ({100 * len(ok) / len(qs):.1f}%), ok right {right_ok} ({100 * right_ok / max(len(ok), 1):.1f}%)")


def main(argv):
    args, zero_file = [], None
    it = iter(argv)
    for a in it:
        if a == "--zero":
            zero_file = next(it)
        else:
            args.append(a)
    if len(args) != 2:
        sys.exit(__doc__)
    before, after = load(args[0]), load(args[1])
    paired(before, after)
    zero = load(zero_file) if zero_file else None
    against_zero(args[0], before, zero or before)
    against_zero(args[1], after, zero or after)


if __name__ == "__main__":
    main(sys.argv[1:])
