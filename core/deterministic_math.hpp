// exp and log from IEEE-754 basic operations only (+ − × ÷, frexp, ldexp).
//
// glibc (native) and musl (Emscripten) may round std::exp / std::log
// differently in the last bit. Code whose *decisions* must match bit-for-bit
// between the native and the WASM build — the normal sampler's tables and its
// accept/reject tests — uses these instead. Each basic operation is correctly
// rounded on both targets and neither target contracts a·b + c into an FMA
// here (x86-64 baseline has no FMA; WebAssembly has no FMA instruction), so
// these functions return identical bits on both.
#pragma once

namespace headlab {

// e^x for finite x; relative error below 4 ulp on [−700, 700]. Underflows to 0 below ≈ −745.
double deterministic_exp(double x);
// ln(x) for finite x > 0; absolute error below 4 ulp of |ln x|.
double deterministic_log(double x);

}  // namespace headlab
