#!/usr/bin/env python3
"""Reference for circuits of edges in core/circuit_faithfulness.hpp (tests/core/circuit_faithfulness_test.cpp;
not run in CI).

An independent float64 implementation in PyTorch of the attention-only forward of make_fixtures.py
in which each head of the circuit reads each of its three inputs from a residual stream of its own.
A circuit of edges E (sender head s -> receiver head r, input kappa in q, k, v; l_s < l_r) has the
heads H(E) of its edges. Every head outside H(E) writes its replacement at every position (its output
on pair i's corrupted prompt, or the mean of its outputs over the N corrupted prompts). A head r of
H(E) computes input kappa from
    LN_r(resid_pre(l_r) - sum over s in H(E), l_s < l_r, (s -> r, kappa) not in E of (out_s - repl_s))
where out_s is s's output in this same pass (a full pass, no reuse). The logits read every head as
this pass computes it. recovery(E) = (LD_E - LD_corrupted) / (LD_clean - LD_corrupted) at the last
position, per pair; the leave-one-out rows cut each edge of E in turn (the heads stay H(E): one path
is cut, not the heads it joined); the intervals are
make_fixtures.interval's (B = K = 200, seed 5) of THESE per-pair values.

Writes faithfulness_edges_expected.json for tests/data/transformer/two_layer_ln_pos and pairs.json,
edges 0.1>1.0:k, 0.1>1.2:q, 0.1>1.2:v (the heads of make_faithfulness_fixtures.py's circuit, with
three of the six edges between them). Regenerate (after make_fixtures.py):
  /usr/bin/python3 tests/data/batch_patching/make_edge_faithfulness_fixtures.py
"""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
from fixture_io import write_json  # noqa: E402
import make_fixtures as ref  # noqa: E402

EDGES = [(0, 1, 1, 0, "k"), (0, 1, 1, 2, "q"), (0, 1, 1, 2, "v")]
INPUTS = ["q", "k", "v"]


def plain_forward(cfg, w, tokens):
    """Logits and every head's output of an unpatched pass (for LD and the replacements)."""
    logits, cache = ref.forward(cfg, w, tokens)
    outputs = {(l, h): cache[("head", l, h)] for l in range(cfg["n_layers"]) for h in range(cfg["n_heads"])}
    return logits, outputs


def edge_forward(cfg, w, tokens, heads, edges, repl):
    """Logits of the clean prompt with the circuit of `edges` (a set of (ls, hs, lr, hr, kappa)) over `heads`."""
    L, H, eps = cfg["n_layers"], cfg["n_heads"], 1e-5
    resid, causal = ref.embed(w, tokens)
    change = {}
    for l in range(L):
        pre = resid
        total = pre
        for h in range(H):
            if (l, h) not in heads:
                total = total + repl[(l, h)]
                continue
            x = {}
            for kappa in INPUTS:
                stream = pre
                for (ls, hs) in sorted(heads):
                    if ls < l and (ls, hs, l, h, kappa) not in edges:
                        stream = stream - change[(ls, hs)]
                x[kappa] = ref.layer_norm(stream, w["blocks.%d.ln1.w" % l], w["blocks.%d.ln1.b" % l], eps)
            out = ref.head_output(w, l, h, x["q"], x["k"], x["v"], causal)
            change[(l, h)] = out - repl[(l, h)]
            total = total + out
        resid = total + w["blocks.%d.attn.b_O" % l]
    return ref.unembed(w, resid, eps)


def main():
    cfg, w = ref.load_model()
    heads = [(l, h) for l in range(cfg["n_layers"]) for h in range(cfg["n_heads"])]
    with open(os.path.join(HERE, "pairs.json")) as f:
        pairs = json.load(f)["pairs"]
    indices, signs = ref.plan(len(pairs))
    edges = set(EDGES)
    circuit = {(e[0], e[1]) for e in EDGES} | {(e[2], e[3]) for e in EDGES}
    expected = {
        "settings": {"resamples": ref.B, "permutations": ref.K, "seed": ref.SEED},
        "edges": [list(e) for e in EDGES],
    }
    with torch.no_grad():
        runs = []
        for pair in pairs:
            clean_logits, _ = plain_forward(cfg, w, pair["clean"])
            corrupted_logits, corrupted_out = plain_forward(cfg, w, pair["corrupted"])
            runs.append((clean_logits, corrupted_logits, corrupted_out))
        mean_out = {hd: torch.stack([r[2][hd] for r in runs]).mean(0) for hd in heads}
        for ablation in ["corrupted", "mean"]:
            recovery, leave_one_out = [], []
            for pair, (clean_logits, corrupted_logits, corrupted_out) in zip(pairs, runs):
                a, b = pair["answer"], pair["wrong"]
                ld_clean = ref.logit_difference(clean_logits, a, b)
                ld_corrupted = ref.logit_difference(corrupted_logits, a, b)
                repl = corrupted_out if ablation == "corrupted" else mean_out

                def recover(kept):
                    logits = edge_forward(cfg, w, pair["clean"], circuit, kept, repl)
                    return (ref.logit_difference(logits, a, b) - ld_corrupted) / (ld_clean - ld_corrupted)

                recovery.append(recover(edges))
                leave_one_out.append([recover(edges - {e}) for e in EDGES])
            rows = [recovery] + [[p[j] for p in leave_one_out] for j in range(len(EDGES))]
            expected[ablation] = {
                "recovery": recovery,
                "leave_one_out": leave_one_out,
                "intervals": [ref.interval(row, indices, signs) for row in rows],
            }
    write_json(os.path.join(HERE, "faithfulness_edges_expected.json"), expected)


if __name__ == "__main__":
    main()
