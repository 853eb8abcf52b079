// PyTorch's checkpoint file, as `torch.save(model.state_dict(), "model.pt")` writes it: a reader.
//
// Layout (torch/serialization.py, `_save` and `_load` with the zip file serialisation): a ZIP archive
// whose entries are stored, not compressed, all under one top directory <archive>/:
//   <archive>/data.pkl     the object, pickled (protocol 2), tensors' storages as persistent ids
//   <archive>/data/<key>   each storage's raw bytes, little-endian, numel × element size
//   <archive>/byteorder    "little" or "big" (absent in older files: little)
//   <archive>/version      the format version, plus a few more entries this reader does not need
// A state_dict is an OrderedDict name → tensor; a tensor is pickled as the call
//   torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, hooks[, metadata])
// whose storage is the persistent id ('storage', torch.FloatStorage, key, location, numel); the
// dict's module metadata (`_metadata`, a dict of per-module versions) is set on it by BUILD.
//
// Nothing in the file is executed. data.pkl is interpreted by a restricted unpickler: the opcodes a
// state_dict uses (containers, integers, floats, strings, booleans, None, the memo, marks,
// BINPERSID, REDUCE, BUILD) and, for GLOBAL and STACK_GLOBAL, only collections.OrderedDict,
// torch._utils._rebuild_tensor_v2, torch._utils._rebuild_parameter and torch's storage classes.
// REDUCE calls nothing: it builds a tensor description (or an empty dict) from its arguments. Any
// other opcode or global is refused, naming it and its byte offset in data.pkl. BUILD's state (the
// `_metadata` attribute) is dropped. A container is never changed once it is inside another one,
// so the pickled values form no cycle.
//
// Read: a top-level dict (OrderedDict) whose every value is a tensor of float32, float64, float16
// or bfloat16 (returned as double, exactly, as the safetensors reader returns them) or bool (0/1).
// Any storage offset and non-negative strides are read (a transposed view, two tensors sharing one
// storage, a broadcast with stride 0), each element checked to lie inside its storage. Every bound
// is inclusive and checked before it is used; the reader never reads past `size`.
#pragma once

#include "formats/safetensors.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace headlab::formats {

struct TorchCheckpointLimits {
  std::size_t max_file_bytes = std::size_t{512} * 1024 * 1024;  // the safetensors file limit
  std::size_t max_zip_entries = 8192;                           // storages, data.pkl and a few more
  std::size_t max_pickle_bytes = std::size_t{4} * 1024 * 1024;  // data.pkl: ~200 bytes per tensor
  std::size_t max_tensors = 4096;                               // as safetensors
  std::size_t max_name_length = 256;                            // as safetensors
  std::size_t max_rank = 4;                                     // as safetensors
  std::size_t max_nesting = 64;                                 // values in values, and open MARKs
  std::size_t max_stack = 65536;                                // values on the unpickler's stack
  std::size_t max_memo = 262144;                                // memo entries (~10 per tensor)
  std::size_t max_objects = 524288;                         // values data.pkl makes (~30 per tensor, a few per module)
  std::size_t max_values = std::size_t{128} * 1024 * 1024;  // elements of all tensors together
};

// Whether the bytes start as a ZIP archive does (a local file header), as every torch.save file
// since PyTorch 1.6 does; a safetensors file never does (its first 8 bytes are a header length).
bool looks_like_zip(const std::uint8_t* data, std::size_t size);

// The state_dict's tensors, sorted by name (as a safetensors file lists them), as SafetensorsFile
// holds them: float64 → F64, float32 → F32, float16 → F16, bfloat16 → BF16 (each value exactly as a
// double); bool → BOOL; non-finite values recorded per tensor.
// metadata is empty. Throws headlab::InputError with a message that starts "torch checkpoint: "
// and names the entry, the tensor, or the opcode and its byte offset in data.pkl.
SafetensorsFile read_torch_checkpoint(const std::uint8_t* data, std::size_t size,
                                      const TorchCheckpointLimits& limits = {});

// The same checkpoint with every bound checked and no value converted (what a caller needs to
// refuse a file by its names and shapes first, and then to convert one tensor at a time): each
// tensor's storage bytes begin at buffer + storage_begin, its element (i_0, …) at storage element
// offset + Σ i_d · stride_d. Valid while the file's bytes are. read_torch_checkpoint is this, then
// every tensor decoded; same messages.
struct TorchTensorEntry {
  std::string name;
  DType dtype = DType::F64;
  std::vector<std::int64_t> shape, stride;
  std::uint64_t offset = 0;         // storage offset, in elements
  std::uint64_t storage_begin = 0;  // the storage's first byte in the file
  std::size_t element_bytes = 8;
  std::uint64_t count = 0;  // product(shape)
};
struct TorchCheckpointIndex {
  std::vector<TorchTensorEntry> entries;  // sorted by name
  const std::uint8_t* buffer = nullptr;
};
TorchCheckpointIndex index_torch_checkpoint(const std::uint8_t* data, std::size_t size,
                                            const TorchCheckpointLimits& limits = {});
// One tensor's values as doubles, row-major (as read_torch_checkpoint gives them).
Tensor decode_torch_tensor(const TorchCheckpointIndex& index, const TorchTensorEntry& entry);
// A float32, float16 or bfloat16 tensor's values as float32 into out[0 … count) (exactly); returns
// the flat index of the first non-finite value, or −1. Throws InputError for another dtype.
std::int64_t decode_torch_tensor_float32(const TorchCheckpointIndex& index, const TorchTensorEntry& entry, float* out);
// A float32 tensor's values where they lie in the file when they are row-major and contiguous, the
// machine little-endian and the address 4-byte aligned (torch.save aligns storages to 64 bytes);
// else nullptr.
const float* torch_tensor_float32_view(const TorchCheckpointIndex& index, const TorchTensorEntry& entry);
// The index's tensors without their values (names, dtypes, shapes: what an inspection lists).
SafetensorsFile without_values(const TorchCheckpointIndex& index);

}  // namespace headlab::formats
