#include "formats/torch_checkpoint.hpp"

#include "core/check.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

namespace headlab::formats {

namespace {

[[noreturn]] void fail(const std::string& message) { throw InputError("torch checkpoint: " + message); }

// At most 40 characters of untrusted text, for messages.
std::string short_text(const std::string& s) {
  std::string out;
  for (char ch : s.substr(0, 40)) out += (ch >= 32 && ch < 127) ? ch : '?';
  if (s.size() > 40) out += "…";
  return out;
}

std::uint64_t le(const std::uint8_t* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// ---- ZIP (PKWARE APPNOTE 6.3: end of central directory, ZIP64 locator, central and local headers)

// CRC-32 (reflected, polynomial 0xEDB88320), eight bytes per step ("slicing by 8"): table[k][b] is
// the CRC of byte b followed by k zero bytes, so the eight bytes' contributions combine by XOR — the
// byte-at-a-time loop's value (it finishes the tail), about 4× faster on a 334 MB checkpoint.
std::uint32_t crc32(const std::uint8_t* p, std::size_t n) {
  static const std::array<std::array<std::uint32_t, 256>, 8> table = [] {
    std::array<std::array<std::uint32_t, 256>, 8> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[0][i] = c;
    }
    for (std::uint32_t i = 0; i < 256; ++i)
      for (int k = 1; k < 8; ++k) t[k][i] = t[0][t[k - 1][i] & 0xFF] ^ (t[k - 1][i] >> 8);
    return t;
  }();
  std::uint32_t c = 0xFFFFFFFFu;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const std::uint32_t lo =
        c ^ (static_cast<std::uint32_t>(p[i]) | (static_cast<std::uint32_t>(p[i + 1]) << 8) |
             (static_cast<std::uint32_t>(p[i + 2]) << 16) | (static_cast<std::uint32_t>(p[i + 3]) << 24));
    c = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^ table[4][lo >> 24] ^
        table[3][p[i + 4]] ^ table[2][p[i + 5]] ^ table[1][p[i + 6]] ^ table[0][p[i + 7]];
  }
  for (; i < n; ++i) c = table[0][(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

struct Entry {
  std::uint64_t begin = 0, size = 0;  // the stored bytes
};

std::map<std::string, Entry> read_zip(const std::uint8_t* data, std::size_t size, const TorchCheckpointLimits& limits) {
  const std::string truncated =
      "no ZIP end-of-central-directory record: the file is not a ZIP archive (torch.save writes one) or it is truncated";
  if (size < 22) fail(truncated);
  // The record (22 bytes plus a comment of up to 65535) ends the file.
  std::size_t eocd = size;
  for (std::size_t pos = size - 22;; --pos) {
    if (le(data + pos, 4) == 0x06054b50 && pos + 22 + le(data + pos + 20, 2) == size) {
      eocd = pos;
      break;
    }
    if (pos == 0 || size - 22 - pos >= 65535) break;
  }
  if (eocd == size) fail(truncated);
  std::uint64_t entries = le(data + eocd + 10, 2), cd_size = le(data + eocd + 12, 4),
                cd_offset = le(data + eocd + 16, 4);
  std::uint64_t cd_limit = eocd;  // the central directory ends before this
  if (entries == 0xFFFF || cd_size == 0xFFFFFFFF || cd_offset == 0xFFFFFFFF) {
    // ZIP64: a locator (20 bytes) just before the record points at the ZIP64 record (56 bytes).
    if (eocd < 20 || le(data + eocd - 20, 4) != 0x07064b50)
      fail("the ZIP64 end-of-central-directory locator is missing");
    const std::uint64_t z = le(data + eocd - 20 + 8, 8);
    if (z > eocd - 20 || eocd - 20 - z < 56 || le(data + z, 4) != 0x06064b50)
      fail("the ZIP64 end-of-central-directory record is missing or out of the file");
    entries = le(data + z + 32, 8);
    cd_size = le(data + z + 40, 8);
    cd_offset = le(data + z + 48, 8);
    cd_limit = z;
  }
  if (cd_offset > cd_limit || cd_size > cd_limit - cd_offset)
    fail("the ZIP central directory lies outside the file (it is truncated)");
  if (entries > limits.max_zip_entries) {
    fail("the archive has " + std::to_string(entries) + " entries; the limit is " +
         std::to_string(limits.max_zip_entries));
  }
  std::map<std::string, Entry> out;
  std::uint64_t at = cd_offset;
  const std::uint64_t cd_end = cd_offset + cd_size;
  for (std::uint64_t i = 0; i < entries; ++i) {
    if (cd_end - at < 46 || le(data + at, 4) != 0x02014b50)
      fail("ZIP central directory entry " + std::to_string(i) + " is malformed or truncated");
    const std::uint64_t flags = le(data + at + 8, 2), method = le(data + at + 10, 2);
    const std::uint32_t crc = static_cast<std::uint32_t>(le(data + at + 16, 4));
    std::uint64_t csize = le(data + at + 20, 4), usize = le(data + at + 24, 4), local = le(data + at + 42, 4);
    const std::uint64_t name_len = le(data + at + 28, 2), extra_len = le(data + at + 30, 2),
                        comment_len = le(data + at + 32, 2);
    if (cd_end - at - 46 < name_len + extra_len + comment_len)
      fail("ZIP central directory entry " + std::to_string(i) + " is truncated");
    const std::string name(reinterpret_cast<const char*>(data + at + 46), name_len);
    // ZIP64 extended information (header 0x0001): the 64-bit sizes and offset, in this order, of
    // the fields whose 32-bit value is 0xFFFFFFFF.
    const std::uint8_t* extra = data + at + 46 + name_len;
    for (std::uint64_t e = 0; e + 4 <= extra_len;) {
      const std::uint64_t id = le(extra + e, 2), len = le(extra + e + 2, 2);
      if (e + 4 + len > extra_len) break;
      if (id == 0x0001) {
        std::uint64_t f = e + 4;
        for (std::uint64_t* field : {&usize, &csize, &local}) {
          if (*field != 0xFFFFFFFF) continue;
          if (f + 8 > e + 4 + len) fail("entry " + short_text(name) + ": its ZIP64 sizes are truncated");
          *field = le(extra + f, 8);
          f += 8;
        }
      }
      e += 4 + len;
    }
    if (flags & 1) fail("entry " + short_text(name) + " is encrypted");
    if (method != 0) {
      fail("entry " + short_text(name) + " is compressed (ZIP method " + std::to_string(method) +
           "); torch.save stores entries uncompressed, and only stored entries are read");
    }
    if (csize != usize)
      fail("entry " + short_text(name) + " is stored with " + std::to_string(csize) + " bytes but says it has " +
           std::to_string(usize));
    if (local > cd_offset || cd_offset - local < 30 || le(data + local, 4) != 0x04034b50)
      fail("entry " + short_text(name) + ": its local header is missing or out of the file");
    const std::uint64_t lname = le(data + local + 26, 2), lextra = le(data + local + 28, 2);
    if (cd_offset - local - 30 < lname + lextra || lname != name_len ||
        std::memcmp(data + local + 30, name.data(), name_len) != 0) {
      fail("entry " + short_text(name) + ": its local header does not match the central directory");
    }
    const std::uint64_t begin = local + 30 + lname + lextra;
    if (usize > cd_offset - begin)
      fail("entry " + short_text(name) + " (" + std::to_string(usize) +
           " bytes) runs past the end of the stored data: the file is truncated");
    if (crc32(data + begin, usize) != crc)
      fail("entry " + short_text(name) + ": its CRC-32 does not match its bytes (the file is damaged)");
    if (!out.emplace(name, Entry{begin, usize}).second)
      fail("entry " + short_text(name) + " appears twice in the archive");
    at += 46 + name_len + extra_len + comment_len;
  }
  return out;
}

// ---- values of the restricted unpickler

enum class Kind { None, Bool, Int, Float, String, Tuple, List, Dict, Global, Storage, Tensor };

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::None: return "None";
    case Kind::Bool: return "a boolean";
    case Kind::Int: return "an integer";
    case Kind::Float: return "a float";
    case Kind::String: return "a string";
    case Kind::Tuple: return "a tuple";
    case Kind::List: return "a list";
    case Kind::Dict: return "a dict";
    case Kind::Global: return "a class or function";
    case Kind::Storage: return "a storage";
    default: return "a tensor";
  }
}

struct Value;
using Ref = std::shared_ptr<Value>;

struct Value {
  Kind kind = Kind::None;
  std::int64_t i = 0;                      // Bool, Int; Storage: numel; Tensor: storage offset
  double f = 0;                            // Float
  std::string s;                           // String; Global: "module.name"; Storage: key
  std::string type;                        // Storage: its class ("FloatStorage")
  std::vector<Ref> items;                  // Tuple, List; Dict: key, value, key, value…; Tensor: its storage
  std::vector<std::int64_t> size, stride;  // Tensor
  std::size_t depth = 1;                   // 1 + the deepest value inside
  bool inside = false;                     // held by a container: never changed again
};

// The classes and functions a state_dict names; nothing else may be named by GLOBAL.
const std::set<std::string>& storage_classes() {
  static const std::set<std::string> s{"FloatStorage", "DoubleStorage", "HalfStorage",         "BFloat16Storage",
                                       "BoolStorage",  "LongStorage",   "IntStorage",          "ShortStorage",
                                       "CharStorage",  "ByteStorage",   "ComplexFloatStorage", "ComplexDoubleStorage"};
  return s;
}

bool allowed_global(const std::string& module, const std::string& name) {
  if (module == "collections") return name == "OrderedDict";
  if (module == "torch._utils") return name == "_rebuild_tensor_v2" || name == "_rebuild_parameter";
  if (module == "torch") return storage_classes().count(name) > 0;
  return false;
}

const char* opcode_name(std::uint8_t op) {
  switch (op) {
    case '(': return "MARK";
    case '.': return "STOP";
    case '0': return "POP";
    case '1': return "POP_MARK";
    case '2': return "DUP";
    case 'F': return "FLOAT";
    case 'I': return "INT";
    case 'J': return "BININT";
    case 'K': return "BININT1";
    case 'L': return "LONG";
    case 'M': return "BININT2";
    case 'N': return "NONE";
    case 'P': return "PERSID";
    case 'Q': return "BINPERSID";
    case 'R': return "REDUCE";
    case 'S': return "STRING";
    case 'T': return "BINSTRING";
    case 'U': return "SHORT_BINSTRING";
    case 'V': return "UNICODE";
    case 'X': return "BINUNICODE";
    case 'a': return "APPEND";
    case 'b': return "BUILD";
    case 'c': return "GLOBAL";
    case 'd': return "DICT";
    case '}': return "EMPTY_DICT";
    case 'e': return "APPENDS";
    case 'g': return "GET";
    case 'h': return "BINGET";
    case 'i': return "INST";
    case 'j': return "LONG_BINGET";
    case 'l': return "LIST";
    case ']': return "EMPTY_LIST";
    case 'o': return "OBJ";
    case 'p': return "PUT";
    case 'q': return "BINPUT";
    case 'r': return "LONG_BINPUT";
    case 's': return "SETITEM";
    case 't': return "TUPLE";
    case ')': return "EMPTY_TUPLE";
    case 'u': return "SETITEMS";
    case 'G': return "BINFLOAT";
    case 0x80: return "PROTO";
    case 0x81: return "NEWOBJ";
    case 0x82: return "EXT1";
    case 0x83: return "EXT2";
    case 0x84: return "EXT4";
    case 0x85: return "TUPLE1";
    case 0x86: return "TUPLE2";
    case 0x87: return "TUPLE3";
    case 0x88: return "NEWTRUE";
    case 0x89: return "NEWFALSE";
    case 0x8a: return "LONG1";
    case 0x8b: return "LONG4";
    case 'B': return "BINBYTES";
    case 'C': return "SHORT_BINBYTES";
    case 0x8c: return "SHORT_BINUNICODE";
    case 0x8d: return "BINUNICODE8";
    case 0x8e: return "BINBYTES8";
    case 0x8f: return "EMPTY_SET";
    case 0x90: return "ADDITEMS";
    case 0x91: return "FROZENSET";
    case 0x92: return "NEWOBJ_EX";
    case 0x93: return "STACK_GLOBAL";
    case 0x94: return "MEMOIZE";
    case 0x95: return "FRAME";
    case 0x96: return "BYTEARRAY8";
    case 0x97: return "NEXT_BUFFER";
    case 0x98: return "READONLY_BUFFER";
    default: return "unknown";
  }
}

std::string hex_byte(std::uint8_t b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", b);
  return buf;
}

// The pickle machine (Python's Lib/pickle.py, protocol 2 plus the protocol-4 forms of strings,
// globals and the memo), over data.pkl's bytes.
class Unpickler {
 public:
  Unpickler(const std::uint8_t* p, std::size_t n, const TorchCheckpointLimits& limits)
      : p_(p), n_(n), limits_(limits) {}

  Ref run() {
    while (true) {
      if (pos_ >= n_) fail("data.pkl: it ends at byte " + std::to_string(n_) + " without STOP (it is truncated)");
      op_at_ = pos_;
      const std::uint8_t op = p_[pos_++];
      switch (op) {
        case 0x80: {  // PROTO
          const std::uint8_t v = byte();
          if (v < 2 || v > 5) error("pickle protocol " + std::to_string(v) + " is not read (torch.save writes 2)");
          break;
        }
        case 0x95: take(8); break;  // FRAME: a length only
        case '(':
          if (marks_.size() >= limits_.max_nesting)
            error("opens more than " + std::to_string(limits_.max_nesting) + " MARKs; that is the nesting limit");
          marks_.push_back(stack_.size());
          break;
        case '.': {
          if (stack_.size() != 1 || !marks_.empty())
            error("STOP leaves " + std::to_string(stack_.size()) + " values and " + std::to_string(marks_.size()) +
                  " MARKs (one value, no MARK, expected)");
          return stack_.back();
        }
        case 'N': push(make(Kind::None)); break;
        case 0x88:
        case 0x89: {
          auto v = make(Kind::Bool);
          v->i = op == 0x88;
          push(v);
          break;
        }
        case 'K': push_int(byte()); break;
        case 'M': push_int(static_cast<std::int64_t>(le(take(2), 2))); break;
        case 'J': push_int(static_cast<std::int32_t>(static_cast<std::uint32_t>(le(take(4), 4)))); break;
        case 0x8a: {  // LONG1: n bytes, two's complement, little-endian
          const std::uint8_t len = byte();
          if (len > 8) error("an integer of " + std::to_string(len) + " bytes is beyond 64 bits");
          const std::uint8_t* b = take(len);
          std::uint64_t u = len ? le(b, len) : 0;
          if (len > 0 && len < 8 && (b[len - 1] & 0x80)) u |= ~std::uint64_t{0} << (8 * len);
          std::int64_t v;
          std::memcpy(&v, &u, 8);
          push_int(v);
          break;
        }
        case 'G': {  // BINFLOAT: big-endian IEEE double
          const std::uint8_t* b = take(8);
          std::uint64_t u = 0;
          for (int k = 0; k < 8; ++k) u = (u << 8) | b[k];
          auto v = make(Kind::Float);
          std::memcpy(&v->f, &u, 8);
          push(v);
          break;
        }
        case 'X': push_string(le(take(4), 4)); break;
        case 0x8c: push_string(byte()); break;
        case ']': push(make(Kind::List)); break;
        case '}': push(make(Kind::Dict)); break;
        case ')': push(make(Kind::Tuple)); break;
        case 0x85:
        case 0x86:
        case 0x87: {
          const std::size_t k = op - 0x84u;
          if (stack_.size() < k + floor()) error("needs " + std::to_string(k) + " values on the stack");
          push(tuple_of(stack_.size() - k));
          break;
        }
        case 't': {
          const std::size_t m = pop_mark();
          push(tuple_of(m));
          break;
        }
        case 'a': {
          Ref item = pop();
          insert(top(Kind::List), {item});
          break;
        }
        case 'e': {
          const std::size_t m = pop_mark();
          std::vector<Ref> items(stack_.begin() + m, stack_.end());
          stack_.resize(m);
          insert(top(Kind::List), items);
          break;
        }
        case 's': {
          Ref value = pop(), key = pop();
          insert(top(Kind::Dict), {key, value});
          break;
        }
        case 'u': {
          const std::size_t m = pop_mark();
          if ((stack_.size() - m) % 2) error("has a key without a value");
          std::vector<Ref> items(stack_.begin() + m, stack_.end());
          stack_.resize(m);
          insert(top(Kind::Dict), items);
          break;
        }
        case 'q': put(byte()); break;
        case 'r': put(le(take(4), 4)); break;
        case 0x94: put(memo_.size()); break;
        case 'h': get(byte()); break;
        case 'j': get(le(take(4), 4)); break;
        case 'c': {
          const std::string module = line(), name = line();
          push_global(op, module, name);
          break;
        }
        case 0x93: {
          Ref name = pop(), module = pop();
          if (module->kind != Kind::String || name->kind != Kind::String) error("needs two strings");
          push_global(op, module->s, name->s);
          break;
        }
        case 'Q': {
          Ref pid = pop();
          push(storage(pid));
          break;
        }
        case 'R': {
          Ref args = pop(), callable = pop();
          push(reduce(callable, args));
          break;
        }
        case 'b': {
          // The state of an object: the OrderedDict's attributes (`_metadata`), which a state_dict
          // needs no more of. Dropped.
          pop();
          Ref target = top(Kind::Dict);
          if (target->inside) error("changes a dict that is already inside another value");
          break;
        }
        default:
          error_op(op, std::string("opcode ") + hex_byte(op) + " '" + opcode_name(op) + "' at byte " +
                           std::to_string(op_at_) + " is not allowed: only tensors, dicts and lists are read");
      }
    }
  }

 private:
  // Every value made counts against max_objects (a value is ~200 bytes: a 4 MiB data.pkl of
  // one-byte opcodes would otherwise make 2 million of them).
  Ref make(Kind k) {
    if (++objects_ > limits_.max_objects)
      error("makes more than " + std::to_string(limits_.max_objects) + " values; that is the limit");
    auto v = std::make_shared<Value>();
    v->kind = k;
    return v;
  }
  [[noreturn]] void error_op(std::uint8_t, const std::string& message) { fail("data.pkl: " + message); }
  [[noreturn]] void error(const std::string& message) {
    const std::uint8_t op = p_[op_at_];
    fail("data.pkl: opcode " + hex_byte(op) + " '" + opcode_name(op) + "' at byte " + std::to_string(op_at_) + " " +
         message);
  }

  std::uint8_t byte() { return *take(1); }
  const std::uint8_t* take(std::uint64_t k) {
    if (k > n_ - pos_) error("needs " + std::to_string(k) + " more bytes than data.pkl holds (it is truncated)");
    const std::uint8_t* b = p_ + pos_;
    pos_ += k;
    return b;
  }
  std::string line() {
    // GLOBAL's operands: "module\n" and "name\n", each at most 256 bytes.
    const std::size_t start = pos_;
    while (pos_ < n_ && p_[pos_] != '\n' && pos_ - start <= 256) ++pos_;
    if (pos_ >= n_ || p_[pos_] != '\n') error("has a name without its newline within 256 bytes");
    return std::string(reinterpret_cast<const char*>(p_ + start), pos_++ - start);
  }

  std::size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  void push(Ref v) {
    if (stack_.size() >= limits_.max_stack)
      error("would put more than " + std::to_string(limits_.max_stack) + " values on the stack; that is the limit");
    stack_.push_back(std::move(v));
  }
  void push_int(std::int64_t i) {
    auto v = make(Kind::Int);
    v->i = i;
    push(v);
  }
  void push_string(std::uint64_t len) {
    auto v = make(Kind::String);
    const std::uint8_t* b = take(len);
    v->s.assign(reinterpret_cast<const char*>(b), len);
    push(v);
  }
  Ref pop() {
    if (stack_.size() <= floor()) error("finds no value on the stack (above the last MARK)");
    Ref v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  Ref top(Kind k) {
    if (stack_.size() <= floor()) error("finds no value on the stack (above the last MARK)");
    if (stack_.back()->kind != k)
      error(std::string("needs ") + kind_name(k) + ", not " + kind_name(stack_.back()->kind));
    return stack_.back();
  }
  std::size_t pop_mark() {
    if (marks_.empty()) error("has no MARK to close");
    const std::size_t m = marks_.back();
    marks_.pop_back();
    return m;
  }
  // Puts `items` into `parent`: they are inside it from now on (never changed again), and the
  // parent is not inside anything (so no value ever contains itself).
  void insert(const Ref& parent, const std::vector<Ref>& items) {
    for (const Ref& item : items) item->inside = true;
    if (parent->inside)
      error(std::string("changes ") + kind_name(parent->kind) + " that is already inside another value");
    for (const Ref& item : items) {
      parent->depth = std::max(parent->depth, item->depth + 1);
      if (parent->depth > limits_.max_nesting)
        error("nests values more than " + std::to_string(limits_.max_nesting) + " deep; that is the limit");
      parent->items.push_back(item);
    }
  }
  Ref tuple_of(std::size_t from) {
    auto t = make(Kind::Tuple);
    std::vector<Ref> items(stack_.begin() + from, stack_.end());
    stack_.resize(from);
    insert(t, items);
    return t;
  }
  void put(std::uint64_t index) {
    if (stack_.size() <= floor()) error("finds no value on the stack to memoize");
    auto it = memo_.find(index);
    if (it == memo_.end() && memo_.size() >= limits_.max_memo)
      error("would hold more than " + std::to_string(limits_.max_memo) + " memo entries; that is the limit");
    memo_[index] = stack_.back();
  }
  void get(std::uint64_t index) {
    auto it = memo_.find(index);
    if (it == memo_.end()) error("reads memo entry " + std::to_string(index) + ", which was never stored");
    push(it->second);
  }
  void push_global(std::uint8_t op, const std::string& module, const std::string& name) {
    if (!allowed_global(module, name)) {
      error_op(op, std::string("opcode ") + hex_byte(op) + " '" + opcode_name(op) + " " +
                       short_text(module + "." + name) + "' at byte " + std::to_string(op_at_) +
                       " is not allowed: only tensors, dicts and lists are read");
    }
    auto g = make(Kind::Global);
    g->s = module + "." + name;
    push(g);
  }
  // BINPERSID's id of a storage: ('storage', torch.<Type>Storage, key, location, numel).
  Ref storage(const Ref& pid) {
    const auto& t = pid->items;
    if (pid->kind != Kind::Tuple || t.size() != 5 || t[0]->kind != Kind::String || t[0]->s != "storage" ||
        t[1]->kind != Kind::Global || t[1]->s.rfind("torch.", 0) != 0 || t[2]->kind != Kind::String ||
        t[3]->kind != Kind::String || t[4]->kind != Kind::Int) {
      error("needs the persistent id ('storage', torch.<Type>Storage, key, location, numel)");
    }
    if (t[4]->i < 0) error("gives a storage a negative size");
    auto s = make(Kind::Storage);
    s->type = t[1]->s.substr(6);
    if (!storage_classes().count(s->type)) error("names " + short_text(t[1]->s) + ", which is not a storage class");
    s->s = t[2]->s;
    s->i = t[4]->i;
    return s;
  }
  static bool int_tuple(const Ref& v) {
    if (v->kind != Kind::Tuple) return false;
    for (const auto& x : v->items)
      if (x->kind != Kind::Int) return false;
    return true;
  }
  Ref reduce(const Ref& callable, const Ref& args) {
    if (callable->kind != Kind::Global)
      error(std::string("calls ") + kind_name(callable->kind) + ": only the allowed classes and functions are called");
    if (args->kind != Kind::Tuple) error("needs a tuple of arguments");
    const auto& a = args->items;
    if (callable->s == "collections.OrderedDict") {
      if (!a.empty()) error("makes an OrderedDict from arguments; only an empty one is read");
      return make(Kind::Dict);
    }
    if (callable->s == "torch._utils._rebuild_tensor_v2") {
      // (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
      if ((a.size() != 6 && a.size() != 7) || a[0]->kind != Kind::Storage || a[1]->kind != Kind::Int ||
          !int_tuple(a[2]) || !int_tuple(a[3]) || a[2]->items.size() != a[3]->items.size() ||
          a[4]->kind != Kind::Bool) {
        error(
            "calls _rebuild_tensor_v2 without (storage, offset, size, stride, requires_grad, hooks): size and stride are tuples of one length");
      }
      auto t = make(Kind::Tensor);
      insert(t, {a[0]});
      t->i = a[1]->i;
      for (const auto& x : a[2]->items) t->size.push_back(x->i);
      for (const auto& x : a[3]->items) t->stride.push_back(x->i);
      return t;
    }
    if (callable->s == "torch._utils._rebuild_parameter") {
      // (data, requires_grad, backward_hooks): an nn.Parameter is its tensor here.
      if (a.size() != 3 || a[0]->kind != Kind::Tensor) error("calls _rebuild_parameter without a tensor");
      return a[0];
    }
    error("calls " + short_text(callable->s) +
          ", which is not called: only OrderedDict, _rebuild_tensor_v2 and _rebuild_parameter are");
  }

  const std::uint8_t* p_;
  std::size_t n_, pos_ = 0, op_at_ = 0, objects_ = 0;
  const TorchCheckpointLimits& limits_;
  std::vector<Ref> stack_;
  std::vector<std::size_t> marks_;
  std::unordered_map<std::uint64_t, Ref> memo_;
};

// ---- element types

struct ElementType {
  const char* torch_name;
  std::size_t bytes;
  DType dtype;
};

bool element_type(const std::string& storage_class, ElementType& out) {
  if (storage_class == "FloatStorage") out = {"float32", 4, DType::F32};
  else if (storage_class == "DoubleStorage") out = {"float64", 8, DType::F64};
  else if (storage_class == "HalfStorage") out = {"float16", 2, DType::F16};
  else if (storage_class == "BFloat16Storage") out = {"bfloat16", 2, DType::BF16};
  else if (storage_class == "BoolStorage") out = {"bool", 1, DType::BOOL};
  else return false;
  return true;
}

// IEEE binary16 → double, exactly: subnormals m · 2^−24, normals (1024 + m) · 2^(e − 25).
bool well_formed_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n;
    unsigned lo = 0x80, hi = 0xBF;
    if (c < 0x80) n = 0;
    else if (c >= 0xC2 && c <= 0xDF) n = 1;
    else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else return false;
    if (s.size() - i - 1 < n) return false;
    for (std::size_t k = 1; k <= n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if (d < (k == 1 ? lo : 0x80) || d > (k == 1 ? hi : 0xBF)) return false;
    }
    i += n + 1;
  }
  return true;
}

}  // namespace

bool looks_like_zip(const std::uint8_t* data, std::size_t size) { return size >= 4 && le(data, 4) == 0x04034b50; }

TorchCheckpointIndex index_torch_checkpoint(const std::uint8_t* data, std::size_t size,
                                            const TorchCheckpointLimits& limits) {
  if (size > limits.max_file_bytes)
    fail("the file has " + std::to_string(size) + " bytes; the limit is " + std::to_string(limits.max_file_bytes));
  const auto entries = read_zip(data, size, limits);

  // The archive's one top directory is the one holding data.pkl.
  std::string prefix;
  for (const auto& [name, entry] : entries) {
    const auto slash = name.find('/');
    if (slash != std::string::npos && name.compare(slash, std::string::npos, "/data.pkl") == 0) {
      if (!prefix.empty())
        fail("the archive holds two data.pkl entries (" + short_text(prefix) + " and " +
             short_text(name.substr(0, slash + 1)) + ")");
      prefix = name.substr(0, slash + 1);
    }
  }
  if (prefix.empty()) fail("the archive has no <archive>/data.pkl entry: it is not a torch.save file");
  if (auto it = entries.find(prefix + "byteorder"); it != entries.end()) {
    const std::string order(reinterpret_cast<const char*>(data + it->second.begin), it->second.size);
    if (order != "little")
      fail("byteorder is \"" + short_text(order) + "\"; only little-endian files (\"little\") are read");
  }
  const Entry pkl = entries.at(prefix + "data.pkl");
  if (pkl.size > limits.max_pickle_bytes) {
    fail("data.pkl has " + std::to_string(pkl.size) + " bytes; the limit is " +
         std::to_string(limits.max_pickle_bytes));
  }
  const Ref root = Unpickler(data + pkl.begin, pkl.size, limits).run();
  if (root->kind != Kind::Dict)
    fail(std::string("data.pkl holds ") + kind_name(root->kind) + ", not a state_dict (a dict of tensors)");

  const auto& items = root->items;
  if (items.size() / 2 > limits.max_tensors) {
    fail("the state_dict has " + std::to_string(items.size() / 2) + " entries; the limit is " +
         std::to_string(limits.max_tensors));
  }
  // Every bound first, then the values.
  struct Plan {
    const Value* tensor;
    ElementType type;
    Entry bytes;
    std::uint64_t count;
  };
  std::vector<std::pair<std::string, Plan>> plans;
  std::set<std::string> names;
  std::uint64_t total = 0;
  for (std::size_t k = 0; k < items.size(); k += 2) {
    if (items[k]->kind != Kind::String)
      fail(std::string("the state_dict's key ") + std::to_string(k / 2) + " is " + kind_name(items[k]->kind) +
           ", not a name");
    const std::string& name = items[k]->s;
    const std::string label = "tensor " + short_text(name);
    if (name.empty()) fail("the state_dict has an empty name");
    if (name.size() > limits.max_name_length) {
      fail(label + ": its name has " + std::to_string(name.size()) + " bytes; the limit is " +
           std::to_string(limits.max_name_length));
    }
    if (!well_formed_utf8(name)) fail(label + ": its name is not well-formed UTF-8");
    if (!names.insert(name).second) fail(label + " appears twice");
    const Value& t = *items[k + 1];
    if (t.kind != Kind::Tensor) {
      fail(
          "entry " + short_text(name) + " is " + kind_name(t.kind) +
          ", not a tensor: only a state_dict of tensors is read (save model.state_dict() itself, not a dict holding it)");
    }
    const Value& storage = *t.items[0];
    Plan plan{&t, {}, {}, 1};
    if (!element_type(storage.type, plan.type)) {
      fail(label + " is stored as torch." + storage.type + "; read are float32, float64, float16, bfloat16 and bool");
    }
    if (t.size.size() > limits.max_rank)
      fail(label + " has " + std::to_string(t.size.size()) + " dimensions; at most " + std::to_string(limits.max_rank));
    const auto it = entries.find(prefix + "data/" + storage.s);
    if (it == entries.end())
      fail(label + ": its storage " + short_text(storage.s) + " is not in the archive (" + short_text(prefix) +
           "data/…)");
    plan.bytes = it->second;
    const std::uint64_t numel = static_cast<std::uint64_t>(storage.i);
    if (numel > plan.bytes.size / plan.type.bytes || numel * plan.type.bytes != plan.bytes.size) {
      fail(label + ": its storage " + short_text(storage.s) + " has " + std::to_string(plan.bytes.size) +
           " bytes, not " + std::to_string(numel) + " elements of " + plan.type.torch_name);
    }
    // count = product(size) and the last element's index offset + Σ (size_i − 1) · stride_i,
    // each step checked against the storage (≤ 2^61 elements, so no sum or product overflows).
    if (t.i < 0) fail(label + " has a negative storage offset " + std::to_string(t.i));
    std::uint64_t last = static_cast<std::uint64_t>(t.i);
    const std::uint64_t cap = std::uint64_t{1} << 61;
    if (last >= numel && last > 0)
      fail(label + ": its storage offset " + std::to_string(last) + " is past its storage of " + std::to_string(numel) +
           " elements");
    for (std::size_t d = 0; d < t.size.size(); ++d) {
      if (t.size[d] < 0 || t.stride[d] < 0)
        fail(label + " has a negative size or stride in dimension " + std::to_string(d));
      const auto sz = static_cast<std::uint64_t>(t.size[d]), st = static_cast<std::uint64_t>(t.stride[d]);
      if (sz == 0) {
        plan.count = 0;
        continue;
      }
      if (sz > cap / std::max<std::uint64_t>(plan.count, 1) || (st > 0 && sz - 1 > (cap - last) / st)) {
        fail(label + " has a shape or stride beyond its storage of " + std::to_string(numel) + " elements");
      }
      plan.count *= sz;
      last += (sz - 1) * st;
    }
    if (plan.count > 0 && last >= numel) {
      fail(label + ": its elements reach index " + std::to_string(last) + " of a storage of " + std::to_string(numel) +
           " elements");
    }
    if (plan.count > limits.max_values - std::min<std::uint64_t>(total, limits.max_values)) {
      fail(label + ": the tensors hold more than " + std::to_string(limits.max_values) +
           " elements together; that is the limit");
    }
    total += plan.count;
    plans.emplace_back(name, plan);
  }
  std::sort(plans.begin(), plans.end(), [](const auto& a, const auto& b) { return a.first < b.first; });

  TorchCheckpointIndex out;
  out.buffer = data;
  for (const auto& [name, plan] : plans) {
    const Value& t = *plan.tensor;
    TorchTensorEntry e;
    e.name = name;
    e.dtype = plan.type.dtype;
    e.shape = t.size;
    e.stride = t.stride;
    e.offset = static_cast<std::uint64_t>(t.i);
    e.storage_begin = plan.bytes.begin;
    e.element_bytes = plan.type.bytes;
    e.count = plan.count;
    out.entries.push_back(std::move(e));
  }
  return out;
}

namespace {

// Each element of a tensor in row-major order (the last dimension fastest): at(n, pointer to its bytes).
template <class F>
void for_each_element(const TorchCheckpointIndex& index, const TorchTensorEntry& e, F&& at) {
  const std::uint8_t* base = index.buffer + e.storage_begin;
  const std::size_t rank = e.shape.size();
  std::vector<std::int64_t> position(rank, 0);
  std::uint64_t element = e.offset;  // element index in the storage
  for (std::uint64_t n = 0; n < e.count; ++n) {
    at(n, base + element * e.element_bytes);
    for (std::size_t d = rank; d-- > 0;) {
      if (++position[d] < e.shape[d]) {
        element += static_cast<std::uint64_t>(e.stride[d]);
        break;
      }
      element -= static_cast<std::uint64_t>(e.stride[d]) * static_cast<std::uint64_t>(e.shape[d] - 1);
      position[d] = 0;
    }
  }
}

}  // namespace

Tensor decode_torch_tensor(const TorchCheckpointIndex& index, const TorchTensorEntry& e) {
  Tensor tensor;
  tensor.name = e.name;
  tensor.dtype = e.dtype;
  tensor.shape = e.shape;
  tensor.values.resize(e.count);
  for_each_element(index, e, [&](std::uint64_t n, const std::uint8_t* b) {
    if (e.dtype == DType::BOOL && *b > 1)
      fail("tensor " + short_text(e.name) + ": bool element " + std::to_string(n) + " is the byte " +
           std::to_string(*b) + ", not 0 or 1");
    const double v = element_to_double(e.dtype, b);
    if (!std::isfinite(v) && tensor.first_non_finite < 0) tensor.first_non_finite = static_cast<std::int64_t>(n);
    tensor.values[n] = v;
  });
  return tensor;
}

std::int64_t decode_torch_tensor_float32(const TorchCheckpointIndex& index, const TorchTensorEntry& e, float* out) {
  if (e.dtype != DType::F32 && e.dtype != DType::F16 && e.dtype != DType::BF16)
    fail("tensor " + short_text(e.name) + ": only float32, float16 and bfloat16 tensors are held as float32");
  std::int64_t first_non_finite = -1;
  for_each_element(index, e, [&](std::uint64_t n, const std::uint8_t* b) {
    const float f = element_to_float(e.dtype, b);
    if (!std::isfinite(f) && first_non_finite < 0) first_non_finite = static_cast<std::int64_t>(n);
    out[n] = f;
  });
  return first_non_finite;
}

const float* torch_tensor_float32_view(const TorchCheckpointIndex& index, const TorchTensorEntry& e) {
  if (e.dtype != DType::F32) return nullptr;
  // Row-major and contiguous: stride d = Π size of the dimensions after d (a dimension of size 1
  // may have any stride).
  std::int64_t expected = 1;
  for (std::size_t d = e.shape.size(); d-- > 0;) {
    if (e.shape[d] != 1 && e.stride[d] != expected) return nullptr;
    expected *= e.shape[d];
  }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  const std::uint8_t* at = index.buffer + e.storage_begin + e.offset * 4;
  if (reinterpret_cast<std::uintptr_t>(at) % alignof(float) != 0) return nullptr;
  return reinterpret_cast<const float*>(at);
#else
  return nullptr;
#endif
}

SafetensorsFile without_values(const TorchCheckpointIndex& index) {
  SafetensorsFile file;
  file.tensors = tensors_without_values(index.entries);
  return file;
}

SafetensorsFile read_torch_checkpoint(const std::uint8_t* data, std::size_t size, const TorchCheckpointLimits& limits) {
  const TorchCheckpointIndex index = index_torch_checkpoint(data, size, limits);
  SafetensorsFile out;
  for (const auto& e : index.entries) out.tensors.push_back(decode_torch_tensor(index, e));
  return out;
}

}  // namespace headlab::formats
