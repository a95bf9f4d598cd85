#!/usr/bin/env python3
"""Two requests at once against the served chat model, against the same requests one after another, on the
prompts of bench/speculative.py (concert_singer's schema; `decompose` and `direct` of four questions, every
prompt cached first, so the calls are decode-bound as the default's second reading is). Run with the project's
venv python while the chat server runs (scripts/llm.sh start):

    bench/concurrency.py [PORT]

Prints each call's seconds and tokens per second, the two totals, and how many answers were the same.
"""
import os, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import speculative  # noqa: E402  (its prompts and its call)
from speculative import call, system, gen, dec, sqls, decs  # noqa: E402

speculative.PORT = int(sys.argv[1]) if len(sys.argv) > 1 else 18081

QUESTIONS = [
    "Show the names of singers who performed in a concert in 2014 and the name of the stadium.",
    "What is the average age of singers from each country, ordered by the average?",
    "How many concerts took place in each stadium with capacity over 5000?",
    "List the song names of singers older than 40 and the theme of their concerts.",
]


def messages(q, decompose):
    user = "Question: " + q + "\n\n" + gen + ("\n\n" + dec if decompose else "")
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def one(q, decompose, out, key):
    t = time.time()
    c = call(messages(q, decompose), decs if decompose else sqls)
    out[key] = (time.time() - t, c)


for q in QUESTIONS:  # every prompt cached
    call(messages(q, True), decs)
    call(messages(q, False), sqls)
print("--- one after another")
t = time.time()
alone = {}
for i, q in enumerate(QUESTIONS):
    one(q, True, alone, 2 * i)
    one(q, False, alone, 2 * i + 1)
print(f"total {time.time() - t:.1f} s")
print("--- decompose and direct of each question at once")
t = time.time()
both = {}
for i, q in enumerate(QUESTIONS):
    a = threading.Thread(target=one, args=(q, True, both, 2 * i))
    b = threading.Thread(target=one, args=(q, False, both, 2 * i + 1))
    a.start(); b.start(); a.join(); b.join()
print(f"total {time.time() - t:.1f} s")
print(f"same answers: {sum(alone[k][1] == both[k][1] for k in alone)} of {len(alone)}")
