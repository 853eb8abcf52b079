#!/usr/bin/env python3
"""Reference for core/path_patching.hpp (tests/core/path_patching_test.cpp; not run in CI).

An independent float64 implementation in PyTorch of path patching, written from the equations of
core/path_patching.hpp: for each edge sender (l_s, h_s) -> receiver (l_r, h_r), l_s < l_r, and each
receiver input q, k, v, a full forward pass of the clean prompt in which only the receiver's chosen
input is computed from LN(resid_pre[l_r] + corrupted head_output[l_s][h_s] - clean head_output[l_s][h_s]);
every other activation up to the receiver is the clean run's, and the layers after it run freely.
The model, the pairs and the interval statistics (B = K = 200, seed 5, the core's generator) are those
of make_fixtures.py, imported from it.

Writes path_expected.json: per pair LD_clean, LD_corrupted and the E x 3 effects (edges sender-major,
then receiver layer and head; columns q, k, v); per cell mean, bootstrap 95 % interval and sign-flip
p-value from these per-pair effects.
Regenerate (after make_fixtures.py): /usr/bin/python3 tests/data/batch_patching/make_path_fixtures.py
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
from fixture_io import write_json  # noqa: E402
import make_fixtures as ref  # noqa: E402


def forward(cfg, w, tokens, path=None, delta=None):
    """Logits and a cache of head outputs. path = (l_r, h_r, kind): the receiver's `kind` input
    (q, k or v) reads LN(resid_pre + delta) instead of LN(resid_pre)."""
    L, H, eps = cfg["n_layers"], cfg["n_heads"], 1e-5
    resid, causal = ref.embed(w, tokens)
    cache = {}
    for l in range(L):
        ln_w, ln_b = w["blocks.%d.ln1.w" % l], w["blocks.%d.ln1.b" % l]
        x = ref.layer_norm(resid, ln_w, ln_b, eps)
        total = resid.clone()
        for h in range(H):
            inputs = {"q": x, "k": x, "v": x}
            if path and path[0] == l and path[1] == h:
                inputs[path[2]] = ref.layer_norm(resid + delta, ln_w, ln_b, eps)
            out = ref.head_output(w, l, h, inputs["q"], inputs["k"], inputs["v"], causal)
            cache[(l, h)] = out
            total = total + out
        resid = total + w["blocks.%d.attn.b_O" % l]
    return ref.unembed(w, resid, eps), cache


def main():
    cfg, w = ref.load_model()
    L, H = cfg["n_layers"], cfg["n_heads"]
    with open(os.path.join(HERE, "pairs.json")) as f:
        pairs = json.load(f)["pairs"]
    edges = [(ls, hs, lr, hr) for ls in range(L) for hs in range(H) for lr in range(ls + 1, L) for hr in range(H)]
    clean_lds, corrupted_lds, effects = [], [], []
    for pair in pairs:
        a, b = pair["answer"], pair["wrong"]
        clean_logits, clean_cache = forward(cfg, w, pair["clean"])
        corrupted_logits, corrupted_cache = forward(cfg, w, pair["corrupted"])
        ld_clean = ref.logit_difference(clean_logits, a, b)
        ld_corrupted = ref.logit_difference(corrupted_logits, a, b)
        span = ld_clean - ld_corrupted
        rows = []
        for ls, hs, lr, hr in edges:
            delta = corrupted_cache[(ls, hs)] - clean_cache[(ls, hs)]
            row = []
            for kind in "qkv":
                logits, _ = forward(cfg, w, pair["clean"], (lr, hr, kind), delta)
                row.append(1.0 - (ref.logit_difference(logits, a, b) - ld_corrupted) / span)
            rows.append(row)
        clean_lds.append(ld_clean)
        corrupted_lds.append(ld_corrupted)
        effects.append(rows)
    indices, signs = ref.plan(len(pairs))
    stats = {"mean": [], "lower": [], "upper": [], "p_value": []}
    for e in range(len(edges)):
        row_stats = [ref.interval([p[e][j] for p in effects], indices, signs) for j in range(3)]
        for key in stats:
            stats[key].append([s[key] for s in row_stats])
    expected = {
        "settings": {"resamples": ref.B, "permutations": ref.K, "seed": ref.SEED},
        "edges": [list(e) for e in edges],
        "clean_logit_difference": clean_lds,
        "corrupted_logit_difference": corrupted_lds,
        "effects": effects,
        **stats,
    }
    write_json(os.path.join(HERE, "path_expected.json"), expected)


if __name__ == "__main__":
    main()
