#!/usr/bin/env python3
"""Reference fixtures for the architectures beyond LayerNorm + learned positions (not run in CI).

An independent float64 PyTorch implementation of TransformerLens's attention-only forward pass
(HookedTransformer with attn_only=True) for RoPE (GPT-NeoX half split and GPT-J adjacent pairs,
partial rotary_dim, rotary_base), RMSNorm / RMSPre, shortformer positions (W_pos added to the
query and key inputs after ln1, as TransformerBlock does), grouped key-value heads
(TransformerLens's _W_K / _W_V with n_key_value_heads heads, repeat_interleave'd) and attn_scale.
Rotary here is written as complex multiplication of each component pair by e^{i·p·ω_k},
ω_k = base^(−2k/rotary_dim); the core (core/rotary.cpp) uses real sin/cos of its own.

Per model <name>:
  <name>.json                 the headlab config
  <name>.safetensors          TransformerLens state_dict names, with the attn.mask / IGNORE and
                              (rotary) attn.rotary_sin / rotary_cos buffers TransformerLens keeps
  <name>.pt                   the same state_dict as torch.save writes it
  <name>.expected.safetensors tokens [T], logits [T, V], patterns [L, H, T, T], the direct logit
                              attribution at the last position to its top token (final
                              normalisation's scale frozen): dla_token, dla_heads [L, H], dla_embed,
                              dla_pos_embed; and qk_offset_<o> [V, V] for o in QK_OFFSETS: layer 0
                              head 0's token QK circuit with the key o positions before the query
Regenerate (Debian: apt-get install -y python3-torch):
  /usr/bin/python3 tests/data/archs/make_fixtures.py
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
QK_OFFSETS = (0, 3)


def normalize(x, kind, w, b):
    """(x̂, σ) per position: LN / LNPre centre, RMS / RMSPre do not."""
    if kind == "none":
        return x, None
    if kind in ("LN", "LNPre"):
        x = x - x.mean(-1, keepdim=True)
    scale = (x.pow(2).mean(-1, keepdim=True) + EPS).sqrt()
    y = x / scale
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y, scale


def pair_indices(rotary_dim, adjacent):
    half = rotary_dim // 2
    if adjacent:
        return [2 * k for k in range(half)], [2 * k + 1 for k in range(half)]
    return list(range(half)), [k + half for k in range(half)]


def rotate(x, positions, cfg):
    """x [..., T, c]: each (first, second) component pair of the first rotary_dim turned by p·ω_k."""
    r = cfg["rotary_dim"]
    first, second = pair_indices(r, cfg["rotary_adjacent_pairs"])
    omega = cfg["rotary_base"] ** (-2.0 * torch.arange(r // 2, dtype=torch.float64) / r)
    turn = torch.polar(torch.ones(len(positions), r // 2, dtype=torch.float64),
                       torch.tensor(positions, dtype=torch.float64)[:, None] * omega[None, :])
    z = torch.complex(x[..., first], x[..., second]) * turn
    out = x.clone()
    out[..., first] = z.real
    out[..., second] = z.imag
    return out


def sin_cos_tables(cfg, n_ctx):
    """TransformerLens's rotary_sin / rotary_cos buffers (float32): one angle per component."""
    r = cfg["rotary_dim"]
    omega = cfg["rotary_base"] ** (-2.0 * torch.arange(r // 2, dtype=torch.float64) / r)
    per_component = omega.repeat_interleave(2) if cfg["rotary_adjacent_pairs"] else omega.repeat(2)
    angles = torch.arange(n_ctx, dtype=torch.float64)[:, None] * per_component[None, :]
    return torch.sin(angles).float(), torch.cos(angles).float()


def make(name, cfg, seed, T, biases=True, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    L, H, d, c, V, n_ctx = (cfg[k] for k in ("n_layers", "n_heads", "d_model", "d_head", "d_vocab", "n_ctx"))
    G = cfg.get("n_key_value_heads", 0) or H
    grouped = cfg.get("n_key_value_heads", 0) > 0
    norm, positions = cfg["normalization"], cfg["positional_embedding"]

    def randn(*shape, scale=0.5):
        return torch.randn(*shape, generator=g, dtype=torch.float64) * scale

    sd = {"embed.W_E": randn(V, d, scale=1.0)}
    if positions in ("standard", "shortformer"):
        sd["pos_embed.W_pos"] = randn(n_ctx, d, scale=1.0)
    kv = "attn._" if grouped else "attn."
    for l in range(L):
        p = f"blocks.{l}."
        if norm in ("LN", "RMS"):
            sd[p + "ln1.w"] = 1.0 + randn(d, scale=0.2)
        if norm == "LN":
            sd[p + "ln1.b"] = randn(d, scale=0.2)
        sd[p + "attn.W_Q"] = randn(H, d, c)
        sd[p + "attn.W_O"] = randn(H, c, d)
        if biases:
            sd[p + "attn.b_Q"] = randn(H, c, scale=0.2)
            sd[p + "attn.b_O"] = randn(d, scale=0.2)
        sd[p + kv + "W_K"] = randn(G, d, c)
        sd[p + kv + "W_V"] = randn(G, d, c)
        if biases:
            sd[p + kv + "b_K"] = randn(G, c, scale=0.2)
            sd[p + kv + "b_V"] = randn(G, c, scale=0.2)
    if norm in ("LN", "RMS"):
        sd["ln_final.w"] = 1.0 + randn(d, scale=0.2)
    if norm == "LN":
        sd["ln_final.b"] = randn(d, scale=0.2)
    sd["unembed.W_U"] = randn(d, V)
    if biases:
        sd["unembed.b_U"] = randn(V, scale=0.2)
    sd = {k: v.to(dtype).to(torch.float64) for k, v in sd.items()}  # the stored precision is the model

    zero_c = torch.zeros(H, c, dtype=torch.float64)
    tokens = torch.randint(0, V, (T,), generator=g)
    embed = sd["embed.W_E"][tokens]
    pos = sd["pos_embed.W_pos"][:T] if "pos_embed.W_pos" in sd else torch.zeros_like(embed)
    resid = embed + (pos if positions == "standard" else 0)
    scale_div = cfg.get("attn_scale", 0) or math.sqrt(c)
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    patterns, head_outputs = [], []

    def weights(l):
        p = f"blocks.{l}."
        repeat = H // G
        W_K = sd[p + kv + "W_K"].repeat_interleave(repeat, 0)
        W_V = sd[p + kv + "W_V"].repeat_interleave(repeat, 0)
        b_K = sd[p + kv + "b_K"].repeat_interleave(repeat, 0) if biases else zero_c
        b_V = sd[p + kv + "b_V"].repeat_interleave(repeat, 0) if biases else zero_c
        b_Q = sd[p + "attn.b_Q"] if biases else zero_c
        return sd[p + "attn.W_Q"], W_K, W_V, b_Q, b_K, b_V

    for l in range(L):
        p = f"blocks.{l}."
        x, _ = normalize(resid, norm, sd.get(p + "ln1.w"), sd.get(p + "ln1.b"))
        qk_in = x + pos if positions == "shortformer" else x
        W_Q, W_K, W_V, b_Q, b_K, b_V = weights(l)
        q = torch.einsum("td,hdc->htc", qk_in, W_Q) + b_Q[:, None, :]
        k = torch.einsum("td,hdc->htc", qk_in, W_K) + b_K[:, None, :]
        v = torch.einsum("td,hdc->htc", x, W_V) + b_V[:, None, :]
        if positions == "rotary":
            q, k = rotate(q, list(range(T)), cfg), rotate(k, list(range(T)), cfg)
        scores = torch.einsum("hic,hjc->hij", q, k) / scale_div
        pattern = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
        out = torch.einsum("hij,hjc,hcd->hid", pattern, v, sd[p + "attn.W_O"])
        patterns.append(pattern)
        head_outputs.append(out)
        resid = resid + out.sum(0) + (sd[p + "attn.b_O"] if biases else 0)
    final, scale = normalize(resid, norm, sd.get("ln_final.w"), sd.get("ln_final.b"))
    logits = final @ sd["unembed.W_U"] + (sd["unembed.b_U"] if biases else 0)

    last = T - 1
    token = int(logits[last].argmax())
    direction = sd["unembed.W_U"][:, token] * (sd["ln_final.w"] if "ln_final.w" in sd else 1.0)

    def dla(v):  # the final normalisation's map with σ frozen at the last position
        if norm in ("LN", "LNPre"):
            v = v - v.mean()
        if norm != "none":
            v = v / scale[last, 0]
        return float(v @ direction)

    expected = {
        "tokens": tokens.to(torch.float64),
        "logits": logits,
        "patterns": torch.stack(patterns),
        "dla_token": torch.tensor(float(token), dtype=torch.float64),
        "dla_heads": torch.tensor([[dla(head_outputs[l][h, last]) for h in range(H)] for l in range(L)],
                                  dtype=torch.float64),
        "dla_embed": torch.tensor(dla(embed[last]), dtype=torch.float64),
        "dla_pos_embed": torch.tensor(dla(pos[last]) if positions == "standard" else 0.0, dtype=torch.float64),
    }
    # Layer 0 head 0's QK circuit in token space (W_E only, no normalisation or biases, unscaled, as
    # TransformerLens's FactoredMatrix circuits): query token at position o, key token at 0. With
    # rotary positions the score depends on the offset o; otherwise every offset gives W_E W_Q W_Kᵀ W_Eᵀ.
    W_Q, W_K = weights(0)[:2]
    for o in QK_OFFSETS:
        q = (sd["embed.W_E"] @ W_Q[0])[None]
        k = (sd["embed.W_E"] @ W_K[0])[None]
        if positions == "rotary":
            q, k = rotate(q, [o], cfg), rotate(k, [0], cfg)
        expected[f"qk_offset_{o}"] = q[0] @ k[0].T

    with open(os.path.join(HERE, name + ".json"), "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
    stored = {k: v.to(dtype) for k, v in sd.items()}
    for l in range(L):  # TransformerLens buffers, after each attention's parameters
        stored[f"blocks.{l}.attn.mask"] = torch.tril(torch.ones(n_ctx, n_ctx, dtype=torch.bool))
        stored[f"blocks.{l}.attn.IGNORE"] = torch.tensor(float("-inf"), dtype=torch.float32)
        if positions == "rotary":
            stored[f"blocks.{l}.attn.rotary_sin"], stored[f"blocks.{l}.attn.rotary_cos"] = sin_cos_tables(cfg, n_ctx)
    write_safetensors(os.path.join(HERE, name + ".safetensors"), stored)
    torch.save(stored, os.path.join(HERE, name + ".pt"))
    write_safetensors(os.path.join(HERE, name + ".expected.safetensors"), expected)


def config(L, H, d, c, n_ctx, V, normalization, positions, **extra):
    cfg = {"n_layers": L, "n_heads": H, "d_model": d, "d_head": c, "n_ctx": n_ctx, "d_vocab": V,
           "normalization": normalization, "positional_embedding": positions}
    cfg.update(extra)
    return cfg


if __name__ == "__main__":
    # The puzzle-model layout: RoPE (NeoX, full width), RMSNorm, no biases.
    make("rope_neox_rms_nobias", config(2, 3, 12, 4, 10, 13, "RMS", "rotary", rotary_dim=4, rotary_base=10000,
                                        rotary_adjacent_pairs=False), 11, 9, biases=False)
    # GPT-J adjacent pairs on 4 of 6 components, base 500, RMSPre, grouped heads (4 on 2), attn_scale 2, F32.
    make("rope_gptj_partial_gqa", config(2, 4, 16, 6, 8, 11, "RMSPre", "rotary", rotary_dim=4, rotary_base=500,
                                         rotary_adjacent_pairs=True, n_key_value_heads=2, attn_scale=2.0),
         12, 8, dtype=torch.float32)
    # The ARENA induction model's layout: shortformer positions, LayerNorm, biases.
    make("shortformer_ln", config(2, 3, 12, 4, 9, 14, "LN", "shortformer"), 13, 9)
    # One key-value head for all (multi-query), no positions, LNPre.
    make("mqa_nopos_lnpre", config(1, 4, 8, 4, 6, 9, "LNPre", "none", n_key_value_heads=1), 14, 6)
