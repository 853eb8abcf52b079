// The max-digit transformer, all of it: task and sampler, model (weights, per-token tables,
// forward, loss), training step kernels and the standard evaluation set. Include the concept
// header you need; this one is for the CLI and the bindings, which use them all.
#pragma once

#include "core/max_digit_evaluation.hpp"
#include "core/max_digit_kernels.hpp"
#include "core/max_digit_model.hpp"
#include "core/max_digit_task.hpp"
