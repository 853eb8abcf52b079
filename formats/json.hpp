// The JSON under every headlab file format (docs/model-pattern.md, "Formats"): one small value
// type, one bounded parser and one writer, shared by the CLI and both WASM modules (no
// nlohmann here: the WASM modules stay small, see tests/browser/sizes.test.mjs).
//
// parse_json checks the document size first and the nesting depth and string lengths while it
// scans, so a hostile file (a value nested 60,000 deep, a 1 GB string) is refused with a message
// before any deep work; messages quote at most kExcerptBytes of the text. Each limit is inclusive:
// a document of max_bytes, max_depth levels, a string of max_string_bytes is read; one more is not.
// dump_json writes the bytes nlohmann::json::dump() writes (keys sorted, no spaces, doubles as
// the shortest text that reads back to the same bits, integers as integers), so files written
// before this layer existed regenerate byte for byte. A non-finite double is refused (InputError
// "cannot write NaN as a JSON number (field "a.b[2]")…"), by dump_json and JsonWriter alike, so no
// writer puts a silent null where a number belongs; a format whose value is undefined by nature
// writes an explicit null (JsonValue(nullptr)) and documents it.
#pragma once

#include "core/matrix.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace headlab::formats {

class JsonValue {
 public:
  enum class Kind { null, boolean, integer, unsigned_integer, number, string, array, object };
  using Array = std::vector<JsonValue>;
  using Object = std::map<std::string, JsonValue>;  // sorted keys, as nlohmann's default object

  JsonValue() = default;
  JsonValue(std::nullptr_t) {}
  JsonValue(bool b) : kind_(Kind::boolean), boolean_(b) {}
  JsonValue(int x) : kind_(Kind::integer), integer_(x) {}
  JsonValue(long x) : kind_(Kind::integer), integer_(x) {}
  JsonValue(long long x) : kind_(Kind::integer), integer_(x) {}
  JsonValue(unsigned long x) : kind_(Kind::unsigned_integer), unsigned_(x) {}
  JsonValue(unsigned long long x) : kind_(Kind::unsigned_integer), unsigned_(x) {}
  JsonValue(double x) : kind_(Kind::number), number_(x) {}
  JsonValue(const char* s) : kind_(Kind::string), string_(s) {}
  JsonValue(std::string s) : kind_(Kind::string), string_(std::move(s)) {}
  JsonValue(Array a) : kind_(Kind::array), array_(std::move(a)) {}
  JsonValue(Object o) : kind_(Kind::object), object_(std::move(o)) {}
  template <class T>
  JsonValue(const std::vector<T>& v) : kind_(Kind::array) {
    for (const auto& x : v) array_.emplace_back(x);
  }
  template <class T, std::size_t N>
  JsonValue(const std::array<T, N>& v) : kind_(Kind::array) {
    for (const auto& x : v) array_.emplace_back(x);
  }
  JsonValue(const std::vector<bool>& v) : kind_(Kind::array) {
    for (bool x : v) array_.emplace_back(x);
  }

  static JsonValue array() { return JsonValue(Array{}); }
  static JsonValue object() { return JsonValue(Object{}); }

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::null; }
  bool is_boolean() const { return kind_ == Kind::boolean; }
  bool is_number() const { return kind_ == Kind::integer || kind_ == Kind::unsigned_integer || kind_ == Kind::number; }
  bool is_string() const { return kind_ == Kind::string; }
  bool is_array() const { return kind_ == Kind::array; }
  bool is_object() const { return kind_ == Kind::object; }

  bool as_bool() const { return boolean_; }
  // Any number as a double (an integer rounds to the nearest double, as nlohmann's get<double>).
  double as_double() const;
  long long as_integer() const { return integer_; }             // Kind::integer only
  unsigned long long as_unsigned() const { return unsigned_; }  // Kind::unsigned_integer only
  const std::string& as_string() const { return string_; }
  const Array& items() const { return array_; }
  Array& items() { return array_; }
  const Object& members() const { return object_; }
  std::size_t size() const { return kind_ == Kind::array ? array_.size() : kind_ == Kind::object ? object_.size() : 0; }
  const JsonValue& operator[](std::size_t i) const { return array_[i]; }
  // Object member (null when absent); the writer's builder.
  const JsonValue* find(const std::string& key) const;
  JsonValue& operator[](const std::string& key);
  void push_back(JsonValue v) { array_.push_back(std::move(v)); }

 private:
  Kind kind_ = Kind::null;
  bool boolean_ = false;
  long long integer_ = 0;
  unsigned long long unsigned_ = 0;
  double number_ = 0.0;
  std::string string_;
  Array array_;
  Object object_;
};

struct JsonLimits {
  std::size_t max_bytes = 64u << 20;        // the whole document
  int max_depth = 64;                       // arrays and objects inside one another
  std::size_t max_string_bytes = 1u << 16;  // one string or key, after unescaping
};

constexpr std::size_t kExcerptBytes = 32;

// Throws InputError "<what> is not valid JSON: <reason> at line L, column C near "<excerpt>""
// (or "<what> is larger than N bytes" / "nested deeper than N levels" / "a string longer than N bytes";
// a reason is also a string that is not well-formed UTF-8). An object that repeats a key is refused:
// "<what> has the key "k" twice (the second at line L, column C)".
JsonValue parse_json(std::string_view text, const std::string& what, const JsonLimits& limits = {});

// Compact JSON text; the bytes nlohmann::json::dump(-1) gives for the same value.
std::string dump_json(const JsonValue& value);

// The same bytes written as a stream, without building a JsonValue (for a writer that must stay
// small in WASM, formats/feature_recovery_results.cpp). An object's keys must come in
// nlohmann's (std::map's) sorted order; key() checks that. KeyOrder::as_written drops the check,
// for documents whose layout was fixed in a reading order (nlohmann's ordered_json, as the
// `headlab model` documents of formats/transformer_json.hpp were first written).
enum class KeyOrder { sorted, as_written };

class JsonWriter {
 public:
  explicit JsonWriter(KeyOrder order = KeyOrder::sorted) : order_(order) {}
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(const char* name);
  JsonWriter& value(double x);
  JsonWriter& value(long long x);
  JsonWriter& value(unsigned long long x);
  JsonWriter& value(int x) { return value(static_cast<long long>(x)); }
  JsonWriter& value(long x) { return value(static_cast<long long>(x)); }
  JsonWriter& value(unsigned long x) { return value(static_cast<unsigned long long>(x)); }
  JsonWriter& value(bool b);
  JsonWriter& value(std::nullptr_t);  // an explicit null: a value undefined by nature, documented by its format
  JsonWriter& value(const char* s);
  JsonWriter& value(const std::string& s) { return value(s.c_str()); }
  JsonWriter& numbers(const double* x, std::size_t n);  // an array of numbers
  JsonWriter& matrix(const Matrix& m);                  // an array of rows
  std::string& text() { return out_; }

 private:
  void separate();
  KeyOrder order_;
  std::string out_;
  std::vector<std::string> last_key_;  // per open object: the last key written
  std::vector<bool> first_;            // per open container: nothing written yet
  bool after_key_ = false;
};

// About kExcerptBytes characters of text from `offset` (non-printable bytes as \xNN, "…" when
// cut): safe to put in a message.
std::string excerpt(std::string_view text, std::size_t offset = 0);

// --- reading helpers; every message names the field ---
// Member `name` of `object`; throws InputError "missing field \"name\"".
const JsonValue& field(const JsonValue& object, const std::string& name);
// A rectangular, finite matrix from an array of rows; throws InputError naming `name`
// (ragged rows, a non-number, a non-finite entry).
Matrix matrix_from_json(const JsonValue& value, const std::string& name);
// An array of rows. A non-finite entry makes dump_json throw, unless masked_as_null: then −inf
// (a causal mask's score, undefined by nature) is an explicit null; NaN and +inf still throw.
JsonValue matrix_to_json(const Matrix& m, bool masked_as_null = false);

}  // namespace headlab::formats
