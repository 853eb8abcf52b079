// The one trainer protocol (docs/model-pattern.md): every steppable trainer in core/ reports
// its progress in this shape, and the JS layer and the worker pass it on with these names.
#pragma once

namespace headlab {

struct TrainingProgress {
  long steps_taken = 0;  // optimiser steps taken so far
  long steps_total = 0;  // settings.steps
  double loss = 0.0;     // the last step's training loss (NaN before the first step)
  bool done = false;     // no further step will run: all taken, stopped, or (where a model detects it) diverged
};

}  // namespace headlab
