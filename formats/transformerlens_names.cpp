#include "formats/transformerlens_names.hpp"

#include <cmath>
#include <cstring>

namespace headlab::formats {

namespace {

constexpr const char kBlock[] = "blocks.{l}.";
constexpr std::size_t kBlockLength = sizeof(kBlock) - 1;

bool per_layer(const char* pattern) { return std::strncmp(pattern, kBlock, kBlockLength) == 0; }

// "blocks.N." of a file's name (N digits as written), or "" when it does not start so.
std::string block_prefix(const std::string& name) {
  if (name.rfind("blocks.", 0) != 0) return "";
  std::size_t pos = 7;
  while (pos < name.size() && name[pos] >= '0' && name[pos] <= '9') ++pos;
  if (pos == 7 || pos >= name.size() || name[pos] != '.') return "";
  return name.substr(0, pos + 1);
}

}  // namespace

BridgeMatch match_bridge_name(const std::string& name, bool grouped) {
  const std::string prefix = block_prefix(name);
  for (const auto& row : kBridgeNames) {
    if (per_layer(row.bridge)) {
      const char* layout = grouped && row.grouped_layout ? row.grouped_layout : row.layout;
      if (!prefix.empty() && name.compare(prefix.size(), std::string::npos, row.bridge + kBlockLength) == 0)
        return {&row, prefix + (layout + kBlockLength)};
    } else if (name == row.bridge) {
      return {&row, row.layout};
    }
  }
  return {};
}

std::string bridge_name_of(const std::string& layout_name) {
  const std::string prefix = block_prefix(layout_name);
  for (const auto& row : kBridgeNames) {
    if (per_layer(row.layout)) {
      const auto is = [&](const char* layout) {
        return layout && layout_name.compare(prefix.size(), std::string::npos, layout + kBlockLength) == 0;
      };
      if (!prefix.empty() && (is(row.layout) || is(row.grouped_layout))) return prefix + (row.bridge + kBlockLength);
    } else if (layout_name == row.layout) {
      return row.bridge;
    }
  }
  return "";
}

std::vector<std::int64_t> bridge_shape(Rearrange rearrange, const std::vector<std::int64_t>& s) {
  switch (rearrange) {
    case Rearrange::split_heads: return {s[0] * s[1]};
    case Rearrange::heads_out_in: return {s[0] * s[2], s[1]};  // [X, a, b] → [X·b, a]
    case Rearrange::heads_in_out: return {s[2], s[0] * s[1]};  // [X, b, a] → [a, X·b]
    case Rearrange::transpose: return {s[1], s[0]};
    case Rearrange::same: break;
  }
  return s;
}

Tensor to_layout_tensor(const Tensor& bridge, Rearrange rearrange, const std::string& layout_name,
                        const std::vector<std::int64_t>& s) {
  Tensor out;
  out.name = layout_name;
  out.dtype = bridge.dtype;
  out.shape = s;
  out.first_non_finite = bridge.first_non_finite;
  const auto at = [&](std::int64_t flat) { return bridge.values[static_cast<std::size_t>(flat)]; };
  switch (rearrange) {
    case Rearrange::same:
    case Rearrange::split_heads: out.values = bridge.values; return out;
    default: break;
  }
  out.values.reserve(bridge.values.size());
  if (rearrange == Rearrange::heads_out_in) {
    // layout[x][i][j] = bridge[x·b + j][i], the bridge a row-major [X·b, a].
    const std::int64_t X = s[0], a = s[1], b = s[2];
    for (std::int64_t x = 0; x < X; ++x)
      for (std::int64_t i = 0; i < a; ++i)
        for (std::int64_t j = 0; j < b; ++j) out.values.push_back(at((x * b + j) * a + i));
  } else if (rearrange == Rearrange::heads_in_out) {
    // layout[x][j][i] = bridge[i][x·b + j], the bridge a row-major [a, X·b].
    const std::int64_t X = s[0], b = s[1], a = s[2];
    for (std::int64_t x = 0; x < X; ++x)
      for (std::int64_t j = 0; j < b; ++j)
        for (std::int64_t i = 0; i < a; ++i) out.values.push_back(at(i * X * b + x * b + j));
  } else {
    // layout[i][j] = bridge[j][i], the bridge a row-major [b, a].
    const std::int64_t a = s[0], b = s[1];
    for (std::int64_t i = 0; i < a; ++i)
      for (std::int64_t j = 0; j < b; ++j) out.values.push_back(at(j * a + i));
  }
  // The first non-finite value in the layout's order (the reader refuses it by its flat index).
  out.first_non_finite = -1;
  if (bridge.first_non_finite >= 0) {
    for (std::size_t k = 0; k < out.values.size(); ++k)
      if (!std::isfinite(out.values[k])) {
        out.first_non_finite = static_cast<std::int64_t>(k);
        break;
      }
  }
  return out;
}

}  // namespace headlab::formats
