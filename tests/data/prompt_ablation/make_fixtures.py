#!/usr/bin/env python3
"""Reference for core prompt_ablation_loss (not run in CI).

Reads the float64 fixture models of tests/data/transformer/ (their config and safetensors), runs the
attention-only forward pass in torch float64 as tests/data/transformer/make_fixtures.py does
(TransformerLens conventions: LayerNorm eps 1e-5, causal attention scaled by 1/sqrt(d_head)), and
writes <model>.expected.json with, for one prompt:
  clean_loss       mean over p in [0, T-1) of -log softmax(logits_p)[prompt[p+1]] (nats)
  zero             L x H: that loss with head (l, h)'s output replaced by 0
  mean_reference   L x H: replaced by its mean output at each position over the reference sequences
                   that reach the position (sum over s with |s| > p of out_s[p], divided by their count)
The head outputs are replaced by a hook inside one full forward pass (not resumed from layer l, as
the core does), so the reference checks the core's shortcut too.
Regenerate (Debian: apt-get install -y python3-torch):
  /usr/bin/python3 tests/data/prompt_ablation/make_fixtures.py
"""
import json
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ beside the fixtures
sys.path.insert(0, os.path.join(HERE, ".."))
from fixture_io import read_safetensors_f64  # noqa: E402
MODELS = os.path.join(HERE, "..", "transformer")
EPS = 1e-5


def layer_norm(x, w, b):
    x = x - x.mean(-1, keepdim=True)
    y = x / (x.pow(2).mean(-1, keepdim=True) + EPS).sqrt()
    return y * w + b if w is not None else y


def forward(cfg, sd, tokens, replace=None):
    """Logits T x V and every head's output [L][H] (T x d); replace(l, h, out) may return a new output."""
    T = len(tokens)
    t = torch.tensor(tokens)
    resid = sd["embed.W_E"][t]
    if cfg.get("positional_embedding", "standard") == "standard":
        resid = resid + sd["pos_embed.W_pos"][:T]
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    outputs = []
    for l in range(cfg["n_layers"]):
        p = f"blocks.{l}."
        x = resid if cfg["normalization"] == "none" else layer_norm(resid, sd.get(p + "ln1.w"), sd.get(p + "ln1.b"))
        q = torch.einsum("td,hdc->htc", x, sd[p + "attn.W_Q"]) + sd[p + "attn.b_Q"][:, None, :]
        k = torch.einsum("td,hdc->htc", x, sd[p + "attn.W_K"]) + sd[p + "attn.b_K"][:, None, :]
        v = torch.einsum("td,hdc->htc", x, sd[p + "attn.W_V"]) + sd[p + "attn.b_V"][:, None, :]
        scores = (torch.einsum("hic,hjc->hij", q, k) / math.sqrt(cfg["d_head"])).masked_fill(~causal, float("-inf"))
        z = torch.einsum("hij,hjc->hic", torch.softmax(scores, dim=-1), v)
        out = [z[h] @ sd[p + "attn.W_O"][h] for h in range(cfg["n_heads"])]
        if replace is not None:
            out = [replace(l, h, o) for h, o in enumerate(out)]
        outputs.append(out)
        resid = resid + sum(out) + sd[p + "attn.b_O"]
    final = resid if cfg["normalization"] == "none" else layer_norm(resid, sd.get("ln_final.w"), sd.get("ln_final.b"))
    return final @ sd["unembed.W_U"] + sd["unembed.b_U"], outputs


def next_token_loss(logits, tokens):
    logp = torch.log_softmax(logits[:-1], dim=-1)
    return float(-logp[torch.arange(len(tokens) - 1), torch.tensor(tokens[1:])].mean())


def make(name, prompt, reference):
    with open(os.path.join(MODELS, name + ".json")) as f:
        cfg = json.load(f)
    sd = read_safetensors_f64(os.path.join(MODELS, name + ".safetensors"))
    L, H, T, d = cfg["n_layers"], cfg["n_heads"], len(prompt), cfg["d_model"]
    logits, _ = forward(cfg, sd, prompt)
    mean = [[torch.zeros(T, d, dtype=torch.float64) for _ in range(H)] for _ in range(L)]
    count = torch.zeros(T, 1, dtype=torch.float64)
    for s in reference:
        _, outs = forward(cfg, sd, s)
        r = min(T, len(s))
        for l in range(L):
            for h in range(H):
                mean[l][h][:r] += outs[l][h][:r]
        count[:r] += 1
    mean = [[m / count for m in row] for row in mean]

    def ablated(l0, h0, value):
        return next_token_loss(forward(cfg, sd, prompt, lambda l, h, o: value(l, h) if (l, h) == (l0, h0) else o)[0], prompt)

    doc = {
        "model": name,
        "prompt": prompt,
        "reference": reference,
        "clean_loss": next_token_loss(logits, prompt),
        "zero": [[ablated(l, h, lambda l, h: torch.zeros(T, d, dtype=torch.float64)) for h in range(H)] for l in range(L)],
        "mean_reference": [[ablated(l, h, lambda l, h: mean[l][h]) for h in range(H)] for l in range(L)],
    }
    with open(os.path.join(HERE, name + ".expected.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    # Reference sequences of unequal lengths: positions 0-3 averaged over all four, 4-6 over three,
    # 7 over one (the prompt has 8 tokens; the longest reference 9).
    make("two_layer_ln_pos", [3, 16, 5, 3, 16, 5, 0, 9],
         [[1, 2, 3, 4, 5, 6, 7, 8, 9], [16, 15, 14, 13, 12, 11, 10], [0, 0, 0, 0], [5, 3, 16, 5, 3, 16, 2]])
    make("one_layer_plain", [4, 7, 1, 4, 7], [[10, 9, 8, 7, 6, 5], [1, 2, 3]])
