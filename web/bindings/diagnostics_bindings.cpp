// embind: memory diagnostics of the module itself, for leak checks in tests
// (10,000 widget updates must leave these flat; docs/embedding.md).
#include <emscripten/bind.h>

#include <malloc.h>

namespace headlab::web {
namespace {

// Bytes the allocator has handed out and not yet had back (dlmalloc's uordblks):
// the C++ heap in use, unlike the memory size, which only ever grows.
double heap_bytes_in_use() { return static_cast<double>(mallinfo().uordblks); }

}  // namespace
}  // namespace headlab::web

EMSCRIPTEN_BINDINGS(headlab_diagnostics) {
  emscripten::function("heap_bytes_in_use", &headlab::web::heap_bytes_in_use);
}
