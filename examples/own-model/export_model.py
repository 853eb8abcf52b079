"""Writes a small attention-only transformer as the two files headlab reads: model.pt and model.json.

    python3 export_model.py                 # with whichever of these is installed, newest first:
                                            #   TransformerLens 4 (TransformerBridge.boot_native),
                                            #   TransformerLens 3 (HookedTransformer), plain PyTorch
    python3 export_model.py --from torch --out DIR --seed 0
    headlab model inspect --config model.json --weights model.pt     # check the two files

Replace the `build_*` function of your library with your own trained model, or call `export(...)`
from the session where it lives. What is written, per source (docs/own-model.md says how each is read):
  TransformerLens 4   bridge.state_dict() (embed.weight, blocks.{l}.attn.q.weight, ...) and
                      bridge.cfg.to_dict() (a TransformerBridgeConfig, architecture TransformerLensNative)
  TransformerLens 3   model.state_dict() (embed.W_E, blocks.{l}.attn.W_Q, ...) and model.cfg.to_dict()
  plain PyTorch       your state_dict under either naming and headlab's small config (sizes, norm, positions)
The weights go through torch.save (no safetensors package needed); `--safetensors` writes
model.safetensors instead when the safetensors package is installed. JSON gets dtype and device as
strings (`default=str`), as TransformerLens writes them itself.
"""
import argparse
import collections
import json
import math
import os

import torch

# The demo model's sizes: two layers of four heads, as the induction model headlab ships.
SIZES = dict(n_layers=2, n_heads=4, d_model=32, d_head=8, n_ctx=24, d_vocab=32)


def installed() -> str:
    """"tl4", "tl3" or "torch": the newest source importable here."""
    try:
        import transformer_lens
    except ImportError:
        return "torch"
    try:
        from transformer_lens.model_bridge import TransformerBridge  # noqa: F401  (TransformerLens ≥ 4)
        if not hasattr(transformer_lens, "HookedTransformer"):
            return "tl4"
    except ImportError:
        pass
    return "tl3" if hasattr(transformer_lens, "HookedTransformer") else "tl4"


def build_tl4(seed: int):
    """A TransformerLens 4 native model: boot_native over an attention-only TransformerBridgeConfig."""
    from transformer_lens.config import TransformerBridgeConfig
    from transformer_lens.model_bridge import TransformerBridge
    cfg = TransformerBridgeConfig(**SIZES, attn_only=True, normalization_type="LN", seed=seed)
    return TransformerBridge.boot_native(cfg)


def build_tl3(seed: int):
    """A TransformerLens 3 HookedTransformer with attn_only=True."""
    from transformer_lens import HookedTransformer, HookedTransformerConfig
    cfg = HookedTransformerConfig(**SIZES, attn_only=True, normalization_type="LN",
                                  positional_embedding_type="standard", seed=seed)
    return HookedTransformer(cfg)


class Attention(torch.nn.Module):
    """Causal attention of n_heads heads with the projections as torch's Linear layers: q, k, v map
    d_model → n_heads·d_head (head h's rows h·d_head … (h+1)·d_head − 1), o maps back."""

    def __init__(self, d_model: int, n_heads: int, d_head: int):
        super().__init__()
        self.n_heads, self.d_head = n_heads, d_head
        self.q, self.k, self.v = (torch.nn.Linear(d_model, n_heads * d_head) for _ in range(3))
        self.o = torch.nn.Linear(n_heads * d_head, d_model)

    def forward(self, x):  # x [T, d_model]
        T = x.shape[0]
        q, k, v = (f(x).view(T, self.n_heads, self.d_head).transpose(0, 1) for f in (self.q, self.k, self.v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)  # [H, T, T]
        scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
        z = torch.softmax(scores, dim=-1) @ v  # [H, T, d_head]
        return self.o(z.transpose(0, 1).reshape(T, -1))


class AttentionOnly(torch.nn.Module):
    """A plain-PyTorch attention-only transformer whose state_dict carries TransformerLens 4's names
    (embed, pos_embed, blocks.{l}.ln1 / attn.{q,k,v,o}, ln_final, unembed without bias): pre-LayerNorm
    blocks, learned positions added to the residual stream, a final LayerNorm and the unembedding."""

    def __init__(self, n_layers, n_heads, d_model, d_head, n_ctx, d_vocab, eps=1e-5):
        super().__init__()
        self.embed = torch.nn.Embedding(d_vocab, d_model)
        self.pos_embed = torch.nn.Embedding(n_ctx, d_model)
        self.blocks = torch.nn.ModuleList(
            torch.nn.ModuleDict(dict(ln1=torch.nn.LayerNorm(d_model, eps=eps),
                                     attn=Attention(d_model, n_heads, d_head))) for _ in range(n_layers))
        self.ln_final = torch.nn.LayerNorm(d_model, eps=eps)
        self.unembed = torch.nn.Linear(d_model, d_vocab, bias=False)

    def forward(self, tokens):  # tokens [T] → logits [T, d_vocab]
        x = self.embed(tokens) + self.pos_embed(torch.arange(len(tokens)))
        for block in self.blocks:
            x = x + block["attn"](block["ln1"](x))
        return self.unembed(self.ln_final(x))


def build_torch(seed: int):
    torch.manual_seed(seed)
    return AttentionOnly(**SIZES)


def small_config(n_layers, n_heads, d_model, d_head, n_ctx, d_vocab, normalization="LN",
                 positional_embedding="standard", eps=1e-5, token_names=None) -> dict:
    """headlab's own config for a plain-PyTorch model (docs/own-model.md names every field)."""
    config = dict(n_layers=n_layers, n_heads=n_heads, d_model=d_model, d_head=d_head, n_ctx=n_ctx,
                  d_vocab=d_vocab, normalization=normalization, positional_embedding=positional_embedding, eps=eps)
    if token_names is not None:  # d_vocab display names, each ≤ 64 bytes
        config["token_names"] = list(token_names)
    return config


def export_files(state_dict, config: dict, out: str = ".", safetensors: bool = False) -> list:
    """Writes model.pt (or model.safetensors) and model.json into `out`; returns their paths.
    Tensors are detached and copied contiguous, so views of one storage are written apart."""
    os.makedirs(out, exist_ok=True)
    tensors = collections.OrderedDict((k, v.detach().clone().contiguous()) for k, v in state_dict.items())
    weights = os.path.join(out, "model.safetensors" if safetensors else "model.pt")
    if safetensors:
        from safetensors.torch import save_file
        save_file(tensors, weights)
    else:
        torch.save(tensors, weights)
    path = os.path.join(out, "model.json")
    with open(path, "w") as f:
        json.dump(config, f, indent=2, default=str)  # torch.float32 → "torch.float32", as TransformerLens does
        f.write("\n")
    return [weights, path]


def export(model, out: str = ".", safetensors: bool = False, config: dict = None) -> list:
    """Exports a TransformerLens 4 bridge, a TransformerLens 3 HookedTransformer, or a plain torch
    module with `config` (headlab's small config, from small_config)."""
    if hasattr(model, "adapter") and hasattr(model, "original_model"):  # TransformerBridge
        assert model.cfg.attn_only, "headlab reads attention-only transformers (attn_only=True)"
        return export_files(model.state_dict(), model.cfg.to_dict(), out, safetensors)
    if hasattr(model, "cfg") and hasattr(model.cfg, "to_dict"):  # HookedTransformer
        assert model.cfg.attn_only, "headlab reads attention-only transformers (attn_only=True)"
        return export_files(model.state_dict(), model.cfg.to_dict(), out, safetensors)
    if config is None:
        raise ValueError("a plain PyTorch model needs its config: export(model, config=small_config(...))")
    return export_files(model.state_dict(), config, out, safetensors)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--from", dest="source", choices=["tl4", "tl3", "torch"], default=installed())
    parser.add_argument("--out", default=".")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--safetensors", action="store_true")
    args = parser.parse_args()
    if args.source == "torch":
        model = build_torch(args.seed)
        written = export(model, args.out, args.safetensors, config=small_config(**SIZES))
    else:
        model = (build_tl4 if args.source == "tl4" else build_tl3)(args.seed)
        written = export(model, args.out, args.safetensors)
    print(f"{args.source}: wrote {', '.join(written)}")


if __name__ == "__main__":
    main()
