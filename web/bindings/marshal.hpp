// Crossing the WASM boundary. A matrix in JS is { rows, cols, data } with data a
// Float64Array of length rows·cols in row-major order — the memory layout of
// headlab::Matrix, so each crossing is one bulk copy and never a vector of vectors.
// Results are copied out of the WASM heap into fresh JS arrays, so nothing JS
// holds is invalidated when memory grows.
#pragma once

#include "core/check.hpp"
#include "core/matrix.hpp"

#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>

#include <malloc.h>

#include <cmath>
#include <cstdint>
#include <exception>
#include <new>
#include <utility>
#include <vector>
#include <string>

namespace headlab::web {

using emscripten::val;

// Bytes copied from JS typed arrays into the WASM heap (matrices and byte arrays) since the
// module started: what a figure update costs in copies, read through bytes_copied_in()
// (module_bindings.cpp) by tests and benchmarks. A double counts exactly up to 2^53 bytes.
inline double copied_in_bytes = 0;

// Bulk-copies `n` elements of the JS typed array `from` into `to` (n·sizeof(T) bytes, counted).
template <class T>
void copy_in(const val& from, T* to, std::size_t n) {
  val view(emscripten::typed_memory_view(n, to));
  view.call<void>("set", from);
  copied_in_bytes += static_cast<double>(n * sizeof(T));
}

inline Matrix matrix_from_js(const val& m, const std::string& name) {
  if (m.isUndefined() || m.isNull() || m.typeOf().as<std::string>() != "object") {
    throw InputError(name + " must be a matrix { rows, cols, data: Float64Array }");
  }
  const val rows_v = m["rows"], cols_v = m["cols"], data = m["data"];
  if (rows_v.typeOf().as<std::string>() != "number" || cols_v.typeOf().as<std::string>() != "number") {
    throw InputError(name + ".rows and " + name + ".cols must be numbers");
  }
  const double rows_d = rows_v.as<double>(), cols_d = cols_v.as<double>();
  if (!(rows_d >= 0 && cols_d >= 0 && rows_d == std::floor(rows_d) && cols_d == std::floor(cols_d) &&
        rows_d * cols_d <= 1 << 26)) {
    throw InputError(name + " has an invalid shape " + std::to_string(rows_d) + " × " + std::to_string(cols_d));
  }
  if (!data.instanceof (val::global("Float64Array"))) throw InputError(name + ".data must be a Float64Array");
  const auto rows = static_cast<Eigen::Index>(rows_d), cols = static_cast<Eigen::Index>(cols_d);
  const auto length = data["length"].as<double>();
  if (length != rows_d * cols_d) {
    throw InputError(name + ".data has length " + std::to_string(static_cast<long long>(length)) + " but " +
                     std::to_string(rows) + " × " + std::to_string(cols) + " needs " + std::to_string(rows * cols));
  }
  Matrix out(rows, cols);
  if (rows * cols > 0) {
    // One bulk copy into the matrix's own storage; nothing allocates between view and set.
    copy_in(data, out.data(), static_cast<std::size_t>(rows * cols));
  }
  return out;
}

inline val matrix_to_js(const Matrix& m) {
  val out = val::object();
  out.set("rows", static_cast<double>(m.rows()));
  out.set("cols", static_cast<double>(m.cols()));
  val view(emscripten::typed_memory_view(static_cast<std::size_t>(m.size()), m.data()));
  out.set("data", view.call<val>("slice"));  // copy out of the heap
  return out;
}

inline val vector_to_js(const std::vector<double>& v) {
  val view(emscripten::typed_memory_view(v.size(), v.data()));
  return view.call<val>("slice");
}

inline bool optional_bool(const val& options, const char* key, bool fallback) {
  if (options.isUndefined() || options.isNull()) return fallback;
  const val v = options[key];
  if (v.isUndefined() || v.isNull()) return fallback;
  if (v.typeOf().as<std::string>() != "boolean") throw InputError(std::string(key) + " must be true or false");
  return v.as<bool>();
}

inline double number_arg(const val& v, const std::string& name) {
  if (v.typeOf().as<std::string>() != "number") throw InputError(name + " must be a number");
  const double x = v.as<double>();
  if (!std::isfinite(x)) throw InputError(name + " must be finite, got " + std::to_string(x));
  return x;
}

inline int int_arg(const val& v, const std::string& name) {
  const double x = number_arg(v, name);
  if (x != std::floor(x) || std::abs(x) > 1e9) throw InputError(name + " must be an integer, got " + std::to_string(x));
  return static_cast<int>(x);
}

inline bool has(const val& object, const char* key) {
  if (object.isUndefined() || object.isNull()) return false;
  const val v = object[key];
  return !v.isUndefined() && !v.isNull();
}

// Each element of the JS array `v` converted by convert(element, "name[i]"); throws
// "<name> must be <expected>" unless `v` is an array.
template <class F>
auto array_from_js(const val& v, const std::string& name, const std::string& expected, F&& convert) {
  if (v.isUndefined() || v.isNull() || !v.isArray()) throw InputError(name + " must be " + expected);
  std::vector<decltype(convert(v, name))> out;
  const int n = v["length"].as<int>();
  for (int i = 0; i < n; ++i) out.push_back(convert(v[i], name + "[" + std::to_string(i) + "]"));
  return out;
}

// A JS number as a seed in [0, kMaxSeed], refused with the CLI's message (core/check.hpp).
inline std::uint64_t seed_arg(const val& v, const std::string& name = "seed") {
  const double x = number_arg(v, name);
  if (x < 0 || x != std::floor(x) || x > static_cast<double>(kMaxSeed)) {
    // An integral value as its digits, as the command line quotes the flag's text.
    const bool integral = x == std::floor(x) && std::fabs(x) < 1e18;
    throw InputError(seed_range_message(name, integral ? std::to_string(static_cast<long long>(x)) : number_text(x)));
  }
  return static_cast<std::uint64_t>(x);
}

// Copies the fields of a JS settings object (or options object) into a C++ struct, converting
// each by its type only: ranges are the core's to check (<Model>Settings::validate() names the
// field). finish() rejects a key nobody read, so a misspelt setting is an error, not a silent default.
//   ObjectReader in(settings, "settings");
//   in.integer("steps", s.steps); in.number("learning_rate", s.learning_rate); in.finish();
class ObjectReader {
 public:
  ObjectReader(const val& object, std::string what) : object_(object), what_(std::move(what)) {
    if (!object_.isUndefined() && !object_.isNull() && object_.typeOf().as<std::string>() != "object") {
      throw InputError(what_ + " must be an object");
    }
  }
  bool has(const char* key) {
    read_.push_back(key);
    return headlab::web::has(object_, key);
  }
  val get(const char* key) {
    read_.push_back(key);
    return object_[key];
  }
  void number(const char* key, double& out) {
    if (has(key)) out = number_arg(object_[key], key);
  }
  template <class Integer>
  void integer(const char* key, Integer& out) {
    if (has(key)) out = static_cast<Integer>(int_arg(object_[key], key));
  }
  void seed(const char* key, std::uint64_t& out) {
    if (has(key)) out = seed_arg(object_[key], key);
  }
  void boolean(const char* key, bool& out) {
    read_.push_back(key);
    out = optional_bool(object_, key, out);
  }
  void finish() const {
    if (object_.isUndefined() || object_.isNull()) return;
    const val keys = val::global("Object").call<val>("keys", object_);
    const int n = keys["length"].as<int>();
    for (int i = 0; i < n; ++i) {
      const std::string key = keys[i].as<std::string>();
      bool known = false;
      for (const char* k : read_) known = known || key == k;
      if (!known) throw InputError(what_ + " has an unknown field \"" + key + "\"");
    }
  }

 private:
  val object_;
  std::string what_;
  std::vector<const char*> read_;  // the keys asked for (a handful: a linear search is enough)
};

// A trainer's settings object { seed, steps, batch_size, learning_rate, <the model's own> } →
// its core settings: the fields every trainer shares, under their one set of names
// (docs/model-pattern.md, "Settings: one vocabulary"), then read_own(in, out) for the model's
// own fields; unknown keys are refused and the ranges left to Settings::validate().
template <class Settings, class ReadOwn>
Settings trainer_settings_from_js(const val& settings, ReadOwn&& read_own) {
  Settings out;
  ObjectReader in(settings, "settings");
  in.seed("seed", out.seed);
  in.integer("steps", out.steps);
  in.integer("batch_size", out.batch_size);
  in.number("learning_rate", out.learning_rate);
  read_own(in, out);
  in.finish();
  out.validate();
  return out;
}

// A core TrainingProgress as the JS progress object { steps_taken, steps_total, loss, done }.
template <class Progress>
val progress_to_js(const Progress& p) {
  val out = val::object();
  out.set("steps_taken", static_cast<double>(p.steps_taken));
  out.set("steps_total", static_cast<double>(p.steps_total));
  out.set("loss", p.loss);
  out.set("done", p.done);
  return out;
}

// progress_to_js plus diverged_at (1-based step, 0 while healthy) and, once the trainer
// diverged, its message naming the step (the trainers' diverged_at() / divergence_message()).
template <class Progress, class Trainer>
val progress_with_divergence_to_js(const Progress& p, const Trainer& trainer) {
  val out = progress_to_js(p);
  out.set("diverged_at", static_cast<double>(trainer.diverged_at()));
  if (trainer.diverged_at()) out.set("divergence", trainer.divergence_message());
  return out;
}

// The message for an allocation that failed inside `what` (an analysis's name, as a reader would
// say it): the module's memory and the most it can grow to (2 GiB: ALLOW_MEMORY_GROWTH's default
// maximum), so the reader learns the analysis needed more than was left, never "std::bad_alloc".
inline std::string out_of_memory_message(const std::string& what) {
  const auto mib = [](std::size_t b) { return std::to_string((b + (1u << 20) - 1) >> 20) + " MiB"; };
  return what + " ran out of memory: it needed more than the " +
         mib(emscripten_get_heap_max() - static_cast<std::size_t>(mallinfo().uordblks)) +
         " left of this module's limit of " + mib(emscripten_get_heap_max()) + " (" +
         mib(static_cast<std::size_t>(mallinfo().uordblks)) + " in use)";
}

// Runs f and returns its value; a C++ exception becomes { error: what() }, which
// the JS layer turns into a HeadlabError carrying the same message. A failed allocation
// (std::bad_alloc, whose what() says nothing) becomes out_of_memory_message(what); the memory
// f held is freed as the exception unwinds, so the module stays usable.
template <class F>
val guarded(const std::string& what, F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    val err = val::object();
    err.set("error", out_of_memory_message(what));
    return err;
  } catch (const std::exception& e) {
    val err = val::object();
    err.set("error", std::string(e.what()));
    return err;
  }
}
template <class F>
val guarded(F&& f) {
  return guarded("the computation", std::forward<F>(f));
}

}  // namespace headlab::web
