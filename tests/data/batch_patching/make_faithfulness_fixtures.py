#!/usr/bin/env python3
"""Reference for core/circuit_faithfulness.hpp (tests/core/circuit_faithfulness_test.cpp; not run in CI).

An independent float64 implementation in PyTorch: the attention-only forward of make_fixtures.py
written again with a set of head outputs replaced (each a full forward pass; the heads kept are
recomputed from the changed residual stream). For pair i with LD = logit[answer] - logit[wrong] at the
last position, LD_clean, LD_corrupted on the two prompts, and a circuit C (a set of heads):
  recovery(C) = (LD_C - LD_corrupted) / (LD_clean - LD_corrupted)
where LD_C is the clean prompt's LD with every head outside C replaced at every position by
  corrupted: its output on pair i's corrupted prompt, or
  mean:      its output averaged over the N corrupted prompts (torch.stack(...).mean(0)).
Per pair: recovery(C) and recovery(C without head j) for each head j of C (layer-then-head order).
Per row: mean, bootstrap 95 % interval and sign-flip p-value from THESE per-pair values with the
core's generator (make_fixtures.plan / interval: B = K = 200, seed 5; the test feeds the same values
to cell_interval and asks for the same bits).

Writes faithfulness_expected.json for tests/data/transformer/two_layer_ln_pos and pairs.json, circuit
0.1 1.0 1.2. Regenerate (after make_fixtures.py):
  /usr/bin/python3 tests/data/batch_patching/make_faithfulness_fixtures.py
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

CIRCUIT = [(0, 1), (1, 0), (1, 2)]


def forward(cfg, w, tokens, replace=None):
    """Logits and every head's output; replace: {(l, h): output} written in place of those heads."""
    L, H, eps = cfg["n_layers"], cfg["n_heads"], 1e-5
    resid, causal = ref.embed(w, tokens)
    outputs = {}
    for l in range(L):
        x = ref.layer_norm(resid, w["blocks.%d.ln1.w" % l], w["blocks.%d.ln1.b" % l], eps)
        total = resid
        for h in range(H):
            out = ref.head_output(w, l, h, x, x, x, causal)
            if replace and (l, h) in replace:
                out = replace[(l, h)]
            outputs[(l, h)] = out
            total = total + out
        resid = total + w["blocks.%d.attn.b_O" % l]
    return ref.unembed(w, resid, eps), outputs


def main():
    cfg, w = ref.load_model()
    L, H = cfg["n_layers"], cfg["n_heads"]
    heads = [(l, h) for l in range(L) for h in range(H)]
    with open(os.path.join(HERE, "pairs.json")) as f:
        pairs = json.load(f)["pairs"]
    indices, signs = ref.plan(len(pairs))
    runs = []
    with torch.no_grad():
        for pair in pairs:
            clean_logits, _ = forward(cfg, w, pair["clean"])
            corrupted_logits, corrupted_out = forward(cfg, w, pair["corrupted"])
            runs.append((clean_logits, corrupted_logits, corrupted_out))
        mean_out = {hd: torch.stack([r[2][hd] for r in runs]).mean(0) for hd in heads}
        expected = {
            "settings": {"resamples": ref.B, "permutations": ref.K, "seed": ref.SEED},
            "circuit": [list(hd) for hd in CIRCUIT],
        }
        for ablation in ["corrupted", "mean"]:
            recovery, leave_one_out, lds = [], [], []
            for pair, (clean_logits, corrupted_logits, corrupted_out) in zip(pairs, runs):
                a, b = pair["answer"], pair["wrong"]
                ld_clean = ref.logit_difference(clean_logits, a, b)
                ld_corrupted = ref.logit_difference(corrupted_logits, a, b)
                source = corrupted_out if ablation == "corrupted" else mean_out

                def recover(circuit):
                    replace = {hd: source[hd] for hd in heads if hd not in circuit}
                    logits, _ = forward(cfg, w, pair["clean"], replace)
                    return (ref.logit_difference(logits, a, b) - ld_corrupted) / (ld_clean - ld_corrupted)

                lds.append((ld_clean, ld_corrupted))
                recovery.append(recover(CIRCUIT))
                leave_one_out.append([recover([hd for hd in CIRCUIT if hd != drop]) for drop in CIRCUIT])
            rows = [recovery] + [[p[j] for p in leave_one_out] for j in range(len(CIRCUIT))]
            expected[ablation] = {
                "clean_logit_difference": [x[0] for x in lds],
                "corrupted_logit_difference": [x[1] for x in lds],
                "recovery": recovery,
                "leave_one_out": leave_one_out,
                "intervals": [ref.interval(row, indices, signs) for row in rows],
            }
    write_json(os.path.join(HERE, "faithfulness_expected.json"), expected)


if __name__ == "__main__":
    main()
