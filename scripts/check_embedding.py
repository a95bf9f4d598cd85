#!/usr/bin/env python3
"""Check that the embedding server serves the real all-MiniLM-L6-v2.

    check_embedding.py MODEL_DIR URL

Computes sentence embeddings with a plain numpy implementation of the original model (BERT WordPiece
tokenizer, 6 encoder layers, mean pooling, L2 normalisation) from its safetensors weights, asks the
server at URL (an OpenAI-compatible /v1/embeddings) for the same sentences, and fails unless every
pair has cosine similarity >= 0.999 (the served model stores its matrices as F16).
"""
import json
import math
import sys
import unicodedata
import urllib.request
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from minilm_to_gguf import read_safetensors  # noqa: E402

SENTENCES = [
    "How many singers do we have?",
    "List the names of customers in Paris, ordered by the date they joined.",
    "Café au lait costs 3.50 € — naïve résumé!",
    "SELECT count(*) FROM orders WHERE status = 'shipped'",
]


def basic_tokens(text: str) -> list[str]:
    text = "".join(" " if unicodedata.category(c).startswith("C") and c not in "\t\n\r" else c for c in text)
    text = unicodedata.normalize("NFD", text.lower())
    text = "".join(c for c in text if unicodedata.category(c) != "Mn")
    out, word = [], ""
    for c in text:
        cp = ord(c)
        punct = (33 <= cp <= 47) or (58 <= cp <= 64) or (91 <= cp <= 96) or (123 <= cp <= 126) or \
            unicodedata.category(c).startswith("P")
        if c.isspace():
            if word:
                out.append(word)
            word = ""
        elif punct:
            if word:
                out.append(word)
            out.append(c)
            word = ""
        else:
            word += c
    if word:
        out.append(word)
    return out


def wordpiece(word: str, vocab: dict) -> list[int]:
    if len(word) > 100:
        return [vocab["[UNK]"]]
    ids, start = [], 0
    while start < len(word):
        end, found = len(word), None
        while start < end:
            piece = ("##" if start > 0 else "") + word[start:end]
            if piece in vocab:
                found = vocab[piece]
                break
            end -= 1
        if found is None:
            return [vocab["[UNK]"]]
        ids.append(found)
        start = end
    return ids


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


ERF = np.vectorize(math.erf)


def embed(ids: list[int], t: dict, cfg: dict) -> np.ndarray:
    n, heads = len(ids), cfg["num_attention_heads"]
    x = t["embeddings.word_embeddings.weight"][ids] + t["embeddings.position_embeddings.weight"][:n] \
        + t["embeddings.token_type_embeddings.weight"][0]
    eps = cfg["layer_norm_eps"]
    x = layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"], eps)
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        lin = lambda v, name: v @ t[p + name + ".weight"].T + t[p + name + ".bias"]  # noqa: E731
        q, k, v = (lin(x, f"attention.self.{w}").reshape(n, heads, -1).transpose(1, 0, 2) for w in ("query", "key", "value"))
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1])
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        ctx = (scores / scores.sum(-1, keepdims=True)) @ v
        x = layer_norm(x + lin(ctx.transpose(1, 0, 2).reshape(n, -1), "attention.output.dense"),
                       t[p + "attention.output.LayerNorm.weight"], t[p + "attention.output.LayerNorm.bias"], eps)
        h = lin(x, "intermediate.dense")
        h = 0.5 * h * (1 + ERF(h / math.sqrt(2)))
        x = layer_norm(x + lin(h, "output.dense"), t[p + "output.LayerNorm.weight"], t[p + "output.LayerNorm.bias"], eps)
    e = x.mean(0)
    return e / np.linalg.norm(e)


def main(model_dir: str, url: str) -> None:
    d = Path(model_dir)
    cfg = json.loads((d / "config.json").read_text())
    vocab = {tok: i for i, tok in enumerate((d / "vocab.txt").read_text(encoding="utf-8").split("\n"))}
    weights = {k.removeprefix("bert."): v.astype(np.float64) for k, v in read_safetensors(d / "model.safetensors").items()}
    req = urllib.request.Request(url.rstrip("/") + "/embeddings", data=json.dumps({"input": SENTENCES}).encode(),
                                 headers={"Content-Type": "application/json"})
    served = [np.array(item["embedding"]) for item in sorted(json.load(urllib.request.urlopen(req, timeout=60))["data"],
                                                             key=lambda i: i["index"])]
    worst = 1.0
    for s, got in zip(SENTENCES, served):
        ids = [vocab["[CLS]"]] + [i for w in basic_tokens(s) for i in wordpiece(w, vocab)] + [vocab["[SEP]"]]
        ref = embed(ids, weights, cfg)
        cos = float(ref @ got / np.linalg.norm(got))
        worst = min(worst, cos)
        print(f"cosine {cos:.6f}  dims {len(got)}  {s}")
    if worst < 0.999:
        raise SystemExit(f"served embeddings differ from the reference model (worst cosine {worst:.6f})")
    print(f"ok: the server matches the reference all-MiniLM-L6-v2 (worst cosine {worst:.6f})")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2])
