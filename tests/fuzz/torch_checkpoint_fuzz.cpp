// libFuzzer target: arbitrary bytes as a PyTorch checkpoint (formats/torch_checkpoint.hpp): the ZIP
// archive, the restricted unpickler of data.pkl and the tensors' bounds. The reader may refuse the
// file with an InputError that says why; anything else — another exception type, a crash, a read
// past the buffer, a leak (a value that contains itself), a sanitizer report — is a bug. The seeds
// (tests/fuzz/make_edge_seeds.py) are torch.save's own files and a hand-built archive whose
// data.pkl sits at the nesting limit; the CRC-32 of a mutated entry rarely matches, so the target
// also reads each input with its CRCs rewritten (the unpickler behind them is what matters).
#include "core/check.hpp"
#include "formats/torch_checkpoint.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

std::uint32_t crc32(const std::uint8_t* p, std::size_t n) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  }
  return c ^ 0xFFFFFFFFu;
}

std::uint32_t le32(const std::uint8_t* p) {
  return p[0] | p[1] << 8 | p[2] << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

// Rewrites the CRC of every central directory entry (signature PK\1\2) to the CRC of the bytes its
// local header (signature PK\3\4) points at, where both lie within the file.
void fix_crcs(std::vector<std::uint8_t>& b) {
  for (std::size_t at = 0; at + 46 <= b.size(); ++at) {
    if (le32(&b[at]) != 0x02014b50) continue;
    const std::uint32_t size = le32(&b[at + 24]), local = le32(&b[at + 42]);
    if (local > b.size() || b.size() - local < 30 || le32(&b[local]) != 0x04034b50) continue;
    const std::size_t begin =
        std::size_t{local} + 30 + (b[local + 26] | b[local + 27] << 8) + (b[local + 28] | b[local + 29] << 8);
    if (begin > b.size() || b.size() - begin < size) continue;
    const std::uint32_t crc = crc32(&b[begin], size);
    for (int k = 0; k < 4; ++k) b[at + 16 + k] = static_cast<std::uint8_t>(crc >> (8 * k));
  }
}

void read_one(const std::vector<std::uint8_t>& bytes) {
  headlab::formats::TorchCheckpointLimits limits;
  limits.max_values = std::size_t{1} << 20;  // a broadcast of 2^20 doubles (8 MiB) at most per input
  try {
    const auto file = headlab::formats::read_torch_checkpoint(bytes.data(), bytes.size(), limits);
    // An accepted file: at most the limits, product(shape) values per tensor, sorted unique names.
    if (file.tensors.size() > limits.max_tensors) std::abort();
    for (std::size_t i = 0; i < file.tensors.size(); ++i) {
      const auto& t = file.tensors[i];
      std::size_t count = 1;
      for (auto d : t.shape) count *= static_cast<std::size_t>(d);
      if (count != t.values.size() || t.shape.size() > limits.max_rank || t.name.empty()) std::abort();
      if (i > 0 && !(file.tensors[i - 1].name < t.name)) std::abort();
      for (std::size_t k = 0; k < t.values.size(); ++k) {
        if (!std::isfinite(t.values[k]) && (t.first_non_finite < 0 || static_cast<std::size_t>(t.first_non_finite) > k))
          std::abort();
      }
    }
  } catch (const headlab::InputError& e) {
    if (std::string(e.what()).rfind("torch checkpoint: ", 0) != 0) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // An exact-size heap copy, so ASan sees any read past the end.
  std::vector<std::uint8_t> bytes(data, data + size);
  read_one(bytes);
  fix_crcs(bytes);
  read_one(bytes);
  return 0;
}
