#!/usr/bin/env python3
"""Can the embedding model tell a value of a column's kind from a thing of another kind? The
second candidate for the absent-proper-name class, measured and not built (forty-sixth session).

    python3 bench/value_kind_embed.py     (cluster and embedding server running: scripts/cluster.sh, scripts/llm.sh)

The same 24 cases as `bench/value_kind_vote.py` (12 unanswerable misses whose query kept a name the
data does not record, `restypename = 'Michelin'`; 12 answerable values, three planted absent
values of the column's kind, Atlantis, Springfield, Narnia). For each, up to 60 distinct stored
values of the column are embedded with the value (all-MiniLM-L6-v2, the embedding server); the
value's mean cosine to its 3 nearest stored values is divided by the median, over the stored
values, of the same figure among themselves (how close a value of this column usually is to the
others). A rule would refuse below a threshold; printed: each case's ratio, and for each
threshold how many unanswerable cases fall below and how many answerable ones too.
"""
import json, math, os, subprocess, urllib.request

os.environ.update(PGHOST=os.environ.get("PGHOST", "127.0.0.1"), PGPORT=os.environ.get("PGPORT", "54815"), PGUSER=os.environ.get("PGUSER", "postgres"))
EMBED = "http://127.0.0.1:%s/v1/embeddings" % os.environ.get("NL2SQL_EMBED_PORT", "18082")
here = os.path.dirname(os.path.abspath(__file__))
import importlib.util
spec = importlib.util.spec_from_file_location("value_kind_vote", os.path.join(here, "value_kind_vote.py"))
vote = importlib.util.module_from_spec(spec)
spec.loader.exec_module(vote)
K = 3


def embed(texts):
    body = {"model": "all-minilm-l6-v2", "input": texts}
    req = urllib.request.Request(EMBED, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    out = [d["embedding"] for d in sorted(json.load(urllib.request.urlopen(req, timeout=120))["data"], key=lambda d: d["index"])]
    return [[a / math.sqrt(sum(b * b for b in v)) for a in v] for v in out]


def cos(a, b):
    return sum(x * y for x, y in zip(a, b))


def stored(db, t, c, n=60):
    out = subprocess.run(["psql", "-d", db, "-Atc", f'select distinct "{c}"::text from "{t}" where "{c}" is not null limit {n}'], capture_output=True, text=True)
    return [l for l in out.stdout.strip().split("\n") if l]


def near(e, others):
    best = sorted((cos(e, o) for o in others), reverse=True)[:K]
    return sum(best) / len(best) if best else None


if __name__ == "__main__":
    print("command: python3 bench/value_kind_embed.py")
    ratios = []
    for answerable, db, q, t, c, v in vote.CASES:
        vals = stored(db, t, c)
        if len(vals) < 2:
            print(f"  {'answerable' if answerable else 'unanswerable'}: {db} {t}.{c} '{v}': {len(vals)} stored value(s), no ratio")
            continue
        e = embed(vals + [v])
        own = near(e[-1], e[:-1])
        usual = sorted(near(x, e[:i] + e[i + 1:-1]) for i, x in enumerate(e[:-1]))[(len(vals)) // 2]
        ratios.append((answerable, own / usual))
        print(f"  {'answerable' if answerable else 'unanswerable'}: ratio {own / usual:.2f} ({own:.3f} / {usual:.3f}, {len(vals)} stored): {db} {t}.{c} '{v}'")
    for th in (0.5, 0.6, 0.7, 0.8, 0.9, 1.0):
        u = sum(1 for a, r in ratios if not a and r < th)
        a = sum(1 for a_, r in ratios if a_ and r < th)
        print(f"threshold {th:.1f}: unanswerable below {u}/{sum(1 for a_, _ in ratios if not a_)}; answerable below (would be refused) {a}/{sum(1 for a_, _ in ratios if a_)}")
