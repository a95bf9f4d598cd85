#!/usr/bin/env python3
"""Run each question of a JSONL file ({"db": ..., "question": ...} per line) through nl2sql_run in its
database at the installed build, and append each run's final status, detail, SQL and scope steps to a
JSONL file. Used to run a handful of questions whole, for example the answerable questions whose scope
evidence a change alters (Benchmark 10; see docs/benchmarks.md).

    python3 bench/run_questions.py IN.jsonl OUT.jsonl
"""
import json, os, subprocess, sys, time

repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
src, dst = sys.argv[1], sys.argv[2]
sql = ("SET client_min_messages = warning;\n"
       "SELECT json_agg(json_build_object('stage', stage, 'status', status, 'detail', detail, 'sql', sql) ORDER BY step) "
       "FROM nl2sql_run(:'q');\n")
with open(dst, "a") as out:
    for line in open(src):
        r = json.loads(line)
        t = time.time()
        p = subprocess.run([f"{repo}/scripts/cluster.sh", "psql", "-d", r["db"], "-At", "-q", "-v", "q=" + r["question"]],
                           input=sql, capture_output=True, text=True)
        try:
            steps = json.loads(p.stdout.strip().splitlines()[-1]) or []
        except (IndexError, ValueError):
            steps = []
        chosen = [s for s in steps if s["stage"] == "chosen"]
        r.update({"status": chosen[-1]["status"] if chosen else "failed",
                  "detail": chosen[-1]["detail"] if chosen else p.stderr[-300:],
                  "sql": chosen[-1]["sql"] if chosen else None,
                  "scope": [s["detail"] for s in steps if s["stage"] == "scope"],
                  "seconds": time.time() - t})
        out.write(json.dumps(r) + "\n")
        out.flush()
        print(r["status"], "|", r["question"], flush=True)
