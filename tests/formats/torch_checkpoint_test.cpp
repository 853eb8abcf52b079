#include "formats/torch_checkpoint.hpp"

#include "core/check.hpp"
#include "formats/file_io.hpp"
#include "formats/safetensors.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

using headlab::InputError;
using namespace headlab::formats;

namespace {

using headlab::test::f32_bytes;

std::string fixture(const std::string& name) {
  return read_text_file(std::string(HEADLAB_TEST_DATA) + "/torch_checkpoint/" + name, "fixture", std::size_t{1} << 20);
}

SafetensorsFile read_pt(const std::string& bytes, const TorchCheckpointLimits& limits = {}) {
  return read_torch_checkpoint(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), limits);
}

std::string le_bytes(std::uint64_t v, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  return out;
}

std::uint32_t crc32(const std::string& s) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : s) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  }
  return c ^ 0xFFFFFFFFu;
}

struct ZipEntry {
  std::string name, bytes;
  int method = 0;
};

// A ZIP archive of stored entries (PKWARE APPNOTE: local headers, central directory, end record).
std::string zip(const std::vector<ZipEntry>& entries) {
  std::string out, central;
  for (const auto& e : entries) {
    const std::string common = le_bytes(20, 2) + le_bytes(0, 2) + le_bytes(e.method, 2) + le_bytes(0, 4) +
                               le_bytes(crc32(e.bytes), 4) + le_bytes(e.bytes.size(), 4) + le_bytes(e.bytes.size(), 4) +
                               le_bytes(e.name.size(), 2) + le_bytes(0, 2);
    central += le_bytes(0x02014b50, 4) + le_bytes(20, 2) + common + le_bytes(0, 2) + le_bytes(0, 2) + le_bytes(0, 2) +
               le_bytes(0, 4) + le_bytes(out.size(), 4) + e.name;
    out += le_bytes(0x04034b50, 4) + common + e.name + e.bytes;
  }
  const std::size_t cd_offset = out.size();
  out += central;
  out += le_bytes(0x06054b50, 4) + le_bytes(0, 4) + le_bytes(entries.size(), 2) + le_bytes(entries.size(), 2) +
         le_bytes(central.size(), 4) + le_bytes(cd_offset, 4) + le_bytes(0, 2);
  return out;
}

// Pickle text by opcode.
std::string str(const std::string& s) { return "X" + le_bytes(s.size(), 4) + s; }
std::string integer(std::int64_t i) { return "\x8a\x08" + le_bytes(static_cast<std::uint64_t>(i), 8); }
std::string ints(const std::vector<std::int64_t>& v) {
  std::string out = "(";
  for (auto i : v) out += integer(i);
  return out + "t";
}
const std::string kOrderedDict = "ccollections\nOrderedDict\n)R";

struct TensorSpec {
  std::string name, storage_class = "FloatStorage", key = "0";
  std::int64_t numel = 4, offset = 0;
  std::vector<std::int64_t> size{4}, stride{1};
};

// data.pkl of an OrderedDict name → _rebuild_tensor_v2(...), as torch.save writes one (no memo).
std::string state_dict_pickle(const std::vector<TensorSpec>& tensors) {
  std::string p = "\x80\x02" + kOrderedDict + "(";
  for (const auto& t : tensors) {
    p += str(t.name) + "ctorch._utils\n_rebuild_tensor_v2\n(" + "(" + str("storage") + "ctorch\n" + t.storage_class +
         "\n" + str(t.key) + str("cpu") + integer(t.numel) + "tQ" + integer(t.offset) + ints(t.size) + ints(t.stride) +
         "\x89" + kOrderedDict + "tR";
  }
  return p + "u.";
}

// A checkpoint archive: data.pkl, byteorder, version and the storages given.
std::string archive(const std::string& pickle,
                    const std::vector<ZipEntry>& storages = {{"archive/data/0", std::string(16, '\0')}},
                    const std::string& byteorder = "little") {
  std::vector<ZipEntry> e{{"archive/data.pkl", pickle}, {"archive/byteorder", byteorder}};
  e.insert(e.end(), storages.begin(), storages.end());
  e.push_back({"archive/version", "3\n"});
  return zip(e);
}

// The message of the InputError reading `bytes` throws ("" if it reads).
std::string refusal(const std::string& bytes, const TorchCheckpointLimits& limits = {}) {
  try {
    read_pt(bytes, limits);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("torch checkpoint: torch.save's state_dict reads back exactly as torch reads it", "[torch_checkpoint]") {
  const std::string pt = fixture("state_dict.pt");
  const std::string ex = fixture("state_dict.expected.safetensors");
  REQUIRE(looks_like_zip(reinterpret_cast<const std::uint8_t*>(pt.data()), pt.size()));
  const auto file = read_pt(pt);
  const auto expected = read_safetensors(reinterpret_cast<const std::uint8_t*>(ex.data()), ex.size());
  REQUIRE(file.tensors.size() == expected.tensors.size());
  REQUIRE(file.tensors.size() == 11);
  for (std::size_t i = 0; i < file.tensors.size(); ++i) {
    const Tensor& got = file.tensors[i];
    const Tensor& want = expected.tensors[i];
    INFO(want.name);
    CHECK(got.name == want.name);  // sorted by name, as safetensors lists them
    CHECK(got.shape == want.shape);
    REQUIRE(got.values.size() == want.values.size());
    // Bit for bit (−0.0 included): every dtype's conversion to double is exact.
    CHECK(std::memcmp(got.values.data(), want.values.data(), 8 * got.values.size()) == 0);
  }
  CHECK(file.find("lin.weight")->dtype == DType::F32);
  CHECK(file.find("f64")->dtype == DType::F64);
  CHECK(file.find("f16")->dtype == DType::F16);
  CHECK(file.find("bf16")->dtype == DType::BF16);
  CHECK(file.find("mask")->dtype == DType::BOOL);
  CHECK(file.find("mask")->values == std::vector<double>{1, 0, 1, 1});
  // Values torch rounds them to, by hand: float16 65504 (its largest), 6e-8 → 1 · 2^−24 (subnormal).
  CHECK(file.find("f16")->values[2] == 65504.0);
  CHECK(file.find("f16")->values[3] == std::ldexp(1.0, -24));
  CHECK(file.find("f16")->first_non_finite == 5);
  CHECK(file.find("f64")->first_non_finite == -1);
  // The transposed view, the row and the column share the base's storage.
  CHECK(file.find("base_t")->shape == std::vector<std::int64_t>{4, 3});
  CHECK(file.find("base_t")->values[1] == file.find("base")->values[4]);
  CHECK(file.find("row")->values == std::vector<double>{0.0, 0.125, 0.25, 0.375});
  CHECK(file.find("col")->values == std::vector<double>{-0.25, 0.25, 0.75});
  CHECK(file.find("param")->values == std::vector<double>{1.5, -2.0});
  CHECK(file.metadata.empty());
}

TEST_CASE("torch checkpoint: a dict that is not a state_dict of tensors is refused, naming the key",
          "[torch_checkpoint]") {
  CHECK(
      refusal(fixture("nested.pt")) ==
      "torch checkpoint: entry model_state_dict is a dict, not a tensor: only a state_dict of tensors is read (save model.state_dict() itself, not a dict holding it)");
  CHECK(
      refusal(fixture("long.pt")) ==
      "torch checkpoint: tensor steps is stored as torch.LongStorage; read are float32, float64, float16, bfloat16 and bool");
}

TEST_CASE("torch checkpoint: a hand-built archive reads (strides, offsets, shared storage)", "[torch_checkpoint]") {
  TensorSpec a{"a"}, b{"b"};
  a.size = {2, 2};
  a.stride = {1, 2};  // the transpose of [[1, 2], [3, 4]]
  b.offset = 3;
  b.size = {3};
  b.stride = {0};  // a broadcast of element 3
  const auto file = read_pt(archive(state_dict_pickle({b, a}), {{"archive/data/0", f32_bytes({1, 2, 3, 4})}}));
  REQUIRE(file.tensors.size() == 2);
  CHECK(file.tensors[0].name == "a");
  CHECK(file.tensors[0].values == std::vector<double>{1, 3, 2, 4});
  CHECK(file.tensors[1].values == std::vector<double>{4, 4, 4});
}

TEST_CASE("torch checkpoint: globals other than the allow-list are refused by name and byte", "[torch_checkpoint]") {
  // pickle.dumps of os.system("ls"), protocol 2, by hand: GLOBAL, the argument, TUPLE1, REDUCE.
  const std::string evil =
      std::string("\x80\x02") + "cos\nsystem\nq" + std::string(1, '\0') + str("ls") + "q\x01\x85q\x02Rq\x03.";
  CHECK(
      refusal(archive(evil)) ==
      "torch checkpoint: data.pkl: opcode 0x63 'GLOBAL os.system' at byte 2 is not allowed: only tensors, dicts and lists are read");
  const std::string stack_global =
      std::string("\x80\x04") + "\x8c\x08" + "builtins" + "\x8c\x04" + "eval" + "\x93" + str("1") + "\x85R.";
  CHECK(
      refusal(archive(stack_global)) ==
      "torch checkpoint: data.pkl: opcode 0x93 'STACK_GLOBAL builtins.eval' at byte 18 is not allowed: only tensors, dicts and lists are read");
  // An allowed name that is not a function: REDUCE calls nothing but the three it knows.
  CHECK(
      refusal(archive("\x80\x02"
                      "ctorch\nFloatStorage\n)R.")) ==
      "torch checkpoint: data.pkl: opcode 0x52 'REDUCE' at byte 23 calls torch.FloatStorage, which is not called: only OrderedDict, "
      "_rebuild_tensor_v2 and _rebuild_parameter are");
  // Opcodes a state_dict never uses: INST (which imports and calls), BINBYTES.
  CHECK(
      refusal(archive("\x80\x02(ios\nsystem\n.")) ==
      "torch checkpoint: data.pkl: opcode 0x69 'INST' at byte 3 is not allowed: only tensors, dicts and lists are read");
  CHECK(
      refusal(archive("\x80\x02"
                      "B\x01\x00\x00\x00x.")) ==
      "torch checkpoint: data.pkl: opcode 0x42 'BINBYTES' at byte 2 is not allowed: only tensors, dicts and lists are read");
  CHECK(refusal(archive("\x80\x02}")) ==
        "torch checkpoint: data.pkl: it ends at byte 3 without STOP (it is truncated)");
  CHECK(
      refusal(archive("\x80\x02X\xff" + std::string(3, '\0') + "ab")) ==
      "torch checkpoint: data.pkl: opcode 0x58 'BINUNICODE' at byte 2 needs 255 more bytes than data.pkl holds (it is truncated)");
  CHECK(refusal(archive("\x80\x02h\x05.")) ==
        "torch checkpoint: data.pkl: opcode 0x68 'BINGET' at byte 2 reads memo entry 5, which was never stored");
  // A list put inside itself (through the memo) would be a cycle: refused.
  CHECK(
      refusal(archive("\x80\x02]q" + std::string(1, '\0') + "h" + std::string(1, '\0') + "a.")) ==
      "torch checkpoint: data.pkl: opcode 0x61 'APPEND' at byte 7 changes a list that is already inside another value");
}

TEST_CASE("torch checkpoint: nesting, MARKs, stack and memo at their limits and one past", "[torch_checkpoint]") {
  const auto nested_lists = [](int k) {
    std::string p = "\x80\x02}" + str("a") + std::string(k, ']') + std::string(k - 1, 'a') + "s.";
    return archive(p);
  };
  CHECK(
      refusal(nested_lists(63)) ==
      "torch checkpoint: entry a is a list, not a tensor: only a state_dict of tensors is read (save model.state_dict() itself, not a dict holding it)");
  CHECK(
      refusal(nested_lists(64)) ==
      "torch checkpoint: data.pkl: opcode 0x73 'SETITEM' at byte 136 nests values more than 64 deep; that is the limit");
  const auto marks = [](int k) { return archive("\x80\x02" + std::string(k, '(') + std::string(k, 't') + "."); };
  CHECK(refusal(marks(64)) == "torch checkpoint: data.pkl holds a tuple, not a state_dict (a dict of tensors)");
  CHECK(
      refusal(marks(65)) ==
      "torch checkpoint: data.pkl: opcode 0x28 'MARK' at byte 66 opens more than 64 MARKs; that is the nesting limit");
  const auto stack = [](int k) { return archive("\x80\x02](" + std::string(k, 'N') + "e."); };
  CHECK(refusal(stack(65535)) == "torch checkpoint: data.pkl holds a list, not a state_dict (a dict of tensors)");
  CHECK(
      refusal(stack(65536)) ==
      "torch checkpoint: data.pkl: opcode 0x4e 'NONE' at byte 65539 would put more than 65536 values on the stack; that is the limit");
  const auto memo = [](std::uint64_t k) {
    std::string p = "\x80\x02}";
    for (std::uint64_t i = 0; i < k; ++i) p += "r" + le_bytes(i, 4);
    return archive(p + ".");
  };
  CHECK(read_pt(memo(262144)).tensors.empty());  // an empty state_dict
  // Values made: a list and k − 1 Nones appended to it, two bytes each.
  const auto objects = [](std::size_t k) {
    std::string p = "\x80\x02]";
    for (std::size_t i = 1; i < k; ++i) p += "Na";
    return archive(p + ".");
  };
  CHECK(refusal(objects(524288)) == "torch checkpoint: data.pkl holds a list, not a state_dict (a dict of tensors)");
  CHECK(
      refusal(objects(524289)) ==
      "torch checkpoint: data.pkl: opcode 0x4e 'NONE' at byte 1048577 makes more than 524288 values; that is the limit");
  CHECK(
      refusal(memo(262145)) ==
      "torch checkpoint: data.pkl: opcode 0x72 'LONG_BINPUT' at byte 1310723 would hold more than 262144 memo entries; that is the limit");
}

TEST_CASE("torch checkpoint: tensors, names and ranks at their limits and one past", "[torch_checkpoint]") {
  const auto many = [](int k) {
    std::vector<TensorSpec> t(k);
    for (int i = 0; i < k; ++i) t[i].name = "t" + std::to_string(i);
    return archive(state_dict_pickle(t));
  };
  CHECK(read_pt(many(4096)).tensors.size() == 4096);
  CHECK(refusal(many(4097)) == "torch checkpoint: the state_dict has 4097 entries; the limit is 4096");
  TensorSpec t;
  t.name = std::string(256, 'n');
  CHECK(read_pt(archive(state_dict_pickle({t}))).tensors[0].name.size() == 256);
  t.name += "n";
  CHECK(refusal(archive(state_dict_pickle({t}))) ==
        "torch checkpoint: tensor nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn…: its name has 257 bytes; the limit is 256");
  t.name = "r";
  t.size = {1, 1, 1, 4};
  t.stride = {4, 4, 4, 1};
  CHECK(read_pt(archive(state_dict_pickle({t}))).tensors[0].shape.size() == 4);
  t.size.push_back(1);
  t.stride.push_back(1);
  CHECK(refusal(archive(state_dict_pickle({t}))) == "torch checkpoint: tensor r has 5 dimensions; at most 4");
  t.name = "\xff";
  t.size = {4};
  t.stride = {1};
  CHECK(refusal(archive(state_dict_pickle({t}))) == "torch checkpoint: tensor ?: its name is not well-formed UTF-8");
}

TEST_CASE("torch checkpoint: shapes, strides and offsets stay inside the storage", "[torch_checkpoint]") {
  TensorSpec t{"w"};
  t.offset = 3;
  t.size = {1};
  CHECK(read_pt(archive(state_dict_pickle({t}))).tensors[0].values == std::vector<double>{0});
  t.offset = 4;
  CHECK(refusal(archive(state_dict_pickle({t}))) ==
        "torch checkpoint: tensor w: its storage offset 4 is past its storage of 4 elements");
  t.offset = std::int64_t{1} << 62;  // beyond the 2^61 elements any bound is computed within
  CHECK(refusal(archive(state_dict_pickle({t}))) ==
        "torch checkpoint: tensor w: its storage offset 4611686018427387904 is past its storage of 4 elements");
  t.offset = 0;
  t.size = {2, 2};
  t.stride = {2, 2};  // the last element would be index 4
  CHECK(refusal(archive(state_dict_pickle({t}))) ==
        "torch checkpoint: tensor w: its elements reach index 4 of a storage of 4 elements");
  t.size = {std::int64_t{1} << 40, std::int64_t{1} << 40};
  t.stride = {0, 0};  // 2^80 elements, all one: the product overflows 64 bits
  CHECK(refusal(archive(state_dict_pickle({t}))) ==
        "torch checkpoint: tensor w has a shape or stride beyond its storage of 4 elements");
  t.size = {2};
  t.stride = {std::int64_t{1} << 62};
  CHECK(refusal(archive(state_dict_pickle({t}))) ==
        "torch checkpoint: tensor w has a shape or stride beyond its storage of 4 elements");
  t.stride = {-1};
  CHECK(refusal(archive(state_dict_pickle({t}))) ==
        "torch checkpoint: tensor w has a negative size or stride in dimension 0");
  t.stride = {1};
  t.offset = -1;
  CHECK(refusal(archive(state_dict_pickle({t}))) == "torch checkpoint: tensor w has a negative storage offset -1");
  t.offset = 0;
  t.numel = 5;  // the storage entry holds 16 bytes, 4 floats
  CHECK(refusal(archive(state_dict_pickle({t}))) ==
        "torch checkpoint: tensor w: its storage 0 has 16 bytes, not 5 elements of float32");
  t.numel = 4;
  t.key = "7";
  CHECK(refusal(archive(state_dict_pickle({t}))) ==
        "torch checkpoint: tensor w: its storage 7 is not in the archive (archive/data/…)");
  // Elements of all tensors together, through the limit parameter (a broadcast reads many from few).
  TorchCheckpointLimits limits;
  limits.max_values = 6;
  t.key = "0";
  t.size = {6};
  t.stride = {0};
  CHECK(read_pt(archive(state_dict_pickle({t})), limits).tensors[0].values.size() == 6);
  t.size = {7};
  CHECK(refusal(archive(state_dict_pickle({t})), limits) ==
        "torch checkpoint: tensor w: the tensors hold more than 6 elements together; that is the limit");
  t.size = {4};
  t.stride = {1};
  t.storage_class = "BoolStorage";  // 16 bytes are 16 bools, then
  t.numel = 16;
  CHECK(read_pt(archive(state_dict_pickle({t}), {{"archive/data/0", std::string(15, '\0') + "\x02"}}))
            .tensors[0]
            .values == std::vector<double>{0, 0, 0, 0});
  t.offset = 12;
  CHECK(refusal(archive(state_dict_pickle({t}), {{"archive/data/0", std::string(15, '\0') + "\x02"}})) ==
        "torch checkpoint: tensor w: bool element 3 is the byte 2, not 0 or 1");
}

TEST_CASE("torch checkpoint: the archive is refused when damaged, compressed or big-endian", "[torch_checkpoint]") {
  const std::string good = archive(state_dict_pickle({TensorSpec{"w"}}));
  CHECK(read_pt(good).tensors.size() == 1);
  CHECK(
      refusal(good.substr(0, good.size() - 1)) ==
      "torch checkpoint: no ZIP end-of-central-directory record: the file is not a ZIP archive (torch.save writes one) or it is truncated");
  CHECK(
      refusal(good.substr(0, 10)) ==
      "torch checkpoint: no ZIP end-of-central-directory record: the file is not a ZIP archive (torch.save writes one) or it is truncated");
  std::string damaged = good;
  damaged[50] ^= 1;  // inside data.pkl
  CHECK(refusal(damaged) ==
        "torch checkpoint: entry archive/data.pkl: its CRC-32 does not match its bytes (the file is damaged)");
  CHECK(
      refusal(zip({{"archive/data.pkl", state_dict_pickle({TensorSpec{"w"}}), 8},
                   {"archive/data/0", std::string(16, '\0')}})) ==
      "torch checkpoint: entry archive/data.pkl is compressed (ZIP method 8); torch.save stores entries uncompressed, and only stored entries are read");
  CHECK(refusal(archive(state_dict_pickle({TensorSpec{"w"}}), {{"archive/data/0", std::string(16, '\0')}}, "big")) ==
        "torch checkpoint: byteorder is \"big\"; only little-endian files (\"little\") are read");
  CHECK(refusal(zip({{"archive/other.pkl", "x"}})) ==
        "torch checkpoint: the archive has no <archive>/data.pkl entry: it is not a torch.save file");
  CHECK(refusal(zip({{"a/data.pkl", "x"}, {"a/data.pkl", "y"}})) ==
        "torch checkpoint: entry a/data.pkl appears twice in the archive");
  // The file and data.pkl sizes, through the limit parameters; the entry count at its default.
  TorchCheckpointLimits limits;
  limits.max_file_bytes = good.size();
  CHECK(read_pt(good, limits).tensors.size() == 1);
  limits.max_file_bytes = good.size() - 1;
  CHECK(refusal(good, limits) == "torch checkpoint: the file has " + std::to_string(good.size()) +
                                     " bytes; the limit is " + std::to_string(good.size() - 1));
  const auto pickle_of = [](std::size_t n) { return archive("\x80\x02" + str(std::string(n - 8, 'x')) + "."); };
  CHECK(refusal(pickle_of(std::size_t{4} << 20)) ==
        "torch checkpoint: data.pkl holds a string, not a state_dict (a dict of tensors)");
  CHECK(refusal(pickle_of((std::size_t{4} << 20) + 1)) ==
        "torch checkpoint: data.pkl has 4194305 bytes; the limit is 4194304");
  const auto entries = [](int k) {
    std::vector<ZipEntry> e{{"archive/data.pkl", "\x80\x02}."}};
    for (int i = 1; i < k; ++i) e.push_back({"archive/data/" + std::to_string(i), ""});
    return zip(e);
  };
  CHECK(read_pt(entries(8192)).tensors.empty());
  CHECK(refusal(entries(8193)) == "torch checkpoint: the archive has 8193 entries; the limit is 8192");
}
