#include "core/loss_divergence.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace headlab;

TEST_CASE("loss divergence: the mean of the last 16 losses against twice the larger of the first and the trivial loss",
          "[training][divergence]") {
  const double trivial = std::log(32.0);
  // A run of 100 steps: the rule reads step 1 and steps 85 … 100.
  CHECK(LossWatch::wants(1, 100));
  CHECK_FALSE(LossWatch::wants(84, 100));
  CHECK(LossWatch::wants(85, 100));
  const auto run = [&](double first, double last) {
    LossWatch w(trivial, "the uniform prediction, ln 32");
    for (long t = 1; t <= 100; ++t) {
      if (LossWatch::wants(t, 100)) w.record(t, 100, t == 1 ? first : last);
    }
    return w;
  };
  CHECK_FALSE(run(3.9, 1.0).diverged());       // learned
  CHECK_FALSE(run(3.9, 2 * 3.9).diverged());   // exactly at the bound
  CHECK(run(3.9, 2 * 3.9 + 1e-9).diverged());  // just past it
  CHECK(run(3.9, 7.3e7).diverged());           // learning_rate 1e3: weights bounded, loss not
  CHECK_FALSE(run(50.0, 90.0).diverged());     // a large start (init_scale) sets the bound
  CHECK(run(3.9, NAN).diverged());             // a NaN mean is no healthy end
  CHECK(run(3.9, 7.3e7).reason() ==
        "the loss averaged 7.3e+07 over the last 16 steps, above 2 × 3.9, the larger of the first step's loss (3.9) "
        "and the loss of the uniform prediction, ln 32 (3.46574)");
  // A short run: every step is in the window, the first included, so a run still at its start passes.
  LossWatch shorter(trivial, "u");
  shorter.record(1, 3, 10.0);
  shorter.record(2, 3, 10.5);
  shorter.record(3, 3, 11.0);
  CHECK_FALSE(shorter.diverged());
}
