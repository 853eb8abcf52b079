// The normal sampler's ziggurat (ZIGNOR, Doornik 2005): its constants, its layer edges and
// its wedge test, declared here so that tests/core/random_test.cpp can check them.
//
// The 128 layers each have area v under the density f(x) = e^{−x²/2}: x[1] = r is where the
// tail starts, x[0] = v / f(r) the width of the base layer (strip plus tail), x[128] = 0, and
// x[i] = √(−2 ln(v / x[i−1] + f(x[i−1]))) for i = 2 … 127. The edges were computed once by
// that recurrence with the project's series exp and log (every normal draw already made used
// those bits) and are written below as exact hex-float literals, so building the sampler
// evaluates no exponential. Each edge lies within 4.6 ulp of its equation evaluated in long
// double from the edge before it (the exp and log were each within 4 ulp).
#pragma once

#include <cstdint>

namespace headlab::ziggurat {

constexpr int kLayers = 128;
constexpr double kTailStart = 3.442619855899;       // r
constexpr double kLayerArea = 9.91256303526217e-3;  // v

inline constexpr double kEdge[kLayers + 1] = {
    0x1.db4668fe7e4a7p+1, 0x1.b8a7c476d2be8p+1, 0x1.9c8e0c7c8098fp+1,
    0x1.8aa73e440ffbcp+1, 0x1.7d45eb36eb842p+1, 0x1.7279dd4ac3f9dp+1,
    0x1.695c2be68edc9p+1, 0x1.616dff7c8f54ap+1, 0x1.5a61edf7e8f32p+1,
    0x1.54052012a04a4p+1, 0x1.4e3456b0e3a1bp+1, 0x1.48d61806d600fp+1,
    0x1.43d75b60bca1cp+1, 0x1.3f29848d3b415p+1, 0x1.3ac11b8e206d5p+1,
    0x1.3694f3a3740d8p+1, 0x1.329d9725e32f6p+1, 0x1.2ed4df809957p+1,
    0x1.2b35aa5ebee3dp+1, 0x1.27bba2b5dbc91p+1, 0x1.246317a6b53bfp+1,
    0x1.2128dd36bdf08p+1, 0x1.1e0a342cf08f5p+1, 0x1.1b04b731f6bcbp+1,
    0x1.18164be0c1c38p+1, 0x1.153d16d45743cp+1, 0x1.12777201834f2p+1,
    0x1.0fc3e4d95f277p+1, 0x1.0d211dd28b00dp+1, 0x1.0a8ded0ec3718p+1,
    0x1.08093fe3e40dfp+1, 0x1.05921d1c4d767p+1, 0x1.0327a1cc4cf5cp+1,
    0x1.00c8fea1720d2p+1, 0x1.fceaeb2ca5f13p+0, 0x1.f858aff31cbedp+0,
    0x1.f3da09746082p+0,  0x1.ef6dcddc7d38ep+0, 0x1.eb12e91486bb8p+0,
    0x1.e6c85a849b012p+0, 0x1.e28d331c67238p+0, 0x1.de609397e09b4p+0,
    0x1.da41aaf79a33fp+0, 0x1.d62fb52580b81p+0, 0x1.d229f9bfeefd7p+0,
    0x1.ce2fcb05f8c2fp+0, 0x1.ca4084e091e2fp+0, 0x1.c65b8c04dbabdp+0,
    0x1.c2804d2c6b16ap+0, 0x1.beae3c60cd0dfp+0, 0x1.bae4d457ee115p+0,
    0x1.b72395df5b737p+0, 0x1.b36a075498d6p+0,  0x1.afb7b428fe79dp+0,
    0x1.ac0c2c6fc637ep+0, 0x1.a867047516e4cp+0, 0x1.a4c7d45d01a2dp+0,
    0x1.a12e37c983366p+0, 0x1.9d99cd86b58b1p+0, 0x1.9a0a373c73f1ep+0,
    0x1.967f1924c7b02p+0, 0x1.92f819c682bf1p+0, 0x1.8f74e1b37c6b4p+0,
    0x1.8bf51b49ef334p+0, 0x1.88787278810a3p+0, 0x1.84fe9484873b6p+0,
    0x1.81872fd21db71p+0, 0x1.7e11f3adaeb8fp+0, 0x1.7a9e90168b8eap+0,
    0x1.772cb58a39ddp+0,  0x1.73bc14d01a2c3p+0, 0x1.704c5ec50cb7bp+0,
    0x1.6cdd4426b889fp+0, 0x1.696e755e16b7dp+0, 0x1.65ffa248e0166p+0,
    0x1.62907a0176eb8p+0, 0x1.5f20aaa4dfc13p+0, 0x1.5bafe1165480fp+0,
    0x1.583dc8bff3211p+0, 0x1.54ca0b4ffd341p+0, 0x1.515450720f44ep+0,
    0x1.4ddc3d83a5b7dp+0, 0x1.4a617543306c6p+0, 0x1.46e39778de05cp+0,
    0x1.436240982ad96p+0, 0x1.3fdd09591d29dp+0, 0x1.3c538647ef78ap+0,
    0x1.38c54749b902ap+0, 0x1.3531d7146a434p+0, 0x1.3198ba982d906p+0,
    0x1.2df97057e7efp+0,  0x1.2a536fae30e28p+0, 0x1.26a627fb9d115p+0,
    0x1.22f0ffbaa1e4bp+0, 0x1.1f335374a10edp+0, 0x1.1b6c7492c972ap+0,
    0x1.179ba80463fep+0,  0x1.13c024b2c7ebap+0, 0x1.0fd911b97f229p+0,
    0x1.0be58456ff49ep+0, 0x1.07e47d87a40e7p+0, 0x1.03d4e7391c5a7p+0,
    0x1.ff6b21fffe2f6p-1, 0x1.f70a5866c8f25p-1, 0x1.ee848e956824ep-1,
    0x1.e5d6909f51b4cp-1, 0x1.dcfccc51c59d3p-1, 0x1.d3f340dda60ffp-1,
    0x1.cab56ac6a38b6p-1, 0x1.c13e2b014e84p-1,  0x1.b787a7c516f1dp-1,
    0x1.ad8b2506a135ep-1, 0x1.a340d1baf5afbp-1, 0x1.989f85c753b0ep-1,
    0x1.8d9c6a9d35e1ep-1, 0x1.822a858af0e5ep-1, 0x1.763a1600eec56p-1,
    0x1.69b7b213f3f4ap-1, 0x1.5c8afdbf02158p-1, 0x1.4e94c08c0ba93p-1,
    0x1.3fabee1911cbp-1,  0x1.2f98d6bb4f3f5p-1, 0x1.1e0ce6b596987p-1,
    0x1.0a936da5e557dp-1, 0x1.e8e576e43fb7ep-2, 0x1.b4c8fece48df8p-2,
    0x1.73949184db92fp-2, 0x1.16db47e193d08p-2, 0x0p+0,
};

// The rectangle test and product of layer i on the integers of the draw. A draw's top 53 bits m
// give u = m·2^−52 − 1 = n·2^−52 with n = m − 2^52 (exact), and normal() returns u·x[i] when
// |u| < x[i+1]/x[i]. Here the same test is one unsigned comparison, m − low < width, and the
// product is n·scaled_edge with scaled_edge = x[i]·2^−52: scaling by a power of two is exact, so
// n·(x[i]·2^−52) and (n·2^−52)·x[i] round the same real number once, to the same double.
struct Rectangle {
  std::uint64_t low;    // 2^52 − T + 1, T = ⌈(x[i+1]/x[i])·2^52⌉
  std::uint64_t width;  // 2T − 1 (0 when T = 0: nothing lies inside)
  double scaled_edge;   // x[i]·2^−52
  double unused;        // 32 bytes a layer: the index scales by one shift
};
// The 128 layers' rectangles (built once, from kEdge).
const Rectangle* rectangles();

// Accepts a wedge point when f1 + w·(f0 − f1) < 1 for f0 = e^{a0}, f1 = e^{a1} (a0 ≤ 0 ≤ a1,
// both within ±1), deciding as the sampler always has (core/random.cpp says how).
bool wedge_accepts(double a0, double a1, double w);

}  // namespace headlab::ziggurat
