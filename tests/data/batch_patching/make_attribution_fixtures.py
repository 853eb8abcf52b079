#!/usr/bin/env python3
"""Reference for core/attribution_patching.hpp (tests/core/attribution_patching_test.cpp; not run in CI).

An independent float64 implementation in PyTorch of attribution patching with torch autograd (no
hand-written backward): the forward of make_path_fixtures.py with a zero tensor added to every head's
output and to every receiver input's copy of resid_pre (the input of LN that head h's q, k or v alone
reads), all requiring gradients. One backward of LD = logit[answer] - logit[wrong] at the last position
of the clean run gives dLD/d head_output(l, h) and dLD/d resid_pre(l) through head h's q, k or v only.
With delta(l, h) = corrupted head_output - clean head_output and span = LD_clean - LD_corrupted:
  node (l, h)             estimate = -sum(delta(l, h) * dLD/d head_output(l, h)) / span
  edge s -> r via kind    estimate = -sum(delta(s) * dLD/d resid_pre(l_r) through r's kind) / span
The real patches: a node is the clean run with head (l, h)'s output replaced by the corrupted one (a
full forward pass); an edge is path patching's effect, read from path_expected.json
(make_path_fixtures.py). Agreement: Spearman's rank correlation of the mean estimates and the mean
real effects (ranks with ties averaged, the Pearson correlation of the ranks) over the nodes, over
the 3E edge cells and over each input's E edges, and the 5 cells with the largest |difference|.

Writes attribution_expected.json for tests/data/transformer/two_layer_ln_pos and pairs.json.
Regenerate (after make_fixtures.py and make_path_fixtures.py):
  /usr/bin/python3 tests/data/batch_patching/make_attribution_fixtures.py
"""
import json
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
from fixture_io import write_json  # noqa: E402
import make_fixtures as ref  # noqa: E402

KINDS = "qkv"
TOP = 5


def forward(cfg, w, tokens, taps=None, replace=None):
    """Logits and the head outputs. taps: zero tensors added to each head output ("out", l, h) and to
    each receiver input's resid_pre ((kind, l, h)); replace = (l, h, output) swaps one head's output."""
    L, H, eps = cfg["n_layers"], cfg["n_heads"], 1e-5
    resid, causal = ref.embed(w, tokens)
    outputs = {}
    for l in range(L):
        ln_w, ln_b = w["blocks.%d.ln1.w" % l], w["blocks.%d.ln1.b" % l]
        total = resid
        for h in range(H):
            x = {}
            for kind in KINDS:
                tap = taps[(kind, l, h)] if taps else 0
                x[kind] = ref.layer_norm(resid + tap, ln_w, ln_b, eps)
            out = ref.head_output(w, l, h, x["q"], x["k"], x["v"], causal)
            if replace and replace[0] == l and replace[1] == h:
                out = replace[2]
            if taps:
                out = out + taps[("out", l, h)]
            outputs[(l, h)] = out
            total = total + out
        resid = total + w["blocks.%d.attn.b_O" % l]
    return ref.unembed(w, resid, eps), outputs


def ranks(x):
    order = sorted(range(len(x)), key=lambda i: x[i])
    r = [0.0] * len(x)
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and x[order[j + 1]] == x[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(x, y):
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / math.sqrt(sxx * syy)


def largest(estimate, actual):
    cells = sorted(range(len(estimate)), key=lambda i: (-abs(estimate[i] - actual[i]), i))[:TOP]
    return [{"cell": i, "estimate": estimate[i], "actual": actual[i], "gap": abs(estimate[i] - actual[i])} for i in cells]


def mean(rows):
    return [sum(col) / len(rows) for col in zip(*rows)]


def main():
    cfg, w = ref.load_model()
    L, H, d = cfg["n_layers"], cfg["n_heads"], cfg["d_model"]
    with open(os.path.join(HERE, "pairs.json")) as f:
        pairs = json.load(f)["pairs"]
    with open(os.path.join(HERE, "path_expected.json")) as f:
        path = json.load(f)
    edges = [(ls, hs, lr, hr) for ls in range(L) for hs in range(H) for lr in range(ls + 1, L) for hr in range(H)]
    assert [list(e) for e in edges] == path["edges"]
    node_estimates, node_actuals, edge_estimates = [], [], []
    for pair in pairs:
        a, b, n = pair["answer"], pair["wrong"], len(pair["clean"])
        keys = [("out", l, h) for l in range(L) for h in range(H)]
        keys += [(kind, l, h) for kind in KINDS for l in range(L) for h in range(H)]
        taps = {key: torch.zeros(n, d, dtype=torch.float64, requires_grad=True) for key in keys}
        clean_logits, clean_out = forward(cfg, w, pair["clean"], taps)
        with torch.no_grad():
            corrupted_logits, corrupted_out = forward(cfg, w, pair["corrupted"])
        ld = clean_logits[-1, a] - clean_logits[-1, b]
        ld.backward()
        ld_clean = float(ld)
        span = ld_clean - ref.logit_difference(corrupted_logits, a, b)
        delta = {key: (corrupted_out[key] - clean_out[key]).detach() for key in clean_out}
        node_estimates.append([-float((delta[(l, h)] * taps[("out", l, h)].grad).sum()) / span for l in range(L) for h in range(H)])
        edge_estimates.append([[-float((delta[(ls, hs)] * taps[(kind, lr, hr)].grad).sum()) / span for kind in KINDS] for ls, hs, lr, hr in edges])
        ld_corrupted = ref.logit_difference(corrupted_logits, a, b)
        row = []
        with torch.no_grad():
            for l in range(L):
                for h in range(H):
                    logits, _ = forward(cfg, w, pair["clean"], replace=(l, h, corrupted_out[(l, h)]))
                    row.append(1.0 - (ref.logit_difference(logits, a, b) - ld_corrupted) / span)
        node_actuals.append(row)
    node_estimate_mean, node_actual_mean = mean(node_estimates), mean(node_actuals)
    flat = lambda grid: [x for row in grid for x in row]  # noqa: E731
    edge_estimate_mean = mean([flat(p) for p in edge_estimates])
    edge_actual_mean = mean([flat(p) for p in path["effects"]])
    expected = {
        "node_estimate": node_estimates,
        "node_actual": node_actuals,
        "edge_estimate": edge_estimates,
        "node_spearman": spearman(node_estimate_mean, node_actual_mean),
        "edge_spearman": spearman(edge_estimate_mean, edge_actual_mean),
        "edge_input_spearman": [spearman(edge_estimate_mean[j::3], edge_actual_mean[j::3]) for j in range(3)],
        "node_largest": largest(node_estimate_mean, node_actual_mean),
        "edge_largest": largest(edge_estimate_mean, edge_actual_mean),
    }
    write_json(os.path.join(HERE, "attribution_expected.json"), expected)


if __name__ == "__main__":
    main()
