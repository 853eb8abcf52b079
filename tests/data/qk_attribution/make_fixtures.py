#!/usr/bin/env python3
"""PyTorch float64 reference for QK attribution (core/qk_attribution.hpp); not run in CI.

For each model of tests/data/transformer (read here from its .json and .safetensors; the prompt is
the `tokens` of its .expected.safetensors), one head (layer, head) and one query position i, writes
into qk_attribution.expected.safetensors:
  <model>.query    [3]          layer, head, i
  <model>.parts    [i+1, S, S]  parts[j][a][b]: query-side source a against key-side source b
  <model>.scores   [i+1]        the model's scaled scores s_ij (before the mask), from torch's forward
Sources, in order: embed, pos (learned positions only), L{l'}H{h'} for every earlier head, bias.

Written independently of the C++: the sources are stacked into one S × T × d tensor; the layer's
LayerNorm (scale frozen at the forward pass's value) is applied to the stack at once by einsum,
ln.b joins the bias source, then the stack is projected by W_Q / W_K (b_Q / b_K on the bias
source) and every pair's score is one einsum. The script checks that the parts sum to torch's
scores before it writes.
Regenerate (Debian: apt-get install -y python3-torch):
  /usr/bin/python3 tests/data/qk_attribution/make_fixtures.py
"""
import json
import math
import os
import struct

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "transformer")
EPS = 1e-5

# (model, layer, head, query position): every normalisation, with and without positions, float32 storage.
CASES = [
    ("one_layer_plain", 0, 1, 5),
    ("two_layer_ln_pos", 1, 2, 8),
    ("two_layer_lnpre_pos", 1, 0, 6),
    ("three_layer_ln_f32", 2, 1, 4),
]

READ = {"F64": ("<d", 8, torch.float64), "F32": ("<f", 4, torch.float32), "BOOL": ("<?", 1, torch.bool)}


def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        fmt, size, dtype = READ[e["dtype"]]
        begin, end = e["data_offsets"]
        values = [v[0] for v in struct.iter_unpack(fmt, raw[8 + n + begin:8 + n + end])]
        out[name] = torch.tensor(values, dtype=dtype).reshape(e["shape"])
    return out


def write_safetensors(path, tensors):
    header, data = {}, b""
    for name, t in tensors.items():
        values = t.to(torch.float64).contiguous().reshape(-1).tolist()
        chunk = struct.pack("<%dd" % len(values), *values)
        header[name] = {"dtype": "F64", "shape": list(t.shape), "data_offsets": [len(data), len(data) + len(chunk)]}
        data += chunk
    text = json.dumps(header, separators=(",", ":"), sort_keys=True).encode()
    text += b" " * (-(8 + len(text)) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def attribution(name, layer, head, i):
    with open(os.path.join(MODELS, name + ".json")) as f:
        cfg = json.load(f)
    sd = {k: v.to(torch.float64) for k, v in read_safetensors(os.path.join(MODELS, name + ".safetensors")).items()
          if v.dtype != torch.bool and v.dim() > 0}
    tokens = read_safetensors(os.path.join(MODELS, name + ".expected.safetensors"))["tokens"].long()
    T, d, c, H = len(tokens), cfg["d_model"], cfg["d_head"], cfg["n_heads"]
    norm = cfg["normalization"]
    positional = cfg.get("positional_embedding", "standard") == "standard"
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))

    # Sources of the residual stream, each T × d, and the forward pass up to `layer`.
    names, stack = ["embed"], [sd["embed.W_E"][tokens]]
    if positional:
        names.append("pos")
        stack.append(sd["pos_embed.W_pos"][:T])
    bias_resid = torch.zeros(T, d, dtype=torch.float64)
    resid = sum(stack)
    for l in range(layer + 1):
        p = f"blocks.{l}."
        centred = resid - resid.mean(-1, keepdim=True)
        sigma = (centred.pow(2).mean(-1, keepdim=True) + EPS).sqrt()
        if norm == "none":
            x = resid
        else:
            x = centred / sigma
            if norm == "LN":
                x = x * sd[p + "ln1.w"] + sd[p + "ln1.b"]
        q = torch.einsum("td,hdc->htc", x, sd[p + "attn.W_Q"]) + sd[p + "attn.b_Q"][:, None, :]
        k = torch.einsum("td,hdc->htc", x, sd[p + "attn.W_K"]) + sd[p + "attn.b_K"][:, None, :]
        scores = torch.einsum("hic,hjc->hij", q, k) / math.sqrt(c)
        if l == layer:
            break
        v = torch.einsum("td,hdc->htc", x, sd[p + "attn.W_V"]) + sd[p + "attn.b_V"][:, None, :]
        pattern = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
        out = torch.einsum("hij,hjc,hcd->hid", pattern, v, sd[p + "attn.W_O"])
        for h in range(H):
            names.append(f"L{l}H{h}")
            stack.append(out[h])
        resid = resid + out.sum(0) + sd[p + "attn.b_O"]
        bias_resid = bias_resid + sd[p + "attn.b_O"]
    names.append("bias")
    stack.append(bias_resid)
    C = torch.stack(stack)  # S × T × d

    # The layer's normalisation applied to every source at once, σ frozen (sigma: T × 1).
    p = f"blocks.{layer}."
    if norm != "none":
        C = (C - C.mean(-1, keepdim=True)) / sigma[None]
        if norm == "LN":
            C = C * sd[p + "ln1.w"]
            C[-1] = C[-1] + sd[p + "ln1.b"]
    Q = torch.einsum("std,dc->stc", C, sd[p + "attn.W_Q"][head])
    K = torch.einsum("std,dc->stc", C, sd[p + "attn.W_K"][head])
    Q[-1] += sd[p + "attn.b_Q"][head]
    K[-1] += sd[p + "attn.b_K"][head]
    parts = torch.einsum("ac,bjc->jab", Q[:, i], K[:, : i + 1]) / math.sqrt(c)
    model_scores = scores[head, i, : i + 1]
    gap = (parts.sum((1, 2)) - model_scores).abs().max().item()
    assert gap < 1e-12, (name, gap)
    print(name, "sources", names, "largest |Σ parts − score|", gap)
    return {
        name + ".query": torch.tensor([layer, head, i], dtype=torch.float64),
        name + ".parts": parts,
        name + ".scores": model_scores,
    }


def main():
    tensors = {}
    for case in CASES:
        tensors.update(attribution(*case))
    write_safetensors(os.path.join(HERE, "qk_attribution.expected.safetensors"), tensors)


if __name__ == "__main__":
    main()
