#!/usr/bin/env python3
"""Reference parity fixtures for the attention-only transformer (not run in CI).

Builds random attention-only models of a few shapes with torch in float64, computes the forward
pass the way TransformerLens's HookedTransformer (attn_only=True) does — LayerNorm / LNPre with
eps = 1e-5, causal attention scaled by 1/sqrt(d_head), biases — and writes, per model:
  <name>.json                 the headlab config
  <name>.safetensors          the weights under TransformerLens state_dict names, including the
                              attn.mask (BOOL) and attn.IGNORE (F32, -inf) buffers
  <name>.expected.safetensors tokens [T], logits [T, V], patterns [L, H, T, T], and the direct
                              logit attribution at the last position to `dla_token`:
                              dla_heads [L, H], dla_embed, dla_pos_embed (final LN scale frozen)
Regenerate (Debian: apt-get install -y python3-torch):
  /usr/bin/python3 tests/data/transformer/make_fixtures.py
The safetensors files are written by hand (8-byte little-endian header length, JSON header,
raw little-endian bytes), so the safetensors package is not needed.
"""
import json
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ beside the fixtures
sys.path.insert(0, os.path.join(HERE, ".."))
from fixture_io import write_safetensors  # noqa: E402
EPS = 1e-5


def layer_norm(x, w, b):
    x = x - x.mean(-1, keepdim=True)
    scale = (x.pow(2).mean(-1, keepdim=True) + EPS).sqrt()
    y = x / scale
    if w is not None:
        y = y * w + b
    return y, scale


def make(name, n_layers, n_heads, d_model, d_head, n_ctx, d_vocab, normalization, positional, dtype, seed, T):
    g = torch.Generator().manual_seed(seed)

    def randn(*shape, scale=0.5):
        return torch.randn(*shape, generator=g, dtype=torch.float64) * scale

    sd = {"embed.W_E": randn(d_vocab, d_model, scale=1.0)}
    if positional:
        sd["pos_embed.W_pos"] = randn(n_ctx, d_model, scale=1.0)
    for l in range(n_layers):
        p = f"blocks.{l}."
        if normalization == "LN":
            sd[p + "ln1.w"] = 1.0 + randn(d_model, scale=0.2)
            sd[p + "ln1.b"] = randn(d_model, scale=0.2)
        sd[p + "attn.W_Q"] = randn(n_heads, d_model, d_head)
        sd[p + "attn.W_K"] = randn(n_heads, d_model, d_head)
        sd[p + "attn.W_V"] = randn(n_heads, d_model, d_head)
        sd[p + "attn.W_O"] = randn(n_heads, d_head, d_model)
        sd[p + "attn.b_Q"] = randn(n_heads, d_head, scale=0.2)
        sd[p + "attn.b_K"] = randn(n_heads, d_head, scale=0.2)
        sd[p + "attn.b_V"] = randn(n_heads, d_head, scale=0.2)
        sd[p + "attn.b_O"] = randn(d_model, scale=0.2)
    if normalization == "LN":
        sd["ln_final.w"] = 1.0 + randn(d_model, scale=0.2)
        sd["ln_final.b"] = randn(d_model, scale=0.2)
    sd["unembed.W_U"] = randn(d_model, d_vocab)
    sd["unembed.b_U"] = randn(d_vocab, scale=0.2)

    # The stored precision is the model: F32 fixtures compute in float64 from float32-rounded weights.
    sd = {k: v.to(dtype).to(torch.float64) for k, v in sd.items()}
    tokens = torch.randint(0, d_vocab, (T,), generator=g)
    resid = sd["embed.W_E"][tokens]
    pos = sd["pos_embed.W_pos"][:T] if positional else torch.zeros_like(resid)
    resid = resid + pos
    embed = sd["embed.W_E"][tokens]
    patterns, head_outputs = [], []
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    for l in range(n_layers):
        p = f"blocks.{l}."
        if normalization == "none":
            x = resid
        else:
            x, _ = layer_norm(resid, sd.get(p + "ln1.w"), sd.get(p + "ln1.b"))
        q = torch.einsum("td,hdc->htc", x, sd[p + "attn.W_Q"]) + sd[p + "attn.b_Q"][:, None, :]
        k = torch.einsum("td,hdc->htc", x, sd[p + "attn.W_K"]) + sd[p + "attn.b_K"][:, None, :]
        v = torch.einsum("td,hdc->htc", x, sd[p + "attn.W_V"]) + sd[p + "attn.b_V"][:, None, :]
        scores = torch.einsum("hic,hjc->hij", q, k) / math.sqrt(d_head)
        scores = scores.masked_fill(~causal, float("-inf"))
        pattern = torch.softmax(scores, dim=-1)
        z = torch.einsum("hij,hjc->hic", pattern, v)
        out = torch.einsum("hic,hcd->hid", z, sd[p + "attn.W_O"])
        patterns.append(pattern)
        head_outputs.append(out)
        resid = resid + out.sum(0) + sd[p + "attn.b_O"]
    if normalization == "none":
        final, scale = resid, None
    else:
        final, scale = layer_norm(resid, sd.get("ln_final.w"), sd.get("ln_final.b"))
    logits = final @ sd["unembed.W_U"] + sd["unembed.b_U"]

    # Direct logit attribution at the last position to the top token, final LN scale frozen.
    last = T - 1
    token = int(logits[last].argmax())
    direction = sd["unembed.W_U"][:, token].clone()
    if normalization == "LN":
        direction = direction * sd["ln_final.w"]

    def dla(c):
        if normalization != "none":
            c = (c - c.mean()) / scale[last, 0]
        return float(c @ direction)

    dla_heads = torch.tensor([[dla(head_outputs[l][h, last]) for h in range(n_heads)] for l in range(n_layers)],
                             dtype=torch.float64)

    config = {"n_layers": n_layers, "n_heads": n_heads, "d_model": d_model, "d_head": d_head, "n_ctx": n_ctx,
              "d_vocab": d_vocab, "normalization": normalization,
              "positional_embedding": "standard" if positional else "none"}
    with open(os.path.join(HERE, name + ".json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    stored = {k: v.to(dtype) for k, v in sd.items()}
    for l in range(n_layers):  # TransformerLens buffers, as state_dict() holds them
        stored[f"blocks.{l}.attn.mask"] = torch.tril(torch.ones(n_ctx, n_ctx, dtype=torch.bool))
        stored[f"blocks.{l}.attn.IGNORE"] = torch.tensor(float("-inf"), dtype=torch.float32)
    write_safetensors(os.path.join(HERE, name + ".safetensors"), stored)
    write_safetensors(os.path.join(HERE, name + ".expected.safetensors"), {
        "tokens": tokens.to(torch.float64),
        "logits": logits,
        "patterns": torch.stack(patterns),
        "dla_token": torch.tensor(float(token), dtype=torch.float64),
        "dla_heads": dla_heads,
        "dla_embed": torch.tensor(dla(embed[last]), dtype=torch.float64),
        "dla_pos_embed": torch.tensor(dla(pos[last]) if positional else 0.0, dtype=torch.float64),
    })


if __name__ == "__main__":
    make("one_layer_plain", 1, 2, 8, 4, 6, 11, "none", False, torch.float64, 1, 6)
    make("two_layer_ln_pos", 2, 3, 12, 4, 10, 17, "LN", True, torch.float64, 2, 9)
    make("two_layer_lnpre_pos", 2, 4, 16, 4, 8, 13, "LNPre", True, torch.float64, 3, 8)
    make("three_layer_ln_f32", 3, 2, 8, 4, 7, 9, "LN", False, torch.float32, 4, 5)
