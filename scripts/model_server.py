#!/usr/bin/env python3
"""Serve one local GGUF model over llama.cpp's OpenAI-compatible HTTP API (via xllamacpp).

    model_server.py --model FILE --port N [--embedding] [--alias NAME] [--ctx N] [--parallel N]

Listens on 127.0.0.1 only. Runs until SIGTERM/SIGINT.
"""
import argparse
import signal
import sys
import threading

import xllamacpp as xlc


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--alias", default=None)
    ap.add_argument("--embedding", action="store_true")
    ap.add_argument("--ctx", type=int, default=8192)
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    p = xlc.CommonParams()
    p.model.path = args.model
    if args.alias:
        p.model_alias = {args.alias}
    p.hostnames = ["127.0.0.1"]
    p.port = args.port
    p.n_ctx = args.ctx
    p.n_parallel = args.parallel
    p.cpuparams.n_threads = args.threads
    p.cpuparams_batch.n_threads = args.threads
    p.warmup = False
    if args.embedding:
        p.embedding = True
        p.pooling_type = xlc.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
        # an encoder needs each input in one micro-batch; the model was trained on 256 tokens
        p.n_batch = 512
        p.n_ubatch = 512
    server = xlc.Server(p)
    print(f"serving {args.model} at {server.listening_address}", flush=True)

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    stop.wait()
    print("stopping", flush=True)
    sys.exit(0)


if __name__ == "__main__":
    main()
