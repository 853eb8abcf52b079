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
import json
import os
import struct

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = {torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.bool: "BOOL"}
TYPES = {v: k for k, v in NAMES.items()}


def raw_bytes(t):
    t = t.detach().contiguous()
    if t.dtype in (torch.float16, torch.bfloat16):
        return t.view(torch.int16).numpy().tobytes()
    return t.numpy().tobytes()


def write_safetensors(tensors, path):
    header, data = {}, b""
    for name, t in sorted(tensors.items()):
        raw = raw_bytes(t)
        header[name] = {"dtype": NAMES[t.dtype], "shape": list(t.shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(header, separators=(",", ":"), sort_keys=True).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)


def read_safetensors(path):
    with open(path, "rb") as f:
        blob = f.read()
    n = struct.unpack("<Q", blob[:8])[0]
    out = collections.OrderedDict()
    for name, meta in json.loads(blob[8:8 + n]).items():
        if name == "__metadata__":
            continue
        begin, end = meta["data_offsets"]
        out[name] = torch.frombuffer(bytearray(blob[8 + n + begin:8 + n + end]),
                                     dtype=TYPES[meta["dtype"]]).reshape(meta["shape"]).clone()
    return out


def main():
    tensors = {
        "f16": torch.tensor([0.1, -1.0 / 3, 65504.0, 6e-8, -0.0, float("inf")], dtype=torch.float16),
        "bf16": torch.tensor([[0.1, -3.0e38], [1.0 / 3, 7.0]], dtype=torch.bfloat16),
        "f32": torch.tensor([0.1, -2.5], dtype=torch.float32),
        "f64": torch.tensor([1.0 / 3], dtype=torch.float64),
        "mask": torch.tensor([[True, False], [True, True]]),
    }
    write_safetensors(tensors, os.path.join(HERE, "dtypes.safetensors"))
    write_safetensors({k: (v if v.dtype == torch.bool else v.to(torch.float64)) for k, v in tensors.items()},
                      os.path.join(HERE, "dtypes.expected.safetensors"))

    model = read_safetensors(os.path.join(HERE, "../transformer/two_layer_ln_pos.safetensors"))
    for suffix, dtype in (("f16", torch.float16), ("bf16", torch.bfloat16)):
        cast = collections.OrderedDict(
            (k, v if v.dtype == torch.bool else v.to(dtype)) for k, v in model.items())
        write_safetensors(cast, os.path.join(HERE, f"two_layer_ln_pos.{suffix}.safetensors"))
        torch.save(cast, os.path.join(HERE, f"two_layer_ln_pos.{suffix}.pt"))
        write_safetensors({k: (v if v.dtype == torch.bool else v.to(torch.float64)) for k, v in cast.items()},
                          os.path.join(HERE, f"two_layer_ln_pos.{suffix}.expected.safetensors"))


if __name__ == "__main__":
    main()
