#!/usr/bin/env python3
"""Float16 and bfloat16 fixtures for the safetensors and torch checkpoint readers (not run in CI).

The bytes are torch's own (Debian: apt-get install -y python3-torch); safetensors files are written
by hand (8-byte little-endian header length, JSON header, raw little-endian bytes: no safetensors
package here). Writes:
  dtypes.safetensors           F16 (0.1, -1/3, 65504, a subnormal, -0.0, inf), BF16 (0.1, -3e38,
                               1/3, 7), F32, F64 and BOOL tensors
  dtypes.expected.safetensors  the same tensors as torch converts them to float64
  two_layer_ln_pos.<d>.safetensors, two_layer_ln_pos.<d>.pt
                               tests/data/transformer/two_layer_ln_pos.safetensors with every
                               parameter cast to <d> = f16 or bf16 (the mask stays BOOL, IGNORE -inf),
                               the .pt written by torch.save
  two_layer_ln_pos.<d>.expected.safetensors
                               the cast parameters as torch converts them back to float64
Regenerate: /usr/bin/python3 tests/data/dtypes/make_fixtures.py
"""
import collections
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ beside the fixtures
sys.path.insert(0, os.path.join(HERE, ".."))
from fixture_io import read_safetensors, write_safetensors  # noqa: E402


def write_sorted(tensors, path):
    """The tensors in name order, the header's keys sorted."""
    write_safetensors(path, dict(sorted(tensors.items())), sort_keys=True)


def main():
    tensors = {
        "f16": torch.tensor([0.1, -1.0 / 3, 65504.0, 6e-8, -0.0, float("inf")], dtype=torch.float16),
        "bf16": torch.tensor([[0.1, -3.0e38], [1.0 / 3, 7.0]], dtype=torch.bfloat16),
        "f32": torch.tensor([0.1, -2.5], dtype=torch.float32),
        "f64": torch.tensor([1.0 / 3], dtype=torch.float64),
        "mask": torch.tensor([[True, False], [True, True]]),
    }
    write_sorted(tensors, os.path.join(HERE, "dtypes.safetensors"))
    write_sorted({k: (v if v.dtype == torch.bool else v.to(torch.float64)) for k, v in tensors.items()},
                 os.path.join(HERE, "dtypes.expected.safetensors"))

    model = read_safetensors(os.path.join(HERE, "../transformer/two_layer_ln_pos.safetensors"))
    for suffix, dtype in (("f16", torch.float16), ("bf16", torch.bfloat16)):
        cast = collections.OrderedDict(
            (k, v if v.dtype == torch.bool else v.to(dtype)) for k, v in model.items())
        write_sorted(cast, os.path.join(HERE, f"two_layer_ln_pos.{suffix}.safetensors"))
        torch.save(cast, os.path.join(HERE, f"two_layer_ln_pos.{suffix}.pt"))
        write_sorted({k: (v if v.dtype == torch.bool else v.to(torch.float64)) for k, v in cast.items()},
                     os.path.join(HERE, f"two_layer_ln_pos.{suffix}.expected.safetensors"))


if __name__ == "__main__":
    main()
