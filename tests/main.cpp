#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#ifdef __GLIBC__
#include <malloc.h>

// glibc gives the free memory at the top of the heap back to the system once more than
// M_TRIM_THRESHOLD of it is free (by default twice the largest mmapped block freed so far).
// The training tests free a step's temporaries at the top of the heap on every step, so every
// step faulted its pages back in: one induction seed took 645k minor page faults and 6.5 s of
// system time beside 12.5 s of user time. Keeping up to 512 MiB free in the heap makes it 0.01 s.
// The results do not change: only where freed memory waits.
namespace {
[[maybe_unused]] const int kKeepFreedHeap = mallopt(M_TRIM_THRESHOLD, 512 << 20);
}  // namespace
#endif
