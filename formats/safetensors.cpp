#include "formats/safetensors.hpp"

#include "core/check.hpp"

#include "formats/json.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

namespace headlab::formats {

static_assert(std::numeric_limits<double>::is_iec559 && std::numeric_limits<float>::is_iec559,
              "IEEE-754 floats are decoded by copying bytes");

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::F32: return "F32";
    case DType::BOOL: return "BOOL";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
    default: return "F64";
  }
}

std::size_t dtype_size(DType d) {
  switch (d) {
    case DType::F64: return 8;
    case DType::F32: return 4;
    case DType::F16:
    case DType::BF16: return 2;
    default: return 1;
  }
}

// binary16: e = 0 is ±m·2⁻²⁴ (subnormal), e = 31 ±inf (m = 0) or NaN, else ±(1024 + m)·2^(e − 25).
double float16_to_double(std::uint16_t h) {
  const int e = (h >> 10) & 0x1F, m = h & 0x3FF;
  double v;
  if (e == 0) v = std::ldexp(m, -24);
  else if (e == 31) v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else v = std::ldexp(1024 + m, e - 25);
  return (h >> 15) ? -v : v;
}

double bfloat16_to_double(std::uint16_t h) {
  const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

namespace {

// The 16-bit element at b, little-endian.
std::uint16_t load_u16(const std::uint8_t* b) { return static_cast<std::uint16_t>(b[0] | (b[1] << 8)); }

}  // namespace

float element_to_float(DType dtype, const std::uint8_t* b) {
  if (dtype == DType::F32) {
    const std::uint32_t bits = static_cast<std::uint32_t>(b[0]) | (static_cast<std::uint32_t>(b[1]) << 8) |
                               (static_cast<std::uint32_t>(b[2]) << 16) | (static_cast<std::uint32_t>(b[3]) << 24);
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  return static_cast<float>(dtype == DType::F16 ? float16_to_double(load_u16(b)) : bfloat16_to_double(load_u16(b)));
}

double element_to_double(DType dtype, const std::uint8_t* b) {
  switch (dtype) {
    case DType::F64: {
      std::uint64_t bits = 0;
      for (int i = 7; i >= 0; --i) bits = (bits << 8) | b[i];
      double v;
      std::memcpy(&v, &bits, 8);
      return v;
    }
    case DType::F32: return element_to_float(dtype, b);
    case DType::F16: return float16_to_double(load_u16(b));
    case DType::BF16: return bfloat16_to_double(load_u16(b));
    case DType::BOOL: break;
  }
  return b[0];
}

const Tensor* SafetensorsFile::find(const std::string& name) const {
  for (const auto& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

namespace {

[[noreturn]] void fail(const std::string& message) { throw InputError("safetensors: " + message); }

// At most 40 characters of untrusted text, for messages.
std::string short_text(const std::string& s) {
  std::string out;
  for (char ch : s.substr(0, 40)) out += (ch >= 32 && ch < 127) ? ch : '?';
  return s.size() > 40 ? out + "…" : out;
}

// Little-endian decoding byte by byte, so the host's byte order does not matter.
std::uint64_t load_u64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void store_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

using Entry = TensorEntry;

// A non-negative integer as nlohmann's is_number_unsigned() saw it (the JSON layer keeps
// non-negative integers as unsigned, negative ones as signed, anything else as a double).
bool is_unsigned(const JsonValue& v) { return v.kind() == JsonValue::Kind::unsigned_integer; }

std::uint64_t offset_of(const JsonValue& v, const std::string& name) {
  if (!is_unsigned(v)) fail("tensor " + short_text(name) + ": data_offsets must be two non-negative integers");
  return v.as_unsigned();
}

Entry parse_entry(const std::string& name, const JsonValue& e, const SafetensorsLimits& limits) {
  if (name.empty()) fail("a tensor has an empty name");
  if (name.size() > limits.max_name_length) {
    fail("tensor " + short_text(name) + ": its name has " + std::to_string(name.size()) + " bytes; the limit is " +
         std::to_string(limits.max_name_length));
  }
  if (!e.is_object())
    fail("tensor " + short_text(name) + ": its entry must be an object with dtype, shape, data_offsets");
  for (const auto& [key, value] : e.members()) {
    if (key != "dtype" && key != "shape" && key != "data_offsets") {
      fail("tensor " + short_text(name) + ": unknown field \"" + short_text(key) + "\"");
    }
  }
  const JsonValue* dtype_value = e.find("dtype");
  const JsonValue* shape = e.find("shape");
  const JsonValue* offsets = e.find("data_offsets");
  if (!dtype_value || !dtype_value->is_string()) fail("tensor " + short_text(name) + ": dtype is missing");
  if (!shape || !shape->is_array()) fail("tensor " + short_text(name) + ": shape is missing");
  if (!offsets || !offsets->is_array() || offsets->size() != 2) {
    fail("tensor " + short_text(name) + ": data_offsets must be [begin, end]");
  }
  Entry out;
  out.name = name;
  const std::string dtype = dtype_value->as_string();
  if (dtype == "F32") out.dtype = DType::F32;
  else if (dtype == "F64") out.dtype = DType::F64;
  else if (dtype == "F16") out.dtype = DType::F16;
  else if (dtype == "BF16") out.dtype = DType::BF16;
  else if (dtype == "BOOL") out.dtype = DType::BOOL;
  else
    fail("tensor " + short_text(name) + " has dtype " + short_text(dtype) +
         "; supported: F64, F32, F16, BF16 (and BOOL for masks)");
  if (shape->size() > limits.max_rank) {
    fail("tensor " + short_text(name) + " has " + std::to_string(shape->size()) + " dimensions; at most " +
         std::to_string(limits.max_rank));
  }
  std::uint64_t count = 1;
  for (const auto& dim : shape->items()) {
    if (!is_unsigned(dim)) fail("tensor " + short_text(name) + ": shape entries must be non-negative integers");
    const std::uint64_t n = dim.as_unsigned();
    // Bounding every factor by the file limit keeps the running product below 2^64 before comparing.
    if (n > limits.max_file_bytes || (n > 0 && count > limits.max_file_bytes / n)) {
      fail("tensor " + short_text(name) + " has more elements than a file within the size limit can hold");
    }
    count *= n;
    out.shape.push_back(static_cast<std::int64_t>(n));
  }
  out.count = count;
  out.begin = offset_of((*offsets)[0], name);
  out.end = offset_of((*offsets)[1], name);
  if (out.end < out.begin) {
    fail("tensor " + short_text(name) + ": data_offsets [" + std::to_string(out.begin) + ", " +
         std::to_string(out.end) + "] end before they begin");
  }
  if (out.end - out.begin != count * dtype_size(out.dtype)) {
    fail("tensor " + short_text(name) + ": shape × " + dtype + " needs " +
         std::to_string(count * dtype_size(out.dtype)) + " bytes, data_offsets give " +
         std::to_string(out.end - out.begin));
  }
  return out;
}

}  // namespace

SafetensorsIndex index_safetensors(const std::uint8_t* data, std::size_t size, const SafetensorsLimits& limits) {
  if (size > limits.max_file_bytes) {
    fail("the file has " + std::to_string(size) + " bytes; the limit is " + std::to_string(limits.max_file_bytes));
  }
  if (size < 8) fail("the file is truncated: " + std::to_string(size) + " bytes, the header length alone needs 8");
  const std::uint64_t header_length = load_u64(data);
  if (header_length > limits.max_header_bytes) {
    fail("the header length " + std::to_string(header_length) + " exceeds the limit of " +
         std::to_string(limits.max_header_bytes) + " bytes");
  }
  if (header_length > size - 8) {
    fail("the file is truncated: the header needs " + std::to_string(header_length) + " bytes after the length, " +
         std::to_string(size - 8) + " remain");
  }
  const std::uint8_t* header = data + 8;
  if (header_length < 2 || header[0] != '{') fail("the header must be a JSON object starting with '{'");
  // The parser bounds the depth (object → entry → shape array) before each descent. Strings are
  // bounded by the header's own limit: __metadata__ values are free text (a model card's
  // description runs to hundreds of characters); tensor names are bounded below, in parse_entry.
  // It also refuses a key given twice (a second tensor of one name pointing at other bytes, a
  // second __metadata__) and strings that are not well-formed UTF-8.
  JsonLimits json_limits;
  json_limits.max_bytes = limits.max_header_bytes;
  json_limits.max_depth = 3;
  json_limits.max_string_bytes = limits.max_header_bytes;
  JsonValue document;
  try {
    document =
        parse_json(std::string_view(reinterpret_cast<const char*>(header), header_length), "the header", json_limits);
  } catch (const InputError& e) {
    fail(e.what());  // "the header is not valid JSON: <reason> at line L, column C near "<excerpt>""
  }
  if (!document.is_object()) fail("the header must be a JSON object");
  const std::size_t tensor_count = document.size() - (document.find("__metadata__") != nullptr ? 1 : 0);
  if (tensor_count > limits.max_tensors) {
    fail("the header lists " + std::to_string(tensor_count) + " tensors; the limit is " +
         std::to_string(limits.max_tensors));
  }
  SafetensorsIndex file;
  std::vector<Entry>& entries = file.entries;
  for (const auto& [key, value] : document.members()) {  // sorted by name, as nlohmann's object was
    if (key == "__metadata__") {
      if (!value.is_object()) fail("__metadata__ must be an object of strings");
      for (const auto& [m_key, m_value] : value.members()) {
        if (!m_value.is_string()) fail("__metadata__." + short_text(m_key) + " must be a string");
        file.metadata[m_key] = m_value.as_string();
      }
      continue;
    }
    entries.push_back(parse_entry(key, value, limits));
  }
  const std::uint64_t buffer_size = size - 8 - header_length;
  // The tensors must tile [0, buffer_size) exactly.
  std::vector<const Entry*> by_offset;
  for (const auto& e : entries) by_offset.push_back(&e);
  std::stable_sort(by_offset.begin(), by_offset.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  std::uint64_t covered = 0;
  for (const Entry* e : by_offset) {
    if (e->end > buffer_size) {
      fail("tensor " + short_text(e->name) + ": data_offsets [" + std::to_string(e->begin) + ", " +
           std::to_string(e->end) + "] run past the end of the data (" + std::to_string(buffer_size) +
           " bytes): the file is truncated");
    }
    if (e->begin < covered) {
      fail("tensor " + short_text(e->name) + ": data_offsets [" + std::to_string(e->begin) + ", " +
           std::to_string(e->end) + "] overlap the previous tensor, which ends at " + std::to_string(covered));
    }
    if (e->begin > covered) {
      fail("bytes [" + std::to_string(covered) + ", " + std::to_string(e->begin) + ") of the data belong to no tensor");
    }
    covered = e->end;
  }
  if (covered != buffer_size) {
    fail("bytes [" + std::to_string(covered) + ", " + std::to_string(buffer_size) +
         ") at the end of the data belong to no tensor");
  }
  file.buffer = header + header_length;
  file.buffer_size = buffer_size;
  return file;
}

Tensor decode_tensor(const SafetensorsIndex& index, const TensorEntry& e) {
  Tensor t;
  t.name = e.name;
  t.dtype = e.dtype;
  t.shape = e.shape;
  t.values.resize(e.count);
  const std::uint8_t* p = index.buffer + e.begin;
  const std::size_t size = dtype_size(e.dtype);
  for (std::uint64_t i = 0; i < e.count; ++i) {
    if (e.dtype == DType::BOOL && p[i] > 1)
      fail("tensor " + short_text(e.name) + ": BOOL value " + std::to_string(p[i]) + " at index " + std::to_string(i));
    const double v = element_to_double(e.dtype, p + size * i);
    if (!std::isfinite(v) && t.first_non_finite < 0) t.first_non_finite = static_cast<std::int64_t>(i);
    t.values[i] = v;
  }
  return t;
}

std::int64_t decode_tensor_float32(const SafetensorsIndex& index, const TensorEntry& e, float* out) {
  if (e.dtype != DType::F32 && e.dtype != DType::F16 && e.dtype != DType::BF16)
    fail("tensor " + short_text(e.name) + ": only F32, F16 and BF16 tensors are held as float32");
  std::int64_t first_non_finite = -1;
  const std::uint8_t* p = index.buffer + e.begin;
  const std::size_t size = dtype_size(e.dtype);
  for (std::uint64_t i = 0; i < e.count; ++i) {
    const float f = element_to_float(e.dtype, p + size * i);
    if (!std::isfinite(f) && first_non_finite < 0) first_non_finite = static_cast<std::int64_t>(i);
    out[i] = f;
  }
  return first_non_finite;
}

SafetensorsFile without_values(const SafetensorsIndex& index) {
  SafetensorsFile file;
  file.metadata = index.metadata;
  file.tensors = tensors_without_values(index.entries);
  return file;
}

SafetensorsFile read_safetensors(const std::uint8_t* data, std::size_t size, const SafetensorsLimits& limits) {
  const SafetensorsIndex index = index_safetensors(data, size, limits);
  SafetensorsFile file;
  file.metadata = index.metadata;
  for (const auto& e : index.entries) file.tensors.push_back(decode_tensor(index, e));
  return file;
}

namespace {

[[noreturn]] void not_exact(double v, const std::string& name, const char* dtype) {
  throw InputError("safetensors writer: tensor " + short_text(name) + " holds " + number_text(v) + ", which " + dtype +
                   " does not hold exactly");
}

// The binary16 bits of a value binary16 holds exactly (NaN as the quiet NaN 0x7E00).
std::uint16_t exact_float16(double v, const std::string& name) {
  if (std::isnan(v)) return 0x7E00;
  const std::uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const double a = std::fabs(v);
  if (a == 0) return sign;
  if (std::isinf(a)) return sign | 0x7C00;
  int e;
  const double m = std::frexp(a, &e);  // a = m·2^e, m ∈ [0.5, 1)
  if (e - 1 < -14) {                   // subnormal: a = k·2⁻²⁴, k < 1024
    const double k = std::ldexp(a, 24);
    if (k != std::floor(k)) not_exact(v, name, "F16");
    return sign | static_cast<std::uint16_t>(k);
  }
  const double frac = std::ldexp(m, 11) - 1024;  // (2m − 1)·1024: the 10 mantissa bits
  if (e - 1 > 15 || frac != std::floor(frac)) not_exact(v, name, "F16");
  return sign | static_cast<std::uint16_t>((e - 1 + 15) << 10) | static_cast<std::uint16_t>(frac);
}

// The bfloat16 bits of a value bfloat16 holds exactly: a float32 whose low 16 bits are zero.
std::uint16_t exact_bfloat16(double v, const std::string& name) {
  if (std::isnan(v)) return 0x7FC0;
  const float f = static_cast<float>(v);
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (static_cast<double>(f) != v || (bits & 0xFFFF) != 0) not_exact(v, name, "BF16");
  return static_cast<std::uint16_t>(bits >> 16);
}

}  // namespace

std::string write_safetensors(const std::vector<Tensor>& tensors, const std::map<std::string, std::string>& metadata) {
  JsonValue header = JsonValue::object();
  if (!metadata.empty()) {
    JsonValue m = JsonValue::object();
    for (const auto& [key, value] : metadata) m[key] = value;
    header["__metadata__"] = std::move(m);
  }
  std::set<std::string> names;
  std::uint64_t offset = 0;
  for (const auto& t : tensors) {
    if (t.name.empty() || t.name == "__metadata__") throw InputError("safetensors writer: a tensor needs a name");
    if (!names.insert(t.name).second) throw InputError("safetensors writer: tensor " + t.name + " appears twice");
    std::uint64_t count = 1;
    for (auto d : t.shape) count *= static_cast<std::uint64_t>(d);
    if (count != t.values.size()) {
      throw InputError("safetensors writer: tensor " + t.name + " has " + std::to_string(t.values.size()) +
                       " values for " + std::to_string(count) + " elements");
    }
    const std::uint64_t bytes = count * dtype_size(t.dtype);
    JsonValue entry = JsonValue::object();
    entry["dtype"] = dtype_name(t.dtype);
    JsonValue shape = JsonValue::array();
    for (auto d : t.shape) shape.push_back(static_cast<unsigned long long>(d));
    entry["shape"] = std::move(shape);
    entry["data_offsets"] = JsonValue(JsonValue::Array{JsonValue(static_cast<unsigned long long>(offset)),
                                                       JsonValue(static_cast<unsigned long long>(offset + bytes))});
    header[t.name] = std::move(entry);
    offset += bytes;
  }
  std::string text = dump_json(header);
  while ((8 + text.size()) % 8 != 0) text.push_back(' ');
  std::string out;
  out.reserve(8 + text.size() + offset);
  store_u64(out, text.size());
  out += text;
  for (const auto& t : tensors) {
    for (double v : t.values) {
      if (t.dtype == DType::F64) {
        std::uint64_t bits;
        std::memcpy(&bits, &v, 8);
        store_u64(out, bits);
      } else if (t.dtype == DType::F32) {
        const float f = static_cast<float>(v);
        std::uint32_t bits;
        std::memcpy(&bits, &f, 4);
        for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
      } else if (t.dtype == DType::F16 || t.dtype == DType::BF16) {
        const std::uint16_t bits = t.dtype == DType::F16 ? exact_float16(v, t.name) : exact_bfloat16(v, t.name);
        out.push_back(static_cast<char>(bits & 0xFF));
        out.push_back(static_cast<char>(bits >> 8));
      } else {
        out.push_back(v != 0.0 ? 1 : 0);
      }
    }
  }
  return out;
}

}  // namespace headlab::formats
