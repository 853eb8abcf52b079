#!/usr/bin/env python3
"""PyTorch float64 reference for QK attribution (core/qk_attribution.hpp); not run in CI.

For each model of tests/data/transformer and tests/data/archs (read here from its .json and
.safetensors; the prompt is the `tokens` of its .expected.safetensors), one head (layer, head) and
one query position i, writes into qk_attribution.expected.safetensors:
  <model>.query    [3]          layer, head, i
  <model>.parts    [i+1, S, S]  parts[j][a][b]: query-side source a against key-side source b
  <model>.scores   [i+1]        the model's scaled scores s_ij (before the mask), from torch's forward
Sources, in order: embed, pos (learned or shortformer positions), L{l'}H{h'} for every earlier
head, bias.

Written independently of the C++: the sources are stacked into one S × T × d tensor; the layer's
normalisation (LN / LNPre centre, RMS / RMSPre do not; scale frozen at the forward pass's value)
is applied to the stack at once, ln.b (LN only) joins the bias source; shortformer positions join
the stack after the normalisation, unnormalised, as they join the query and key inputs; then the
stack is projected by W_Q / W_K (the key-value head's with grouped heads; b_Q / b_K on the bias
source), every source's q and k rotated to its position with rotary positions (a real 2 × 2
rotation of each component pair, not the core's code), and every pair's score is one einsum.
The script checks that the parts sum to torch's scores before it writes.
Regenerate (Debian: apt-get install -y python3-torch):
  /usr/bin/python3 tests/data/qk_attribution/make_fixtures.py
"""
import json
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ beside the fixtures
sys.path.insert(0, os.path.join(HERE, ".."))
from fixture_io import read_safetensors, write_safetensors  # noqa: E402
DATA = os.path.join(HERE, "..")
EPS = 1e-5

# (folder, model, layer, head, query position): every normalisation (none, LN, LNPre, RMS, RMSPre),
# positions learned, shortformer, rotary (GPT-NeoX half split; GPT-J adjacent pairs on part of
# d_head) and none, with and without biases, grouped and multi-query key-value heads, F32 storage.
CASES = [
    ("transformer", "one_layer_plain", 0, 1, 5),
    ("transformer", "two_layer_ln_pos", 1, 2, 8),
    ("transformer", "two_layer_lnpre_pos", 1, 0, 6),
    ("transformer", "three_layer_ln_f32", 2, 1, 4),
    ("archs", "rope_neox_rms_nobias", 1, 2, 7),
    ("archs", "rope_gptj_partial_gqa", 1, 3, 6),
    ("archs", "shortformer_ln", 1, 1, 8),
    ("archs", "mqa_nopos_lnpre", 0, 2, 5),
]


def rotate(x, cfg):
    """x [..., T, c]: row p's component pairs (first_k, second_k), k < rotary_dim/2, turned by p·ω_k,
    ω_k = rotary_base^(−2k/rotary_dim): (a, b) → (a cos − b sin, b cos + a sin)."""
    r, T = cfg["rotary_dim"], x.shape[-2]
    k = torch.arange(r // 2, dtype=torch.float64)
    if cfg.get("rotary_adjacent_pairs", False):
        first, second = 2 * k.long(), 2 * k.long() + 1
    else:
        first, second = k.long(), k.long() + r // 2
    angle = torch.arange(T, dtype=torch.float64)[:, None] * cfg["rotary_base"] ** (-2 * k / r)[None, :]
    a, b = x[..., first], x[..., second]
    out = x.clone()
    out[..., first] = a * angle.cos() - b * angle.sin()
    out[..., second] = b * angle.cos() + a * angle.sin()
    return out


def attribution(folder, name, layer, head, i):
    models = os.path.join(DATA, folder)
    with open(os.path.join(models, name + ".json")) as f:
        cfg = json.load(f)
    sd = {k: v.to(torch.float64) for k, v in read_safetensors(os.path.join(models, name + ".safetensors")).items()
          if v.dtype != torch.bool and v.dim() > 0}
    tokens = read_safetensors(os.path.join(models, name + ".expected.safetensors"))["tokens"].long()
    T, d, c, H = len(tokens), cfg["d_model"], cfg["d_head"], cfg["n_heads"]
    G = cfg.get("n_key_value_heads", 0) or H
    norm = cfg["normalization"]
    positions = cfg.get("positional_embedding", "standard")
    divisor = cfg.get("attn_scale", 0) or math.sqrt(c)
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    zero = torch.zeros

    def weights(l):
        """W_Q, W_K, W_V [H, d, c] (key-value heads repeated per query head), b_Q, b_K, b_V [H, c], b_O [d]."""
        p = f"blocks.{l}.attn."
        kv = p + "_" if p + "_W_K" in sd else p
        out = [sd[p + "W_Q"]]
        out += [sd[kv + n].repeat_interleave(H // G, 0) for n in ("W_K", "W_V")]
        out += [sd.get(p + "b_Q", zero(H, c, dtype=torch.float64))]
        out += [sd.get(kv + n, zero(G, c, dtype=torch.float64)).repeat_interleave(H // G, 0) for n in ("b_K", "b_V")]
        return out + [sd.get(p + "b_O", zero(d, dtype=torch.float64))]

    def normalise(x, l):
        """x̂ and σ (T × 1) of layer l's normalisation."""
        if norm == "none":
            return x, None
        if norm in ("LN", "LNPre"):
            x = x - x.mean(-1, keepdim=True)
        sigma = (x.pow(2).mean(-1, keepdim=True) + EPS).sqrt()
        x = x / sigma
        if norm in ("LN", "RMS"):
            x = x * sd[f"blocks.{l}.ln1.w"]
        if norm == "LN":
            x = x + sd[f"blocks.{l}.ln1.b"]
        return x, sigma

    # Sources of the residual stream, each T × d, and the forward pass up to `layer`.
    names, stack = ["embed"], [sd["embed.W_E"][tokens]]
    if positions == "standard":
        names.append("pos")
        stack.append(sd["pos_embed.W_pos"][:T])
    bias_resid = torch.zeros(T, d, dtype=torch.float64)
    resid = sum(stack)
    for l in range(layer + 1):
        x, sigma = normalise(resid, l)
        qk_in = x + sd["pos_embed.W_pos"][:T] if positions == "shortformer" else x
        W_Q, W_K, W_V, b_Q, b_K, b_V, b_O = weights(l)
        q = torch.einsum("td,hdc->htc", qk_in, W_Q) + b_Q[:, None, :]
        k = torch.einsum("td,hdc->htc", qk_in, W_K) + b_K[:, None, :]
        if positions == "rotary":
            q, k = rotate(q, cfg), rotate(k, cfg)
        scores = torch.einsum("hic,hjc->hij", q, k) / divisor
        if l == layer:
            break
        v = torch.einsum("td,hdc->htc", x, W_V) + b_V[:, None, :]
        pattern = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
        out = torch.einsum("hij,hjc,hcd->hid", pattern, v, sd[f"blocks.{l}.attn.W_O"])
        for h in range(H):
            names.append(f"L{l}H{h}")
            stack.append(out[h])
        resid = resid + out.sum(0) + b_O
        bias_resid = bias_resid + b_O
    names.append("bias")
    stack.append(bias_resid)
    C = torch.stack(stack)  # S × T × d

    # The layer's normalisation applied to every source at once, σ frozen (sigma: T × 1).
    p = f"blocks.{layer}."
    if norm != "none":
        if norm in ("LN", "LNPre"):
            C = C - C.mean(-1, keepdim=True)
        C = C / sigma[None]
        if norm in ("LN", "RMS"):
            C = C * sd[p + "ln1.w"]
        if norm == "LN":
            C[-1] = C[-1] + sd[p + "ln1.b"]
    if positions == "shortformer":  # after the normalisation, into q and k only
        names.insert(1, "pos")
        C = torch.cat([C[:1], sd["pos_embed.W_pos"][:T][None], C[1:]])
    Q = torch.einsum("std,dc->stc", C, W_Q[head])
    K = torch.einsum("std,dc->stc", C, W_K[head])
    Q[-1] += b_Q[head]
    K[-1] += b_K[head]
    if positions == "rotary":
        Q, K = rotate(Q, cfg), rotate(K, cfg)
    parts = torch.einsum("ac,bjc->jab", Q[:, i], K[:, : i + 1]) / divisor
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
    write_safetensors(os.path.join(HERE, "qk_attribution.expected.safetensors"),
                      {k: v.to(torch.float64) for k, v in tensors.items()}, sort_keys=True)


if __name__ == "__main__":
    main()
