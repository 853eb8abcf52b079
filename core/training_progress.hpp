// Progress of a steppable trainer (the one trainer protocol, docs/model-pattern.md):
// Trainer(settings); step(n) and progress() return this; stop(); result().
#pragma once

namespace headlab {

struct TrainingProgress {
  long steps_taken = 0;
  long steps_total = 0;
  double loss = 0.0;  // the last step's loss; NaN before the first step
  bool done = false;  // all steps taken, stopped, or diverged
};

}  // namespace headlab
