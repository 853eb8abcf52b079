// Divergence by the loss, one rule for the three trainers (docs/limits.md): a run that ends with
// the mean loss of its last kLossWindow steps above kDivergedLossFactor times the larger of its
// first step's loss and the loss of the trivial prediction (uniform logits: ln V for a softmax
// over V tokens; zero: at most 1 for feature recovery's unit-variance payloads) has diverged.
//
// Why: weight and finiteness limits catch a run that explodes, not one that oscillates at a
// learning rate too large while its weights stay bounded (induction at learning_rate 1e3 ends
// with a loss of 7e7 and weights inside ±1e6). Adam at a workable learning rate lowers the loss
// from where it started, so ending at twice both the start and the trivial loss means the steps
// made the model worse than doing nothing. The mean over 16 steps keeps a small batch's noise
// far below the factor 2 (measured for healthy runs in docs/limits.md), and a run still near
// its initial loss (a short one) is never flagged, since its mean stays near the first loss.
#pragma once

#include "core/check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace headlab {

constexpr int kLossWindow = 16;
constexpr double kDivergedLossFactor = 2.0;

class LossWatch {
 public:
  // trivial_loss: the loss of the trivial prediction; `trivial` says which it is, for the message.
  LossWatch(double trivial_loss, std::string trivial) : trivial_loss_(trivial_loss), trivial_(std::move(trivial)) {}
  // Whether step (1-based) of total is one whose loss the rule reads (the first, and the last kLossWindow).
  static bool wants(long step, long total) { return step == 1 || step > total - kLossWindow; }
  void record(long step, long total, double loss) {
    if (step == 1) first_ = loss;
    if (step > total - kLossWindow) {
      sum_ += loss;
      ++count_;
    }
  }
  double bound() const { return kDivergedLossFactor * std::max(trivial_loss_, first_); }
  double mean() const { return count_ > 0 ? sum_ / count_ : 0.0; }
  // After the last step: true when the rule above says the run diverged.
  bool diverged() const { return count_ > 0 && !(mean() <= bound()); }
  // "the loss averaged X over the last K steps, above 2 × Y, the larger of the first step's loss
  // (A) and the loss of <trivial> (B)"; the trainer puts "training diverged at step N: " before it.
  std::string reason() const {
    return "the loss averaged " + number_text(mean()) + " over the last " + std::to_string(count_) + " steps, above " +
           number_text(kDivergedLossFactor) + " × " + number_text(std::max(trivial_loss_, first_)) +
           ", the larger of the first step's loss (" + number_text(first_) + ") and the loss of " + trivial_ + " (" +
           number_text(trivial_loss_) + ")";
  }

 private:
  double trivial_loss_;
  std::string trivial_;
  double first_ = std::numeric_limits<double>::quiet_NaN();
  double sum_ = 0.0;
  long count_ = 0;
};

}  // namespace headlab
