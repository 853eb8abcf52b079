"""Exports a TransformerLens attention-only model as the two files the headlab widgets read.

    python3 export_model.py            # trains nothing: exports the model built below
Replace `build_model()` with your own trained HookedTransformer (attn_only=True).
Writes model.safetensors (the state_dict under TransformerLens's names) and model.json (the config).
Check the result with:  headlab model inspect --config model.json --weights model.safetensors
"""
import json

import torch
from safetensors.torch import save_file
from transformer_lens import HookedTransformer, HookedTransformerConfig


def build_model() -> HookedTransformer:
    cfg = HookedTransformerConfig(
        n_layers=2, n_heads=4, d_model=32, d_head=8, n_ctx=24, d_vocab=32,
        attn_only=True, normalization_type="LN", positional_embedding_type="standard", act_fn=None,
    )
    return HookedTransformer(cfg)


def export(model: HookedTransformer, stem: str = "model", token_names=None) -> None:
    cfg = model.cfg
    assert cfg.attn_only, "headlab reads attention-only transformers (attn_only=True)"
    save_file({k: v.detach().contiguous() for k, v in model.state_dict().items()}, f"{stem}.safetensors")
    config = {
        "n_layers": cfg.n_layers, "n_heads": cfg.n_heads, "d_model": cfg.d_model, "d_head": cfg.d_head,
        "n_ctx": cfg.n_ctx, "d_vocab": cfg.d_vocab,
        "normalization": cfg.normalization_type or "none",      # "LN", "LNPre" or "none"
        "positional_embedding": cfg.positional_embedding_type,  # "standard" or "none"
        "eps": cfg.eps,
    }
    if token_names is not None:                                 # d_vocab display names, each ≤ 64 bytes
        config["token_names"] = list(token_names)
    with open(f"{stem}.json", "w") as f:
        json.dump(config, f, indent=2)


if __name__ == "__main__":
    torch.manual_seed(0)
    export(build_model())
