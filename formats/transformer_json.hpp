// The JSON documents `headlab model run / analyze / inspect` write and the WASM module returns
// as text (one writer each). Matrices are arrays of rows; per-head arrays are indexed [layer][head].
//
// run:      {"tokens": [..T], "token_names"?: [..T], "logits": T × V, "patterns": [L][H] T × T}
// analysis: {"prompt", "position", "token", "logits", "patterns",
//            "direct_logit_attribution": {"embed", "pos_embed", "heads": L × H, "attention_bias": [L],
//                                          "constant", "logit"},
//            "ablation": {"mode": "zero"|"mean", "sequences", "seed", "clean_loss", "loss": L × H},
//            "induction": {"previous_token": L × H, "induction": L × H, "in_context_loss"},
//            "patching"?: {"answer", "wrong", "clean_logit_difference", "corrupted_logit_difference",
//                          "normalised": [L][H] [T]},
//            "circuits"?: {"qk": [L][H] V × V, "ov": [L][H] V × V},
//            "qk_attribution"?: {"layer", "head", "position" (the query i), "sources": [S] names,
//                                "parts": [i + 1][S][S] (key j, query-side source, key-side source),
//                                "scores": [i + 1] (the scaled scores s_ij the parts sum to)},
//            "composition"?: {"heads": ["l.h"…], "q", "k", "v": (L·H) × (L·H) [later][earlier],
//                             "baseline": {"mean", "std", "samples", "seed"}},
//            "logit_lens"?: {"top": k, "answers": [T], "answer_probability": (L+1) × T,
//                            "answer_rank": (L+1) × T, "top_tokens": [L+1] T × k, "top_probability": [L+1] T × k},
//            "head_svd"?: {"directions": D, "top": k, "heads": [L][H] {"ov_singular_values": [c],
//                          "qk_singular_values": [c], "copying", "ov_eigenvalues": [c] [re, im],
//                          "ov_input", "ov_output", "qk_query", "qk_key": {"tokens": D × k, "values": D × k}}}}
// training history (`headlab model train --history-out`): {"task": "induction", "seed", "steps", "batch",
//            "learning_rate", "weight_decay", "every" (steps between points), "score_sequences",
//            "points": [{"step", "loss"? (absent at step 0), "in_context_loss", "previous_token": L × H,
//                        "induction": L × H}]}, step 0 first
// inspect:  {"config": <config>, "parameters": N, "tensors": [{"name", "dtype", "shape"}], "checks": "ok"}
#pragma once

#include "core/transformer_analysis.hpp"
#include "core/transformer_training.hpp"
#include "formats/safetensors.hpp"

#include <string>
#include <vector>

namespace headlab::formats {

std::string write_transformer_run(const transformer::TransformerWeights& weights,
                                  const transformer::TransformerActivations& run);
// The run document with a "head_losses" member after it (headlab model run --head-losses):
//   {"mode": "zero"|"mean", "means": "reference"|"repeated random sequences", "sequences": N,
//    "seed"?: S (repeated random sequences only), "clean_loss": x, "loss": L × H}
// the prompt's next-token loss (nats) clean and with each head ablated alone (prompt_ablation_loss).
std::string write_transformer_run(const transformer::TransformerWeights& weights,
                                  const transformer::TransformerActivations& run,
                                  const transformer::PromptAblation& losses, transformer::Ablation mode,
                                  const transformer::MeanSource& means);
std::string write_transformer_analysis(const transformer::TransformerWeights& weights,
                                       const transformer::AnalysisRequest& request,
                                       const transformer::TransformerAnalysis& analysis);
// Only the analysis's "composition", "logit_lens" and "head_svd" members (those asked for), as one
// object: the bytes of those members in write_transformer_analysis's document.
std::string write_head_circuits(const transformer::TransformerWeights& weights,
                                const transformer::AnalysisRequest& request,
                                const transformer::TransformerAnalysis& analysis);
std::string write_transformer_inspection(const transformer::TransformerWeights& weights, const SafetensorsFile& file);
// The points a run checked, every `every` steps with `score_sequences` sequences (see above).
std::string write_training_history(const transformer::TransformerTrainingSettings& settings, int every,
                                   int score_sequences, const std::vector<transformer::TrainingCheckpoint>& points);

// A prompt as text: tokens separated by spaces or commas, each an integer id or (when the config has
// token_names) a token name. Throws InputError naming the position of a token it cannot read.
std::vector<int> parse_prompt(const transformer::TransformerConfig& config, const std::string& text);

}  // namespace headlab::formats
