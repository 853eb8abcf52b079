#!/usr/bin/env python3
"""PyTorch checkpoint fixtures for formats/torch_checkpoint.hpp (not run in CI).

Writes, with torch.save exactly as an author would (Debian: apt-get install -y python3-torch):
  state_dict.pt               a module's state_dict (so the OrderedDict carries `_metadata`,
                              set by BUILD) plus tensors of every dtype the reader reads: float32
                              (the Linear), float64, float16 (a subnormal, 65504, -0.0, inf),
                              bfloat16, bool; a transposed (non-contiguous) view, a row of it at a
                              storage offset and the base, all three sharing one storage; an
                              nn.Parameter (pickled through _rebuild_parameter)
  state_dict.expected.safetensors
                              the same tensors as torch reads them back, converted to float64
                              (contiguous, row-major), written by hand (8-byte little-endian
                              header length, JSON header, raw bytes)
  nested.pt                   {"model_state_dict": state_dict, "epoch": 3}: refused, naming the key
  long.pt                     a state_dict holding an int64 buffer: refused, naming the tensor
  two_layer_ln_pos.pt         tests/data/transformer/two_layer_ln_pos.safetensors as torch.save
                              writes it (same dtypes: F64, the BOOL mask, the F32 -inf IGNORE),
                              unembed.W_U a transposed view: `headlab model` reads both the same
Regenerate: /usr/bin/python3 tests/data/torch_checkpoint/make_fixtures.py
"""
import collections
import json
import os
import sys
import struct

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ beside the fixtures
sys.path.insert(0, os.path.join(HERE, ".."))
from fixture_io import write_safetensors  # noqa: E402


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 2)
        self.register_buffer("mask", torch.tensor([[True, False], [True, True]]))


def main():
    torch.manual_seed(0)
    sd = Small().state_dict()
    assert hasattr(sd, "_metadata")
    sd["f64"] = torch.tensor([1.0 / 3, -0.0, 1e-300, 2.5], dtype=torch.float64)
    sd["f16"] = torch.tensor([0.1, -1.0 / 3, 65504.0, 6e-8, -0.0, float("inf")], dtype=torch.float16)
    sd["bf16"] = torch.tensor([[0.1, -3.0e38], [1.0 / 3, 7.0]], dtype=torch.bfloat16)
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4) / 8 - 0.5
    sd["base"] = base
    sd["base_t"] = base.t()   # shape [4, 3], stride (1, 4): the same storage, not contiguous
    sd["row"] = base[1]       # storage offset 4
    sd["col"] = base[:, 2]    # offset 2, stride 4
    sd["param"] = torch.nn.Parameter(torch.tensor([1.5, -2.0]))
    torch.save(sd, os.path.join(HERE, "state_dict.pt"))
    back = torch.load(os.path.join(HERE, "state_dict.pt"))
    write_safetensors(os.path.join(HERE, "state_dict.expected.safetensors"),
                      {k: v.to(torch.float64) for k, v in sorted(back.items())}, sort_keys=True)

    torch.save({"model_state_dict": Small().state_dict(), "epoch": 3}, os.path.join(HERE, "nested.pt"))
    sd = Small().state_dict()
    sd["steps"] = torch.tensor([7], dtype=torch.int64)
    torch.save(sd, os.path.join(HERE, "long.pt"))

    with open(os.path.join(HERE, "../transformer/two_layer_ln_pos.safetensors"), "rb") as f:
        blob = f.read()
    n = struct.unpack("<Q", blob[:8])[0]
    header = json.loads(blob[8:8 + n])
    dtypes = {"F64": torch.float64, "F32": torch.float32, "BOOL": torch.bool}
    model = collections.OrderedDict()
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        begin, end = meta["data_offsets"]
        raw = bytearray(blob[8 + n + begin:8 + n + end])
        model[name] = torch.frombuffer(raw, dtype=dtypes[meta["dtype"]]).reshape(meta["shape"]).clone()
    model["unembed.W_U"] = model["unembed.W_U"].t().contiguous().t()
    assert not model["unembed.W_U"].is_contiguous()
    torch.save(model, os.path.join(HERE, "two_layer_ln_pos.pt"))


if __name__ == "__main__":
    main()
