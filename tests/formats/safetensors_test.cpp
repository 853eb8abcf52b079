#include "formats/safetensors.hpp"

#include "core/check.hpp"
#include "formats/json.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using headlab::InputError;
using namespace headlab::formats;

namespace {

using headlab::test::f32_bytes;

// A file from a header text and a data buffer, the length prefix written by hand.
std::string file_of(const std::string& header, const std::string& data) {
  std::string out;
  std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xFF));
  return out + header + data;
}

SafetensorsFile read(const std::string& bytes) {
  return read_safetensors(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace

TEST_CASE("safetensors: a hand-written F32 file reads back with names, shapes and values", "[safetensors]") {
  const std::string header =
      R"({"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},)"
      R"("b":{"dtype":"F32","shape":[],"data_offsets":[16,20]}})";
  const auto file = read(file_of(header, f32_bytes({1.5f, -2.0f, 0.1f, 3.0f, 7.0f})));
  REQUIRE(file.tensors.size() == 2);
  const Tensor* a = file.find("a");
  REQUIRE(a != nullptr);
  CHECK(a->shape == std::vector<std::int64_t>{2, 2});
  CHECK(a->values[2] == static_cast<double>(0.1f));  // F32 widened exactly
  CHECK(file.find("b")->values == std::vector<double>{7.0});
  CHECK(file.metadata.at("format") == "pt");
  CHECK(file.find("c") == nullptr);
}

TEST_CASE("safetensors: the writer's bytes read back bit for bit (F64, F32, BOOL, non-finite recorded)",
          "[safetensors]") {
  std::vector<Tensor> tensors(3);
  tensors[0] = {"w", DType::F64, {2, 3}, {1.0 / 3, -0.0, 1e-300, 5, 6, 7}, -1};
  tensors[1] = {"m", DType::BOOL, {2}, {1, 0}, -1};
  tensors[2] = {"x", DType::F32, {1}, {-INFINITY}, -1};
  const std::string bytes = write_safetensors(tensors, {{"producer", "test"}});
  CHECK((bytes.size() - 8 - 48 - 2 - 4) % 8 == 0);  // header padded so data starts 8-aligned
  const auto file = read(bytes);
  CHECK(file.find("w")->values == tensors[0].values);
  CHECK(std::signbit(file.find("w")->values[1]));
  CHECK(file.find("w")->first_non_finite == -1);
  CHECK(file.find("m")->values == std::vector<double>{1, 0});
  CHECK(file.find("x")->first_non_finite == 0);
  CHECK(file.metadata.at("producer") == "test");
  CHECK_THROWS_WITH(write_safetensors({tensors[0], tensors[0]}), Catch::Contains("appears twice"));
  tensors[0].shape = {4};
  CHECK_THROWS_WITH(write_safetensors({tensors[0]}), Catch::Contains("6 values for 4 elements"));
}

TEST_CASE("safetensors: every malformed file is an InputError naming what is wrong", "[safetensors]") {
  const std::string ok_header = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  const std::string data = f32_bytes({1, 2});
  // Sanity: the base case reads.
  CHECK(read(file_of(ok_header, data)).tensors.size() == 1);
  // The file of `header` over the two values is refused with a message containing `part`.
  const auto refuses = [&](const std::string& header, const std::string& part) {
    CHECK_THROWS_WITH(read(file_of(header, data)), Catch::Contains(part));
  };

  SECTION("truncated before the header length") {
    CHECK_THROWS_WITH(read("abc"), Catch::Contains("truncated: 3 bytes"));
  }
  SECTION("header length past the end") {
    std::string bytes = file_of(ok_header, data);
    bytes[0] = static_cast<char>(200);
    bytes[1] = 1;
    CHECK_THROWS_WITH(read(bytes), Catch::Contains("the header needs 456 bytes"));
  }
  SECTION("header length over the limit") {
    std::string bytes(16, '\0');
    bytes[7] = 1;  // 2^56
    CHECK_THROWS_WITH(read(bytes), Catch::Contains("exceeds the limit"));
  }
  SECTION("data truncated") {
    CHECK_THROWS_WITH(read(file_of(ok_header, data.substr(0, 6))), Catch::Contains("run past the end"));
  }
  SECTION("trailing bytes") {
    CHECK_THROWS_WITH(read(file_of(ok_header, data + "zz")), Catch::Contains("[8, 10) at the end"));
  }
  SECTION("overlap") {
    refuses(
        R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
        "overlap");
  }
  SECTION("gap") {
    refuses(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", "[0, 4) of the data belong to no tensor");
  }
  SECTION("shape disagrees with offsets") {
    refuses(R"({"a":{"dtype":"F64","shape":[2],"data_offsets":[0,8]}})", "needs 16 bytes");
  }
  SECTION("offsets reversed") {
    refuses(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})", "end before they begin");
  }
  SECTION("unsupported dtype") {
    const std::string h = R"({"a":{"dtype":"I16","shape":[4],"data_offsets":[0,8]}})";
    CHECK_THROWS_WITH(read(file_of(h, data)),
                      Catch::EndsWith("tensor a has dtype I16; supported: F64, F32, F16, BF16 (and BOOL for masks)"));
  }
  SECTION("negative and fractional numbers") {
    refuses(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", "non-negative integers");
    refuses(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8.0]}})", "data_offsets");
  }
  SECTION("an element count that overflows") {
    refuses(R"({"a":{"dtype":"F64","shape":[4294967296,4294967296,16],"data_offsets":[0,8]}})", "more elements");
  }
  SECTION("too many dimensions") {
    refuses(R"({"a":{"dtype":"F32","shape":[1,1,1,1,2],"data_offsets":[0,8]}})", "5 dimensions");
  }
  SECTION("not JSON, not an object, deep nesting, long strings") {
    refuses("{\"a\":", "not valid JSON");
    refuses("[1]", "JSON object");
    refuses(R"({"a":{"b":[[1]]}})", "deeper than 3");
    refuses("{\"" + std::string(300, 'x') + "\":1}", "its name has 300 bytes; the limit is 256");
  }
  SECTION("unknown entry field and bad BOOL byte") {
    refuses(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1}})", "unknown field \"x\"");
    CHECK_THROWS_WITH(read(file_of(R"({"a":{"dtype":"BOOL","shape":[1],"data_offsets":[0,1]}})", "\x02")),
                      Catch::Contains("BOOL value 2"));
  }
  SECTION("file over the size limit") {
    SafetensorsLimits small;
    small.max_file_bytes = 10;
    const std::string bytes = file_of(ok_header, data);
    CHECK_THROWS_WITH(read_safetensors(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), small),
                      Catch::Contains("the limit is 10"));
  }
}

TEST_CASE("safetensors: every truncation of a valid file is refused without reading past it", "[safetensors]") {
  std::vector<Tensor> tensors{{"a", DType::F32, {3}, {1, 2, 3}, -1}, {"b", DType::F64, {2}, {4, 5}, -1}};
  const std::string bytes = write_safetensors(tensors);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    // A fresh heap copy of exactly n bytes, so the sanitizer build catches any read past it.
    std::vector<std::uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    CHECK_THROWS_AS(read_safetensors(prefix.data(), prefix.size()), InputError);
  }
}

// An adversarial audit of the reader: each of these was accepted silently (or, for the long
// description and the 256-character name, refused although the format allows it).
TEST_CASE("safetensors: a repeated key, bad UTF-8 and long free text are judged by the format", "[safetensors]") {
  const std::string data = f32_bytes({1, 2});
  const std::string a = R"("a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]})";
  const std::string b = R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]})";
  SECTION("a tensor name given twice, the second pointing at other bytes") {
    // The first "a" covers the whole buffer; keeping only the second made the rest tile exactly.
    const std::string h = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)" + a + "," + b + "}";
    CHECK_THROWS_WITH(
        read(file_of(h, data)),
        Catch::StartsWith("safetensors: the header has the key \"a\" twice (the second at line 1, column 55)"));
  }
  SECTION("__metadata__ given twice") {
    const std::string h = R"({"__metadata__":{"format":"pt"},"__metadata__":{"format":"tf"},)" + a + "," + b + "}";
    CHECK_THROWS_WITH(read(file_of(h, data)), Catch::Contains("the key \"__metadata__\" twice"));
  }
  SECTION("a field of an entry given twice") {
    const std::string h = R"({"a":{"dtype":"F32","dtype":"F64","shape":[1],"data_offsets":[0,4]},)" + b + "}";
    CHECK_THROWS_WITH(read(file_of(h, data)), Catch::Contains("the key \"dtype\" twice"));
  }
  SECTION("strings that are not well-formed UTF-8, in a name or a metadata value") {
    // A stray continuation byte, an invalid lead byte, overlong forms of '/', a UTF-16 surrogate,
    // a code point past U+10FFFF, a sequence cut by the closing quote.
    for (const std::string bad : {"\x80", "\xff", "\xc0\xaf", "\xe0\x80\xaf", "\xf0\x80\x80\xaf", "\xed\xa0\x80",
                                  "\xf4\x90\x80\x80", "\xe2\x82"}) {
      INFO(excerpt(bad));
      const std::string named = "{\"a" + bad + R"(":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)" + b + "}";
      CHECK_THROWS_WITH(read(file_of(named, data)), Catch::Contains("is not valid JSON: invalid UTF-8 in a string"));
      const std::string described = R"({"__metadata__":{"description":"x)" + bad + "\"}," + a + "," + b + "}";
      CHECK_THROWS_WITH(read(file_of(described, data)), Catch::Contains("invalid UTF-8 in a string"));
    }
    // Well-formed two-, three- and four-byte characters are read as they are.
    const std::string text = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e \xf4\x8f\xbf\xbf";
    const auto file = read(file_of(R"({"__metadata__":{"description":")" + text + "\"}," + a + "," + b + "}", data));
    CHECK(file.metadata.at("description") == text);
  }
  SECTION("a metadata value of 300 characters (a model card's description) is free text") {
    const std::string description(300, 'd');
    const auto file =
        read(file_of(R"({"__metadata__":{"description":")" + description + "\"}," + a + "," + b + "}", data));
    CHECK(file.metadata.at("description") == description);
  }
  SECTION("a tensor name of exactly 256 characters is read; 257 are refused naming the limit") {
    const auto named = [&](std::size_t n) {
      return file_of("{\"" + std::string(n, 'n') + R"(":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", data);
    };
    CHECK(read(named(256)).tensors.at(0).name == std::string(256, 'n'));
    CHECK_THROWS_WITH(read(named(257)), Catch::Contains("its name has 257 bytes; the limit is 256"));
  }
}
