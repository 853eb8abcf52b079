#!/usr/bin/env python3
"""Reference for core/batch_patching.hpp (tests/core/batch_patching_test.cpp; not run in CI).

An independent float64 implementation in PyTorch: the attention-only transformer of
core/transformer.hpp written from its equations, every patch a full forward pass with one
activation replaced (no reuse of the clean run), and the interval statistics with the core's
generator (xoshiro256** seeded through splitmix64, Lemire's bounded draw) ported below.

Writes, for tests/data/transformer/two_layer_ln_pos.{json,safetensors} (2 layers × 3 heads, LN,
learned W_pos, d_vocab 17):
  pairs.json      66 prompt pairs of 6 tokens (66 > 64: the sign-flip words span two 64-bit words),
                  each corrupted at one or two positions, |LD_clean − LD_corrupted| > 0.1
  expected.json   per pair: LD_clean, LD_corrupted and the effects e = 1 − n of every cell of the three
                  grids (head_position (L·H) × T, resid_position L × T, head_component (L·H) × 4 for
                  q, k, v, z); per cell: mean, bootstrap 95 % interval and sign-flip p-value computed
                  from THESE per-pair effects with B = K = 200, seed 5 (the test feeds the same
                  effects to cell_interval and asks for the same bits)
Regenerate: /usr/bin/python3 tests/data/batch_patching/make_fixtures.py
"""
import json
import math
import os
import sys
import random

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ beside the fixtures
sys.path.insert(0, os.path.join(HERE, ".."))
from fixture_io import read_safetensors, write_json  # noqa: E402
MODEL = os.path.join(HERE, "..", "transformer", "two_layer_ln_pos")
N_PAIRS, T, SEED, B, K = 66, 6, 5, 200, 200
MASK64 = (1 << 64) - 1


def load_model():
    """The fixture model's config and its float64 weights (the buffers, BOOL and F32, left out)."""
    with open(MODEL + ".json") as f:
        cfg = json.load(f)
    w = {k: v for k, v in read_safetensors(MODEL + ".safetensors").items() if v.dtype == torch.float64}
    return cfg, w


def layer_norm(x, weight, bias, eps):
    centred = x - x.mean(-1, keepdim=True)
    scale = torch.sqrt((centred * centred).mean(-1, keepdim=True) + eps)
    return centred / scale * weight + bias


def embed(w, tokens):
    """resid_pre of layer 0 (token + position embeddings, T × d) and the causal mask (T × T)."""
    tokens = torch.tensor(tokens)
    n = len(tokens)
    return w["embed.W_E"][tokens] + w["pos_embed.W_pos"][:n], torch.tril(torch.ones(n, n, dtype=torch.bool))


def head_output(w, l, h, xq, xk, xv, causal):
    """Head (l, h)'s output z W_O when its query, key and value read the normalised streams xq, xk, xv:
    z = softmax(mask(q kᵀ / √d_head)) v."""
    p = "blocks.%d.attn." % l
    q = xq @ w[p + "W_Q"][h] + w[p + "b_Q"][h]
    k = xk @ w[p + "W_K"][h] + w[p + "b_K"][h]
    v = xv @ w[p + "W_V"][h] + w[p + "b_V"][h]
    scores = ((q @ k.T) / math.sqrt(q.shape[1])).masked_fill(~causal, float("-inf"))
    return (torch.softmax(scores, dim=-1) @ v) @ w[p + "W_O"][h]


def unembed(w, resid, eps):
    """The logits (T × V) of the last residual stream: final LayerNorm, then W_U and b_U."""
    x = layer_norm(resid, w["ln_final.w"], w["ln_final.b"], eps)
    return x @ w["unembed.W_U"] + w["unembed.b_U"]


def forward(cfg, w, tokens, patch=None, source=None):
    """Final logits (T × V) and a cache of every activation. patch = (kind, layer, head, pos):
    kind "resid" replaces resid_pre[layer][pos]; "head" head_output[layer][head][pos]; "q", "k",
    "v", "z" the head's query/key/value/z at every position; values come from `source` (a cache)."""
    L, H, eps = cfg["n_layers"], cfg["n_heads"], 1e-5
    resid, causal = embed(w, tokens)
    cache = {}
    for l in range(L):
        if patch and patch[0] == "resid" and patch[1] == l:
            resid = resid.clone()
            resid[patch[3]] = source[("resid_pre", l)][patch[3]]
        cache[("resid_pre", l)] = resid
        x = layer_norm(resid, w["blocks.%d.ln1.w" % l], w["blocks.%d.ln1.b" % l], eps)
        total = resid.clone()
        for h in range(H):
            p = "blocks.%d.attn." % l
            q = x @ w[p + "W_Q"][h] + w[p + "b_Q"][h]
            k = x @ w[p + "W_K"][h] + w[p + "b_K"][h]
            v = x @ w[p + "W_V"][h] + w[p + "b_V"][h]
            on_head = patch and patch[1] == l and patch[2] == h
            if on_head and patch[0] == "q":
                q = source[("q", l, h)]
            if on_head and patch[0] == "k":
                k = source[("k", l, h)]
            if on_head and patch[0] == "v":
                v = source[("v", l, h)]
            cache[("q", l, h)], cache[("k", l, h)], cache[("v", l, h)] = q, k, v
            scores = (q @ k.T) / math.sqrt(q.shape[1])
            scores = scores.masked_fill(~causal, float("-inf"))
            z = torch.softmax(scores, dim=-1) @ v
            if on_head and patch[0] == "z":
                z = source[("z", l, h)]
            cache[("z", l, h)] = z
            out = z @ w[p + "W_O"][h]
            if on_head and patch[0] == "head":
                out = out.clone()
                out[patch[3]] = source[("head", l, h)][patch[3]]
            cache[("head", l, h)] = out
            total = total + out
        resid = total + w["blocks.%d.attn.b_O" % l]
    return unembed(w, resid, eps), cache


def logit_difference(logits, answer, wrong):
    return float(logits[-1, answer] - logits[-1, wrong])


# ---- core/random.hpp: splitmix64, xoshiro256**, Random::stream, Lemire's below ----


def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & MASK64


class Random:
    def __init__(self, seed):
        self.seed = seed
        self.s = []
        state = seed
        for _ in range(4):
            state, word = splitmix64(state)
            self.s.append(word)

    def stream(self, stream_id):
        _, word = splitmix64(self.seed ^ ((0xD1B54A32D192ED03 * (stream_id + 1)) & MASK64))
        return Random(word)

    def next_u64(self):
        s = self.s
        result = (rotl((s[1] * 5) & MASK64, 7) * 9) & MASK64
        t = (s[1] << 17) & MASK64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result

    def below(self, n):
        m = (self.next_u64() >> 32) * n
        low = m & 0xFFFFFFFF
        if low < n:
            threshold = ((1 << 32) - n) % n
            while low < threshold:
                m = (self.next_u64() >> 32) * n
                low = m & 0xFFFFFFFF
        return m >> 32


BOOTSTRAP_STREAM, PERMUTATION_STREAM = 11, 12


def plan(n):
    boot = Random(SEED).stream(BOOTSTRAP_STREAM)
    indices = [[boot.below(n) for _ in range(n)] for _ in range(B)]
    flip = Random(SEED).stream(PERMUTATION_STREAM)
    words = (n + 63) // 64
    signs = [[flip.next_u64() for _ in range(words)] for _ in range(K)]
    return indices, signs


def interval(e, indices, signs):
    n = len(e)
    total = 0.0
    for x in e:
        total += x
    mean = total / n
    means = []
    for row in indices:
        s = 0.0
        for i in row:
            s += e[i]
        means.append(s / n)
    means.sort()
    lower = means[(B - 1) * 25 // 1000]
    upper = means[((B - 1) * 975 + 999) // 1000]
    extreme = 0
    for row in signs:
        s = 0.0
        for i in range(n):
            s += -e[i] if (row[i // 64] >> (i % 64)) & 1 else e[i]
        if abs(s / n) >= abs(mean):
            extreme += 1
    return {"mean": mean, "lower": lower, "upper": upper, "p_value": (1 + extreme) / (1 + K)}


def main():
    cfg, w = load_model()
    L, H, V = cfg["n_layers"], cfg["n_heads"], cfg["d_vocab"]
    rng = random.Random(20261203)
    pairs, records = [], []
    while len(pairs) < N_PAIRS:
        clean = [rng.randrange(V) for _ in range(T)]
        corrupted = list(clean)
        for p in rng.sample(range(T - 1), rng.choice([1, 2])):
            corrupted[p] = (clean[p] + 1 + rng.randrange(V - 1)) % V
        answer, wrong = rng.sample(range(V), 2)
        clean_logits, clean_cache = forward(cfg, w, clean)
        corrupted_logits, corrupted_cache = forward(cfg, w, corrupted)
        ld_clean = logit_difference(clean_logits, answer, wrong)
        ld_corrupted = logit_difference(corrupted_logits, answer, wrong)
        if abs(ld_clean - ld_corrupted) <= 0.1:
            continue
        span = ld_clean - ld_corrupted

        def effect(patch):
            logits, _ = forward(cfg, w, clean, patch, corrupted_cache)
            return 1.0 - (logit_difference(logits, answer, wrong) - ld_corrupted) / span

        head_position = [[effect(("head", l, h, p)) for p in range(T)] for l in range(L) for h in range(H)]
        resid_position = [[effect(("resid", l, None, p)) for p in range(T)] for l in range(L)]
        head_component = [[effect((kind, l, h, None)) for kind in "qkvz"] for l in range(L) for h in range(H)]
        pairs.append({"clean": clean, "corrupted": corrupted, "answer": answer, "wrong": wrong})
        records.append((ld_clean, ld_corrupted, head_position, resid_position, head_component))
    indices, signs = plan(N_PAIRS)
    expected = {
        "settings": {"resamples": B, "permutations": K, "seed": SEED},
        "clean_logit_difference": [r[0] for r in records],
        "corrupted_logit_difference": [r[1] for r in records],
    }
    for g, name in enumerate(["head_position", "resid_position", "head_component"]):
        effects = [r[2 + g] for r in records]
        rows, cols = len(effects[0]), len(effects[0][0])
        stats = {"mean": [], "lower": [], "upper": [], "p_value": []}
        for i in range(rows):
            row_stats = [interval([e[i][j] for e in effects], indices, signs) for j in range(cols)]
            for key in stats:
                stats[key].append([s[key] for s in row_stats])
        expected[name] = dict(effects=effects, **stats)
    write_json(os.path.join(HERE, "pairs.json"), {"pairs": pairs})
    write_json(os.path.join(HERE, "expected.json"), expected)


if __name__ == "__main__":
    main()
