// The safetensors container: one reader and one writer.
//
// Layout (https://huggingface.co/docs/safetensors, "Format"): an unsigned 64-bit little-endian
// header length N; N bytes of JSON, an object mapping each tensor name to
//   {"dtype": "F32" | "F64" | "BOOL" | …, "shape": [d0, d1, …], "data_offsets": [begin, end]}
// plus an optional "__metadata__" object of string → string; then the data buffer, where each
// tensor occupies bytes [begin, end) (relative to the buffer's start), row-major, little-endian.
// The tensors cover the buffer exactly: no overlap, no gap, nothing after the last one.
//
// The reader accepts F64, F32, F16 and BF16 (returned as double, the core's precision: every value
// of each is a double, so nothing is rounded) and BOOL (returned as 0/1; TransformerLens stores its
// causal mask this way). Every bound is checked before it is used:
// header length against the file and the limit, JSON nesting depth as it parses, shape × dtype
// size against the offsets, offsets against the buffer. It never reads past `size`. A key given
// twice (a tensor name, __metadata__, a field), a string that is not well-formed UTF-8 and a
// tensor name longer than max_name_length are refused, naming the key; __metadata__ values are
// free text, bounded only by the header's size. Every limit is inclusive (a file of exactly
// max_file_bytes is read, one byte more is not). Non-finite values are recorded per tensor (`first_non_finite`), not rejected here: the
// caller knows which tensors may hold them (TransformerLens's IGNORE buffer is −inf).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace headlab::formats {

enum class DType { F32, F64, BOOL, F16, BF16 };
// "F32", "F64", "BOOL", "F16", "BF16": safetensors's names.
const char* dtype_name(DType dtype);
// Bytes of one element.
std::size_t dtype_size(DType dtype);
// IEEE-754 binary16 (sign, 5 exponent bits, 10 mantissa bits) and bfloat16 (the top 16 bits of a
// binary32) as doubles, exactly: ±0, subnormals, ±inf and NaN included.
double float16_to_double(std::uint16_t bits);
double bfloat16_to_double(std::uint16_t bits);
// One element of `dtype` stored little-endian at `b` (dtype_size(dtype) bytes), whatever the host's
// byte order: F64, F32, F16 and BF16 exactly as their values, BOOL as its byte (the caller refuses
// a byte above 1, naming where it is).
double element_to_double(DType dtype, const std::uint8_t* b);
// F32, F16 or BF16 only: the element as a float32, exactly (F16 and BF16 values are float32 values).
float element_to_float(DType dtype, const std::uint8_t* b);

struct Tensor {
  std::string name;
  DType dtype = DType::F64;
  std::vector<std::int64_t> shape;     // empty: a scalar
  std::vector<double> values;          // product(shape) values, row-major
  std::int64_t first_non_finite = -1;  // flat index of the first NaN/±inf, or −1
};

struct SafetensorsLimits {
  std::size_t max_file_bytes = std::size_t{512} * 1024 * 1024;
  std::size_t max_header_bytes = std::size_t{1} * 1024 * 1024;
  std::size_t max_tensors = 4096;
  std::size_t max_name_length = 256;
  std::size_t max_rank = 4;
};

struct SafetensorsFile {
  std::vector<Tensor> tensors;  // in header order (JSON object order: sorted by name)
  std::map<std::string, std::string> metadata;
  // The tensor of that name, or nullptr.
  const Tensor* find(const std::string& name) const;
};

// A tensor as the header describes it, its data not yet converted: its bytes are
// [begin, end) of the data buffer, count = product(shape) elements.
struct TensorEntry {
  std::string name;
  DType dtype = DType::F64;
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0, end = 0, count = 0;
};

// The header of a safetensors file, checked (every bound the reader checks, the tensors tiling
// the buffer exactly), and a view of its data buffer: what a caller needs to refuse a file by its
// names and shapes before converting any value. Valid while the file's bytes are.
struct SafetensorsIndex {
  std::vector<TensorEntry> entries;  // in header order (sorted by name)
  std::map<std::string, std::string> metadata;
  const std::uint8_t* buffer = nullptr;
  std::uint64_t buffer_size = 0;
};

// Throws headlab::InputError with a message that starts "safetensors: " and names the tensor or
// byte range at fault (quoting at most a short excerpt of the header).
SafetensorsIndex index_safetensors(const std::uint8_t* data, std::size_t size, const SafetensorsLimits& limits = {});
// One tensor's values as doubles (F32 widened, BOOL 0/1; a BOOL byte other than 0 or 1 throws).
Tensor decode_tensor(const SafetensorsIndex& index, const TensorEntry& entry);

// A float32, F16 or BF16 tensor's values as float32 (each exactly: every such value is a float32)
// into out[0 … count): no double copy of a large tensor. Returns the flat index of the first
// non-finite value, or −1. Throws InputError for an F64 or BOOL tensor.
std::int64_t decode_tensor_float32(const SafetensorsIndex& index, const TensorEntry& entry, float* out);

// The index's tensors without their values (names, dtypes, shapes: what an inspection lists).
SafetensorsFile without_values(const SafetensorsIndex& index);

// The tensors of any index's entries (each with name, dtype and shape: TensorEntry,
// TorchTensorEntry) without their values; without_values of each format is this and its metadata.
template <class Entry>
std::vector<Tensor> tensors_without_values(const std::vector<Entry>& entries) {
  std::vector<Tensor> out;
  out.reserve(entries.size());
  for (const Entry& e : entries) {
    Tensor t;
    t.name = e.name;
    t.dtype = e.dtype;
    t.shape = e.shape;
    out.push_back(std::move(t));
  }
  return out;
}

// index_safetensors, then every tensor decoded. Same messages.
SafetensorsFile read_safetensors(const std::uint8_t* data, std::size_t size, const SafetensorsLimits& limits = {});

// The bytes of a safetensors file holding `tensors` (values written as their dtype: F32 rounds to
// nearest, F16 and BF16 must be exact — a value the format does not hold throws —, BOOL writes value != 0), data in the given order, header padded with spaces to a
// multiple of 8 as the reference implementation does. Throws InputError on a duplicate or empty
// name or a value count that disagrees with the shape.
std::string write_safetensors(const std::vector<Tensor>& tensors,
                              const std::map<std::string, std::string>& metadata = {});

}  // namespace headlab::formats
