#!/usr/bin/env python3
"""Draftless speculative decoding (llama.cpp's n-gram drafts) against the served chat model, on six
hand-made prompts (docs/benchmarks.md, seventeenth session). Run with the project's venv python:

    bench/speculative.py serve 18083 ngram_simple 4 32 &   # a second 1.5B server with drafts on
    bench/speculative.py ask 18081                          # the served model, no drafts
    bench/speculative.py ask 18083                          # the same prompts with drafts

Each call prints its seconds, tokens per second, and drafted/accepted tokens.
"""
import json, os, signal, sys, threading, time, urllib.request

MODELS = os.environ.get("NL2SQL_MODELS", os.path.expanduser("~/.cache/nl2sql/models"))


def serve(port, kind, n=None, m=None):
    import xllamacpp as xlc
    p = xlc.CommonParams()
    p.model.path = os.path.join(MODELS, "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    p.model_alias = {"qwen2.5-coder-1.5b-instruct"}
    p.hostnames = ["127.0.0.1"]; p.port = port; p.n_ctx = 8192; p.n_parallel = 2
    p.cpuparams.n_threads = 2; p.cpuparams_batch.n_threads = 2; p.warmup = False
    s = p.speculative
    if kind != "none":
        s.types = [getattr(xlc.common_speculative_type, "COMMON_SPECULATIVE_TYPE_" + kind.upper())]
        if n is not None:
            if kind == "ngram_simple": s.ngram_simple.size_n = n; s.ngram_simple.size_m = m
            if kind == "ngram_mod": s.ngram_mod.n_match = n; s.ngram_mod.n_min = 1; s.ngram_mod.n_max = m
        p.speculative = s
    xlc.Server(p)
    print("serving", port, kind, flush=True)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    stop.wait()


schema = """TABLE concert (concert_id bigint PRIMARY KEY, concert_name text, theme text, stadium_id bigint REFERENCES stadium(stadium_id), year text)
TABLE singer (singer_id bigint PRIMARY KEY, name text, country text, song_name text, song_release_year text, age bigint, is_male text)
TABLE singer_in_concert (concert_id bigint REFERENCES concert(concert_id), singer_id bigint REFERENCES singer(singer_id), PRIMARY KEY (concert_id, singer_id))
TABLE stadium (stadium_id bigint PRIMARY KEY, location text, name text, capacity bigint, highest bigint, lowest bigint, average bigint)"""
system = "You are an expert PostgreSQL analyst. You answer questions about this database with read-only SQL.\nDatabase schema:\n" + schema
gen = ("Write one PostgreSQL SELECT query that answers the question. Select only what the question asks for. Join through the foreign keys. "
       "The probes above were cut to a few rows for display: add a LIMIT only if the question asks for a number of rows or a single extreme. Reply in JSON: {\"sql\": \"SELECT ...\"}")
dec = "First list the sub-questions it depends on (which rows, values, aggregate), then one query answering them together: {\"subquestions\": [\"...\"], \"sql\": \"SELECT ...\"}"
sqls = {"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"]}
decs = {"type":"object","properties":{"subquestions":{"type":"array","maxItems":3,"items":{"type":"string","maxLength":120}},"sql":{"type":"string"}},"required":["subquestions","sql"]}
def call(msgs, schema):
    body = {"model":"qwen2.5-coder-1.5b-instruct","messages":msgs,"temperature":0,"max_tokens":400,
            "response_format":{"type":"json_schema","json_schema":{"name":"a","schema":schema}}}
    t=time.time()
    r=json.load(urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{PORT}/v1/chat/completions", json.dumps(body).encode(), {"Content-Type":"application/json"})))
    dt=time.time()-t
    c=r["choices"][0]["message"]["content"]; tm=r.get("timings",{})
    print(f"{dt:5.2f}s pred={tm.get('predicted_n')} {tm.get('predicted_per_second',0):.1f}t/s prompt={tm.get('prompt_n')} draft={tm.get('draft_n')}/{tm.get('draft_n_accepted')} | {c[:150]}")
    return c
def ask():
    for q in ["Show the names of singers who performed in a concert in 2014 and the name of the stadium.", "What is the average age of singers from each country, ordered by the average?"]:
        u = "Question: " + q + "\n\n" + gen
        a = call([{"role":"system","content":system},{"role":"user","content":u+"\n\n"+dec}], decs)
        call([{"role":"system","content":system},{"role":"user","content":u}], sqls)  # confirm (direct)
        call([{"role":"system","content":system},{"role":"user","content":u+"\n\n"+dec},{"role":"assistant","content":a},
              {"role":"user","content":"That query has these problems:\n- the question asks for each stadium\n\nWrite the corrected PostgreSQL SELECT query, fixing every problem. Reply in JSON: {\"sql\": \"SELECT ...\"}"}], sqls)
    

if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(int(sys.argv[2]), sys.argv[3], *(int(x) for x in sys.argv[4:6]))
    else:
        PORT = int(sys.argv[2])
        ask()
