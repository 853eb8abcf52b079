#!/usr/bin/env python3
"""TransformerLens 4 bridge-named weights and their float64 reference (not run in CI).

A model laid out as TransformerLens 4's NativeModel (transformer_lens/model_bridge/sources/native/
model.py: tok_embed, pos, layers[l].ln1 and .attn.{q,k,v,o} as nn.Linear with biases, ln_out,
head without bias) with attn_only, LayerNorm and learned positions, in float64, and its
state_dict under the names TransformerBridge.state_dict() gives it (the adapter's renames in
transformer_lens/model_bridge/supported_architectures/native.py: tok_embed → embed, pos →
pos_embed, layers → blocks, ln_out → ln_final, head → unembed). Its forward pass here is
NativeModel's, written out with torch (debian python3-torch); the config is
tests/data/transformerlens_config/bridge_native_ln.json. Writes:
  bridge.safetensors     the bridge state_dict (F64), written by hand (8-byte little-endian header
                         length, JSON header, raw bytes: no safetensors package here)
  bridge.pt              the same, torch.save
  legacy.safetensors     the same weights under TransformerLens ≤ 3 names and shapes (W_Q [H, d, c],
                         W_O [H, c, d], b_Q [H, c], W_U [d, V], b_U zero), converted here with torch
                         the way TransformerLens's checkpoint conversion reads nn.Linear weights
  reference.json         {"prompt": [...], "logits": T × V, "patterns": L × H × T × T}: float64
Regenerate: /usr/bin/python3 tests/data/transformerlens_names/make_fixtures.py
"""
import collections
import json
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ beside the fixtures
sys.path.insert(0, os.path.join(HERE, ".."))
from fixture_io import write_safetensors  # noqa: E402
CONFIG = json.load(open(os.path.join(HERE, "../transformerlens_config/bridge_native_ln.json")))
L, H, D, C, N, V = (CONFIG[k] for k in ("n_layers", "n_heads", "d_model", "d_head", "n_ctx", "d_vocab"))
EPS = CONFIG["eps"]


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.q = torch.nn.Linear(D, H * C)
        self.k = torch.nn.Linear(D, H * C)
        self.v = torch.nn.Linear(D, H * C)
        self.o = torch.nn.Linear(H * C, D)

    def forward(self, x):
        T = x.shape[0]
        q = self.q(x).view(T, H, C).transpose(0, 1)
        k = self.k(x).view(T, H, C).transpose(0, 1)
        v = self.v(x).view(T, H, C).transpose(0, 1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(C)
        scores = scores.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float("-inf"))
        pattern = torch.softmax(scores, dim=-1)
        return self.o((pattern @ v).transpose(0, 1).reshape(T, H * C)), pattern


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = torch.nn.LayerNorm(D, eps=EPS)
        self.attn = Attention()

    def forward(self, x):
        out, pattern = self.attn(self.ln1(x))
        return x + out, pattern


class Native(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.tok_embed = torch.nn.Embedding(V, D)
        self.pos = torch.nn.Embedding(N, D)
        self.layers = torch.nn.ModuleList([Block() for _ in range(L)])
        self.ln_out = torch.nn.LayerNorm(D, eps=EPS)
        self.head = torch.nn.Linear(D, V, bias=False)

    def forward(self, tokens):
        x = self.tok_embed(tokens) + self.pos(torch.arange(len(tokens)))
        patterns = []
        for block in self.layers:
            x, p = block(x)
            patterns.append(p)
        return self.head(self.ln_out(x)), patterns


def bridge_state_dict(model):
    renames = [("tok_embed.", "embed."), ("pos.", "pos_embed."), ("layers.", "blocks."), ("ln_out.", "ln_final."),
               ("head.", "unembed.")]
    out = collections.OrderedDict()
    for name, t in model.state_dict().items():
        for old, new in renames:
            if name.startswith(old):
                name = new + name[len(old):]
                break
        out[name] = t.detach().clone()
    return out


def legacy_state_dict(b):
    out = collections.OrderedDict()
    out["embed.W_E"] = b["embed.weight"]
    out["pos_embed.W_pos"] = b["pos_embed.weight"]
    for l in range(L):
        p = f"blocks.{l}."
        out[p + "ln1.w"] = b[p + "ln1.weight"]
        out[p + "ln1.b"] = b[p + "ln1.bias"]
        for x in "QKV":
            w = b[p + f"attn.{x.lower()}.weight"]           # [H·C, D]: output rows per head
            out[p + f"attn.W_{x}"] = w.view(H, C, D).transpose(1, 2).contiguous()   # [H, D, C]
            out[p + f"attn.b_{x}"] = b[p + f"attn.{x.lower()}.bias"].view(H, C)
        w = b[p + "attn.o.weight"]                          # [D, H·C]: input columns per head
        out[p + "attn.W_O"] = w.view(D, H, C).permute(1, 2, 0).contiguous()      # [H, C, D]
        out[p + "attn.b_O"] = b[p + "attn.o.bias"]
    out["ln_final.w"] = b["ln_final.weight"]
    out["ln_final.b"] = b["ln_final.bias"]
    out["unembed.W_U"] = b["unembed.weight"].t().contiguous()   # [D, V]
    out["unembed.b_U"] = torch.zeros(V, dtype=torch.float64)
    return out


def main():
    torch.manual_seed(CONFIG["seed"])
    model = Native().to(torch.float64)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0, 0.5)   # larger than nn.Linear's default so the patterns are far from uniform
        b = bridge_state_dict(model)
        write_safetensors(os.path.join(HERE, "bridge.safetensors"), dict(sorted(b.items())), sort_keys=True)
        torch.save(b, os.path.join(HERE, "bridge.pt"))
        legacy = legacy_state_dict(b)
        write_safetensors(os.path.join(HERE, "legacy.safetensors"), dict(sorted(legacy.items())), sort_keys=True)
        prompt = [3, 1, 4, 1, 5, 9, 2]
        logits, patterns = model(torch.tensor(prompt))
    with open(os.path.join(HERE, "reference.json"), "w") as f:
        json.dump({"prompt": prompt, "logits": logits.tolist(), "patterns": [p.tolist() for p in patterns]}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
