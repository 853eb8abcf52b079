#!/usr/bin/env python3
"""Reference values for composition scores, the logit lens and head SVDs (not run in CI).

An independent float64 implementation in torch, on the models of tests/data/transformer (their
.json config, .safetensors weights and the tokens of .expected.safetensors). Unlike the core, it
forms every d × d matrix whole and calls torch.linalg (svd, eigvals, matrix norms). Per model it
writes <name>.circuits.safetensors:
  comp_q, comp_k, comp_v  [L·H, L·H]  composition scores [later][earlier], 0 unless earlier's layer < later's
  ov_sv, qk_sv            [L·H, c]    singular values, descending (the first c of d)
  eig_abs                 [L·H, c]    the c largest |λ| of W_E W_OV W_U, descending
  copying                 [L·H]       Σ max(Re λ, 0) / Σ |λ| over all V eigenvalues
  ov_input, ov_output, qk_query, qk_key  [L·H, V]  top singular direction read in token space, the
                                      sign making the input (query) reading's largest-|·| entry positive
  lens_probability        [L+1, T, V] softmax(LN_final(resid_s) W_U + b_U), σ recomputed per stage
  lens_answers            [T]         next prompt token; at the last position the model's top token
Reading matrices carry their layer's normalisation folded in: W ← P diag(w) W (LN), P W (LNPre),
P = I − 11ᵀ/d; W_U likewise with the final normalisation.
Regenerate (Debian: apt-get install -y python3-torch):
  /usr/bin/python3 tests/data/head_circuits/make_fixtures.py
"""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ beside the fixtures
sys.path.insert(0, os.path.join(HERE, ".."))
from fixture_io import read_safetensors_f64, write_safetensors  # noqa: E402
MODELS = os.path.join(HERE, "..", "transformer")
EPS = 1e-5


def fold(W, w, normalization):
    if normalization == "LN":
        W = W * w[:, None]
    if normalization != "none":
        W = W - W.mean(0, keepdim=True)
    return W


def layer_norm(x, w, b):
    x = x - x.mean(-1, keepdim=True)
    y = x / (x.pow(2).mean(-1, keepdim=True) + EPS).sqrt()
    return y * w + b if w is not None else y


def sign_fixed(first, second):
    if first[first.abs().argmax()] < 0:
        return -first, -second
    return first, second


def make(name):
    with open(os.path.join(MODELS, name + ".json")) as f:
        cfg = json.load(f)
    sd = read_safetensors_f64(os.path.join(MODELS, name + ".safetensors"))
    tokens = read_safetensors_f64(os.path.join(MODELS, name + ".expected.safetensors"))["tokens"].long()
    L, H, d, c, V = cfg["n_layers"], cfg["n_heads"], cfg["d_model"], cfg["d_head"], cfg["d_vocab"]
    norm = cfg["normalization"]
    T = tokens.shape[0]
    W_E = sd["embed.W_E"]
    W_U = fold(sd["unembed.W_U"], sd.get("ln_final.w"), norm)
    OV, QK = [], []
    for l in range(L):
        p = f"blocks.{l}."
        for h in range(H):
            Wq, Wk, Wv = (fold(sd[p + "attn." + m][h], sd.get(p + "ln1.w"), norm) for m in ("W_Q", "W_K", "W_V"))
            OV.append(Wv @ sd[p + "attn.W_O"][h])
            QK.append(Wq @ Wk.T)
    n = L * H
    comp = {m: torch.zeros(n, n, dtype=torch.float64) for m in "qkv"}
    fro = torch.linalg.matrix_norm
    for later in range(n):
        for earlier in range((later // H) * H):
            e, lq, lo = OV[earlier], QK[later], OV[later]
            comp["q"][later, earlier] = fro(e @ lq) / (fro(e) * fro(lq))
            comp["k"][later, earlier] = fro(e @ lq.T) / (fro(e) * fro(lq))
            comp["v"][later, earlier] = fro(e @ lo) / (fro(e) * fro(lo))
    ov_sv, qk_sv, eig_abs, copying = [], [], [], []
    readings = {k: [] for k in ("ov_input", "ov_output", "qk_query", "qk_key")}
    for i in range(n):
        U, S, Vh = torch.linalg.svd(OV[i])
        ov_sv.append(S[:c])
        a, b = sign_fixed(W_E @ U[:, 0], Vh[0] @ W_U)
        readings["ov_input"].append(a)
        readings["ov_output"].append(b)
        U, S, Vh = torch.linalg.svd(QK[i])
        qk_sv.append(S[:c])
        a, b = sign_fixed(W_E @ U[:, 0], W_E @ Vh[0])
        readings["qk_query"].append(a)
        readings["qk_key"].append(b)
        lam = torch.linalg.eigvals(W_E @ OV[i] @ W_U)
        eig_abs.append(lam.abs().sort(descending=True).values[:c])
        copying.append(lam.real.clamp(min=0).sum() / lam.abs().sum())
    # Logit lens: rerun the forward pass, keeping the stream after the embedding and each layer.
    resid = W_E[tokens] + (sd["pos_embed.W_pos"][:T] if "pos_embed.W_pos" in sd else 0)
    stages = [resid]
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    for l in range(L):
        p = f"blocks.{l}."
        x = resid if norm == "none" else layer_norm(resid, sd.get(p + "ln1.w"), sd.get(p + "ln1.b"))
        zero = torch.zeros(H, c, dtype=torch.float64)
        q = torch.einsum("td,hdc->htc", x, sd[p + "attn.W_Q"]) + sd.get(p + "attn.b_Q", zero)[:, None, :]
        k = torch.einsum("td,hdc->htc", x, sd[p + "attn.W_K"]) + sd.get(p + "attn.b_K", zero)[:, None, :]
        v = torch.einsum("td,hdc->htc", x, sd[p + "attn.W_V"]) + sd.get(p + "attn.b_V", zero)[:, None, :]
        scores = (torch.einsum("hic,hjc->hij", q, k) / c ** 0.5).masked_fill(~causal, float("-inf"))
        out = torch.einsum("hij,hjc,hcd->id", torch.softmax(scores, -1), v, sd[p + "attn.W_O"])
        resid = resid + out + sd.get(p + "attn.b_O", torch.zeros(d, dtype=torch.float64))
        stages.append(resid)

    def read_out(r):
        x = r if norm == "none" else layer_norm(r, sd.get("ln_final.w"), sd.get("ln_final.b"))
        return x @ sd["unembed.W_U"] + sd.get("unembed.b_U", torch.zeros(V, dtype=torch.float64))

    probability = torch.stack([torch.softmax(read_out(r), -1) for r in stages])
    answers = torch.cat([tokens[1:], read_out(stages[-1])[-1].argmax().reshape(1)]).to(torch.float64)
    out = {"comp_q": comp["q"], "comp_k": comp["k"], "comp_v": comp["v"], "ov_sv": torch.stack(ov_sv),
           "qk_sv": torch.stack(qk_sv), "eig_abs": torch.stack(eig_abs),
           "copying": torch.stack(copying).to(torch.float64), "lens_probability": probability,
           "lens_answers": answers}
    out.update({k: torch.stack(v) for k, v in readings.items()})
    write_safetensors(os.path.join(HERE, name + ".circuits.safetensors"), out)


if __name__ == "__main__":
    for model in ("one_layer_plain", "two_layer_ln_pos", "two_layer_lnpre_pos", "three_layer_ln_f32"):
        make(model)
