"""What the fixture generators under tests/data/ share: the safetensors files they read and write
and the compact JSON documents they write (imported by each make_*fixtures.py, never by a test).

safetensors: an 8-byte little-endian header length n, n bytes of JSON ({name: {"dtype", "shape",
"data_offsets": [begin, end)}} plus an optional "__metadata__"), then the tensors' bytes, row-major,
little-endian. The writer pads the header with spaces to a multiple of 8 bytes, as the format asks.
Every generator regenerates its files byte for byte through these two functions: the bytes of a
tensor are its own (numpy's), F32 stays F32, and the header's order is the caller's choice.
"""
import collections
import json
import struct

import torch

NAMES = {torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.bool: "BOOL"}
TYPES = {v: k for k, v in NAMES.items()}


def tensor_bytes(t):
    """The stored bytes of tensor t (row-major, this machine's little-endian order)."""
    t = t.detach().contiguous()
    if t.dtype in (torch.float16, torch.bfloat16):  # numpy has no bfloat16: the same 2 bytes as int16
        return t.view(torch.int16).numpy().tobytes()
    return t.numpy().tobytes()


def write_safetensors(path, tensors, sort_keys=False):
    """Writes {name: tensor} in its order and dtypes. sort_keys: the header's JSON with its keys
    sorted (the names, and each entry's "data_offsets", "dtype", "shape"); otherwise in the order
    written (each entry "dtype", "shape", "data_offsets"). The data keeps the dict's order either way."""
    header, data = {}, b""
    for name, t in tensors.items():
        raw = tensor_bytes(t)
        header[name] = {"dtype": NAMES[t.dtype], "shape": list(t.shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":"), sort_keys=sort_keys).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def read_safetensors(path):
    """{name: tensor} of the file at path, in the header's order, each in its stored dtype."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    out = collections.OrderedDict()
    for name, meta in json.loads(blob[8:8 + n]).items():
        if name == "__metadata__":
            continue
        begin, end = meta["data_offsets"]
        dtype = TYPES[meta["dtype"]]
        if begin == end:  # torch.frombuffer refuses an empty buffer
            out[name] = torch.empty(meta["shape"], dtype=dtype)
            continue
        out[name] = torch.frombuffer(bytearray(blob[8 + n + begin:8 + n + end]), dtype=dtype).reshape(meta["shape"]).clone()
    return out


def read_safetensors_f64(path):
    """read_safetensors with every tensor in float64 (booleans as 0.0 and 1.0)."""
    return collections.OrderedDict((k, v.to(torch.float64)) for k, v in read_safetensors(path).items())


def write_json(path, doc):
    """doc as compact JSON (no spaces) and a final newline."""
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
