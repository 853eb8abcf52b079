// embind, in every module: the core's version, and memory diagnostics of the module
// itself for leak checks in tests (10,000 widget updates must leave these flat; docs/embedding.md).
#include "bindings/marshal.hpp"

#include <emscripten/bind.h>

#include <malloc.h>

#include <string>

namespace headlab::web {
namespace {

// Bytes the allocator has handed out and not yet had back (dlmalloc's uordblks):
// the C++ heap in use, unlike the memory size, which only ever grows.
double heap_bytes_in_use() { return static_cast<double>(mallinfo().uordblks); }

// Bytes copied from JS typed arrays into this module's heap so far (marshal.hpp copy_in).
double bytes_copied_in() { return copied_in_bytes; }

std::string version() { return HEADLAB_VERSION; }

}  // namespace
}  // namespace headlab::web

EMSCRIPTEN_BINDINGS(headlab_module) {
  emscripten::function("version", &headlab::web::version);
  emscripten::function("heap_bytes_in_use", &headlab::web::heap_bytes_in_use);
  emscripten::function("bytes_copied_in", &headlab::web::bytes_copied_in);
}
