#include "formats/json.hpp"

#include "core/check.hpp"

// nlohmann's shortest round-trip double formatting (Grisu2) alone, header-only: the writer
// needs its exact bytes, not the rest of the library.
#include <nlohmann/detail/conversions/to_chars.hpp>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace headlab::formats {

namespace {
constexpr char kHexDigits[] = "0123456789abcdef";
}  // namespace

double JsonValue::as_double() const {
  switch (kind_) {
    case Kind::integer: return static_cast<double>(integer_);
    case Kind::unsigned_integer: return static_cast<double>(unsigned_);
    case Kind::number: return number_;
    default: return std::nan("");
  }
}

const JsonValue* JsonValue::find(const std::string& key) const {
  if (kind_ != Kind::object) return nullptr;
  const auto it = object_.find(key);
  return it == object_.end() ? nullptr : &it->second;
}

JsonValue& JsonValue::operator[](const std::string& key) {
  if (kind_ == Kind::null) kind_ = Kind::object;
  return object_[key];
}

std::string excerpt(std::string_view text, std::size_t offset) {
  std::string out;
  const std::size_t end = std::min(text.size(), offset + kExcerptBytes);
  std::size_t i = std::min(offset, text.size());
  for (; i < end && out.size() < kExcerptBytes; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHexDigits[c >> 4];
      out += kHexDigits[c & 15];
    }
  }
  if (i < text.size()) out += "…";
  return out;
}

namespace {

// Recursive descent over RFC 8259 JSON; depth is counted and bounded before each descent.
class Parser {
 public:
  Parser(std::string_view text, const std::string& what, const JsonLimits& limits)
      : text_(text), what_(what), limits_(limits) {}

  JsonValue document() {
    if (text_.size() >= 3 && text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // UTF-8 byte-order mark
    skip_space();
    JsonValue v = value(0);
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the value; expected the end of input");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& reason) const { fail_at(reason, pos_); }
  [[noreturn]] void fail_at(const std::string& reason, std::size_t at) const {
    throw InputError(what_ + " is not valid JSON: " + reason + " at " + position(at) +
                     (at < text_.size() ? " near \"" + excerpt(text_, at) + "\"" : ""));
  }

  // "line L, column C" of byte `at` (columns count bytes).
  std::string position(std::size_t at) const {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < at && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
  }

  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  JsonValue value(int depth) {
    if (pos_ >= text_.size()) fail("unexpected end of input; expected a value");
    switch (text_[pos_]) {
      case '{': return object(depth + 1);
      case '[': return array(depth + 1);
      case '"': return JsonValue(string());
      case 't': literal("true"); return JsonValue(true);
      case 'f': literal("false"); return JsonValue(false);
      case 'n': literal("null"); return JsonValue(nullptr);
      default: return number();
    }
  }

  void enter(int depth) const {
    if (depth > limits_.max_depth) {
      fail("values nested deeper than " + std::to_string(limits_.max_depth) + " levels");
    }
  }

  // The members of an object or the elements of an array: `element` reads one, then a ',' or
  // the closing bracket follows.
  template <class Element>
  void sequence(char close, const char* in, Element&& element) {
    ++pos_;  // { or [
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == close) {
      ++pos_;
      return;
    }
    for (;;) {
      skip_space();
      element();
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
      } else if (pos_ < text_.size() && text_[pos_] == close) {
        ++pos_;
        return;
      } else {
        fail(std::string("expected ',' or '") + close + "' in " + in);
      }
    }
  }

  JsonValue object(int depth) {
    enter(depth);
    JsonValue out = JsonValue::object();
    sequence('}', "an object", [&] {
      if (pos_ >= text_.size() || text_[pos_] != '"') fail("expected a member name in double quotes");
      const std::size_t key_at = pos_;
      std::string key = string();
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != ':') fail("expected ':' after a member name");
      ++pos_;
      skip_space();
      // A repeated name would leave the reader one of two values without saying which (nlohmann
      // kept the last): no headlab file holds one, so it is refused, naming the key.
      if (out.find(key) != nullptr) {
        throw InputError(what_ + " has the key \"" + excerpt(key) + "\" twice (the second at " + position(key_at) +
                         ")");
      }
      out[key] = value(depth);
    });
    return out;
  }

  JsonValue array(int depth) {
    enter(depth);
    JsonValue out = JsonValue::array();
    sequence(']', "an array", [&] { out.push_back(value(depth)); });
    return out;
  }

  void literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) fail("invalid literal; expected a value");
    pos_ += word.size();
  }

  unsigned hex4() {
    if (pos_ + 4 > text_.size()) fail("unexpected end of input in a \\u escape");
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[pos_++];
      code <<= 4;
      if (c >= '0' && c <= '9') code |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') code |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') code |= static_cast<unsigned>(c - 'A' + 10);
      else fail("a \\u escape needs four hexadecimal digits");
    }
    return code;
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  // One multi-byte UTF-8 character whose lead byte `lead` was just read (RFC 8259 §8.1: JSON text
  // is UTF-8). Refused, as Unicode's table 3-7 of well-formed sequences says: a stray continuation
  // byte, a lead byte C0, C1 or F5–FF, a missing continuation byte, an overlong form (E0 followed
  // by 80–9F, F0 by 80–8F), a surrogate (ED followed by A0–BF) or a code point past U+10FFFF
  // (F4 followed by 90–BF). Two readers of the same bytes then see the same characters.
  void utf8_sequence(unsigned char lead, std::string& out) {
    const std::size_t at = pos_ - 1;
    int more = 0;
    unsigned char low = 0x80, high = 0xBF;  // the range of the first continuation byte
    if (lead >= 0xC2 && lead <= 0xDF) {
      more = 1;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      more = 2;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      more = 3;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      fail_at("invalid UTF-8 in a string (byte 0x" + hex_byte(lead) + " cannot start a character)", at);
    }
    out += static_cast<char>(lead);
    for (int k = 0; k < more; ++k) {
      const auto c = pos_ < text_.size() ? static_cast<unsigned char>(text_[pos_]) : 0;
      if (pos_ >= text_.size() || c < (k == 0 ? low : 0x80) || c > (k == 0 ? high : 0xBF)) {
        fail_at("invalid UTF-8 in a string (an overlong, surrogate, out-of-range or cut sequence after byte 0x" +
                    hex_byte(lead) + ")",
                at);
      }
      out += static_cast<char>(c);
      ++pos_;
    }
  }

  static std::string hex_byte(unsigned char c) { return {kHexDigits[c >> 4], kHexDigits[c & 15]}; }

  std::string string() {
    const std::size_t start = pos_;
    ++pos_;  // "
    std::string out;
    for (;;) {
      if (out.size() > limits_.max_string_bytes) {
        fail_at("a string longer than " + std::to_string(limits_.max_string_bytes) + " bytes", start);
      }
      if (pos_ >= text_.size()) fail_at("unexpected end of input in a string", start);
      const auto c = static_cast<unsigned char>(text_[pos_++]);
      if (c == '"') return out;
      if (c < 0x20) fail("a control character must be escaped inside a string");
      if (c >= 0x80) {
        utf8_sequence(c, out);
        continue;
      }
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (pos_ >= text_.size()) fail_at("unexpected end of input in a string", start);
      switch (text_[pos_++]) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned code = hex4();
          if (code >= 0xD800 && code <= 0xDBFF) {  // a surrogate pair
            if (text_.substr(pos_, 2) != "\\u") fail("a high surrogate must be followed by a low one");
            pos_ += 2;
            const unsigned low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail("a high surrogate must be followed by a low one");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          } else if (code >= 0xDC00 && code <= 0xDFFF) {
            fail("a low surrogate without a high one");
          }
          append_utf8(out, code);
          break;
        }
        default: fail("invalid escape in a string");
      }
    }
  }

  JsonValue number() {
    const std::size_t start = pos_;
    auto digits = [&] {
      const std::size_t from = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    bool negative = false, integral = true;
    if (pos_ < text_.size() && text_[pos_] == '-') {
      negative = true;
      ++pos_;
    }
    if (pos_ < text_.size() && text_[pos_] == '0') {
      ++pos_;
    } else if (digits() == 0) {
      fail_at("invalid literal; expected a value", start);
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      integral = false;
      if (digits() == 0) fail("expected a digit after the decimal point");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      integral = false;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (digits() == 0) fail("expected a digit in the exponent");
    }
    const std::string token(text_.substr(start, pos_ - start));
    if (integral) {  // integers as nlohmann keeps them: signed, unsigned, or a double when too long
      errno = 0;
      char* end = nullptr;
      if (negative) {
        const long long x = std::strtoll(token.c_str(), &end, 10);
        if (errno == 0) return JsonValue(x);
      } else {
        const unsigned long long x = std::strtoull(token.c_str(), &end, 10);
        if (errno == 0) return JsonValue(x);
      }
    }
    const double x = std::strtod(token.c_str(), nullptr);
    if (!std::isfinite(x)) fail_at("number overflow parsing '" + excerpt(token) + "'", start);
    return JsonValue(x);
  }

  std::string_view text_;
  const std::string& what_;
  JsonLimits limits_;
  std::size_t pos_ = 0;
};

void dump_string(const std::string& s, std::string& out) {
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHexDigits[c >> 4];
          out += kHexDigits[c & 15];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

// A non-finite number refused by the writer; `where` is the path of keys to it, filled in on
// the way out of the containers ("results.query_r2[1]"), so the message names the field.
class NonFiniteNumber : public InputError {
 public:
  NonFiniteNumber(double x, std::string where) : InputError(message(x, where)), value(x), where(std::move(where)) {}
  static std::string message(double x, const std::string& where) {
    return "cannot write " +
           std::string(std::isnan(x) ? "NaN"
                       : x > 0       ? "+Infinity"
                                     : "-Infinity") +
           " as a JSON number" + (where.empty() ? std::string() : " (field \"" + where + "\")") +
           ": the value is undefined or overflowed; a file holds finite numbers only";
  }
  double value;
  std::string where;
};

// A writer's result holds finite numbers only: JSON has no NaN or Infinity, and writing them as
// null (nlohmann's choice) let files carry a silent null where a number belongs. A value that is
// undefined by nature is written as an explicit null by its format (JsonValue(nullptr)).
void dump_number(double x, std::string& out) {
  if (!std::isfinite(x)) throw NonFiniteNumber(x, "");
  std::array<char, 64> buffer{};
  const char* end = nlohmann::detail::to_chars(buffer.data(), buffer.data() + buffer.size(), x);
  out.append(buffer.data(), static_cast<std::size_t>(end - buffer.data()));
}

void dump(const JsonValue& v, std::string& out) {
  switch (v.kind()) {
    case JsonValue::Kind::null: out += "null"; return;
    case JsonValue::Kind::boolean: out += v.as_bool() ? "true" : "false"; return;
    case JsonValue::Kind::integer:
    case JsonValue::Kind::unsigned_integer:
      out += v.kind() == JsonValue::Kind::integer ? std::to_string(v.as_integer()) : std::to_string(v.as_unsigned());
      return;
    case JsonValue::Kind::number: dump_number(v.as_double(), out); return;
    case JsonValue::Kind::string: dump_string(v.as_string(), out); return;
    case JsonValue::Kind::array: {
      out += '[';
      bool first = true;
      std::size_t i = 0;
      for (const auto& x : v.items()) {
        if (!first) out += ',';
        first = false;
        try {
          dump(x, out);
        } catch (const NonFiniteNumber& e) {
          throw NonFiniteNumber(e.value, "[" + std::to_string(i) + "]" + e.where);
        }
        ++i;
      }
      out += ']';
      return;
    }
    case JsonValue::Kind::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, x] : v.members()) {
        if (!first) out += ',';
        first = false;
        dump_string(key, out);
        out += ':';
        try {
          dump(x, out);
        } catch (const NonFiniteNumber& e) {
          throw NonFiniteNumber(e.value, key + (e.where.empty() || e.where[0] == '[' ? "" : ".") + e.where);
        }
      }
      out += '}';
      return;
    }
  }
}

}  // namespace

JsonValue parse_json(std::string_view text, const std::string& what, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes) {
    throw InputError(what + " is larger than " + std::to_string(limits.max_bytes) + " bytes (" +
                     std::to_string(text.size()) + " bytes)");
  }
  return Parser(text, what, limits).document();
}

std::string dump_json(const JsonValue& value) {
  std::string out;
  dump(value, out);
  return out;
}

const JsonValue& field(const JsonValue& object, const std::string& name) {
  const JsonValue* v = object.find(name);
  if (v == nullptr) throw InputError("missing field \"" + name + "\"");
  return *v;
}

Matrix matrix_from_json(const JsonValue& value, const std::string& name) {
  if (!value.is_array()) throw InputError(name + " must be an array of rows");
  const auto rows = static_cast<Eigen::Index>(value.size());
  if (rows == 0) throw InputError(name + " is empty (0 rows); it needs at least one row and one column");
  if (!value[0].is_array()) throw InputError(name + "[0] must be an array of numbers");
  const auto cols = static_cast<Eigen::Index>(value[0].size());
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const JsonValue& row = value[static_cast<std::size_t>(i)];
    if (!row.is_array() || static_cast<Eigen::Index>(row.size()) != cols) {
      throw InputError(name + " row " + std::to_string(i) + " must have " + std::to_string(cols) +
                       " numbers like row 0 (rows must be equal in length)");
    }
    for (Eigen::Index j = 0; j < cols; ++j) {
      const JsonValue& entry = row[static_cast<std::size_t>(j)];
      if (!entry.is_number()) {
        throw InputError(name + "[" + std::to_string(i) + "][" + std::to_string(j) + "] is not a number");
      }
      m(i, j) = entry.as_double();
    }
  }
  require_usable(name.c_str(), m);
  return m;
}

JsonValue matrix_to_json(const Matrix& m, bool masked_as_null) {
  JsonValue rows = JsonValue::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    JsonValue row = JsonValue::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      const double x = m(i, j);
      if (masked_as_null && std::isinf(x) && x < 0) row.push_back(JsonValue(nullptr));
      else row.push_back(x);  // non-finite: dump_json refuses it
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::begin_object() {
  separate();
  out_ += '{';
  first_.push_back(true);
  last_key_.emplace_back();
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  out_ += '}';
  first_.pop_back();
  last_key_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  separate();
  out_ += '[';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  out_ += ']';
  first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::key(const char* name) {
  // nlohmann keeps members in a std::map: a writer that streams must give them in that order.
  if (order_ == KeyOrder::sorted && !last_key_.back().empty() && !(last_key_.back() < name)) {
    throw std::logic_error(std::string("JsonWriter: key \"") + name + "\" is out of sorted order");
  }
  last_key_.back() = name;
  separate();
  dump_string(name, out_);
  out_ += ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(double x) {
  if (!std::isfinite(x)) {
    std::string where;
    for (const auto& k : last_key_) where += (where.empty() ? "" : ".") + k;
    throw NonFiniteNumber(x, where);
  }
  separate();
  dump_number(x, out_);
  return *this;
}

JsonWriter& JsonWriter::value(long long x) {
  separate();
  out_ += std::to_string(x);
  return *this;
}

JsonWriter& JsonWriter::value(unsigned long long x) {
  separate();
  out_ += std::to_string(x);
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  separate();
  out_ += b ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::value(std::nullptr_t) {
  separate();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::value(const char* s) {
  separate();
  dump_string(s, out_);
  return *this;
}

JsonWriter& JsonWriter::numbers(const double* x, std::size_t n) {
  begin_array();
  for (std::size_t i = 0; i < n; ++i) value(x[i]);
  return end_array();
}

JsonWriter& JsonWriter::matrix(const Matrix& m) {
  begin_array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) numbers(m.data() + i * m.cols(), static_cast<std::size_t>(m.cols()));
  return end_array();
}

}  // namespace headlab::formats
