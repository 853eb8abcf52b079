// The bring-your-own-model documents: the TypeScript shapes of the JSON written by
// formats/transformer_model.hpp (the config) and formats/transformer_json.hpp (`headlab model
// inspect / run / analyze`; the WASM module returns the same text, parsed by web/transformer.js).
// Fields in words: docs/own-model.md. Sizes: L = n_layers, H = n_heads, T = prompt length
// (1 … n_ctx), V = d_vocab. Matrices are arrays of rows; per-head arrays are indexed [layer][head].
// Logits are in nats (natural-log units of the softmax); losses are mean cross-entropy in nats.

/** model.json: the config beside a model.safetensors file (docs/own-model.md, "Export from TransformerLens"). */
export interface TransformerConfigFile {
  /** Attention layers, integer in [1, 4]. */
  n_layers: number;
  /** Heads per layer, integer in [1, 64]. */
  n_heads: number;
  /** Residual stream width, integer in [1, 4096]. */
  d_model: number;
  /** Query/key/value width per head, integer in [1, 1024]. */
  d_head: number;
  /** Longest prompt (positions), integer in [1, 4096]. */
  n_ctx: number;
  /** Vocabulary size, integer in [1, 65536]. */
  d_vocab: number;
  /** TransformerLens normalization_type: "LN" (with weights), "LNPre" (weightless, after fold_ln),
   *  "RMS" (RMSNorm with a scale w), "RMSPre" (weightless RMSNorm) or "none". Default "none" when read; always written. */
  normalization: 'LN' | 'LNPre' | 'RMS' | 'RMSPre' | 'none';
  /** TransformerLens positional_embedding_type: "standard" (learned W_pos added to the residual stream),
   *  "shortformer" (W_pos added to the query and key inputs only), "rotary" (RoPE on q and k) or
   *  "none". Default "standard" when read; always written. */
  positional_embedding: 'standard' | 'shortformer' | 'rotary' | 'none';
  /** LayerNorm / RMSNorm ε (added to the variance or mean square), finite and > 0. Default 1e-5 when read; always written. */
  eps: number;
  /** Rotary only (required there, written there): rotated components of q and k, even, in [2, d_head]. */
  rotary_dim?: number;
  /** Rotary only: frequencies rotary_base^(−2k/rotary_dim), in [1, 1e12]. Default 10000. */
  rotary_base?: number;
  /** Rotary only: true pairs components (2k, 2k+1) (GPT-J), false pairs (k, k + rotary_dim/2) (GPT-NeoX). Default false. */
  rotary_adjacent_pairs?: boolean;
  /** Grouped key-value heads: a divisor of n_heads (the file then holds attn._W_K, _W_V, _b_K, _b_V); absent or 0: none. */
  n_key_value_heads?: number;
  /** Divisor of the attention scores, in [0.001, 1e6]; absent or 0: √d_head. */
  attn_scale?: number;
  /** Optional display names, exactly d_vocab strings of ≤ 64 bytes; prompts may then use them. */
  token_names?: string[];
}

/** `headlab model inspect`: the config as read, the parameter count and the file's tensors. */
export interface TransformerInspectionFile {
  config: TransformerConfigFile;
  /** Scalar parameters, biases and LayerNorm weights included (TransformerLens buffers not counted). */
  parameters: number;
  /** Every tensor of the safetensors file in header order (sorted by name), buffers included. */
  tensors: { name: string; dtype: 'F32' | 'F64' | 'BOOL'; shape: number[] }[];
  /** Always "ok": a model that fails a check is not loaded at all (the error names the check). */
  checks: 'ok';
}

/** `headlab model run`: one forward pass over a prompt. */
export interface TransformerRunFile {
  /** The prompt as token ids, T of them. */
  tokens: number[];
  /** The prompt's token names (only when the config has token_names). */
  token_names?: string[];
  /** T × V logits (nats); row p predicts the token after position p. */
  logits: number[][];
  /** [L][H] T × T attention patterns: row i = query position i, entries sum to 1, zero above the diagonal (causal). */
  patterns: number[][][][];
}

/** Direct logit attribution to the logit of `token` at `position`, final LayerNorm scale frozen (TransformerLens apply_ln_to_stack). */
export interface TransformerLogitAttribution {
  /** Contribution of W_E[token at position] (nats). */
  embed: number;
  /** Contribution of W_pos[position]; 0 without positional embedding. */
  pos_embed: number;
  /** L × H: each head's output at `position`. */
  heads: number[][];
  /** L values: each layer's b_O. */
  attention_bias: number[];
  /** ln_final.b · W_U[:, token] + b_U[token]. */
  constant: number;
  /** The model's logit; equals the sum of every term above up to rounding. */
  logit: number;
}

/** `headlab model analyze`: every analysis of one prompt (fields in words: docs/own-model.md, "The command line"). */
export interface TransformerAnalysisFile extends TransformerRunFile {
  /** DLA position, in [0, T). */
  position: number;
  /** DLA token, in [0, V). */
  token: number;
  direct_logit_attribution: TransformerLogitAttribution;
  /**
   * Each head ablated in turn on `sequences` repeated random sequences (seed `seed`); null when the
   * request asked for sequences 0 (no repeated sequences: a model too large for them).
   */
  ablation: {
    mode: 'zero' | 'mean';
    sequences: number;
    seed: number;
    /** Mean next-token loss (nats) on the repeated half without ablation. */
    clean_loss: number;
    /** L × H: the same loss with that head ablated. */
    loss: number[][];
  } | null;
  /** On the same kind of sequences: attention-mass scores in [0, 1] and the in-context loss (nats); null with sequences 0. */
  induction: {
    /** L × H mean attention from position p to p − 1 over the repeated half. */
    previous_token: number[][];
    /** L × H mean attention to the token after the previous occurrence of the current token. */
    induction: number[][];
    in_context_loss: number;
  } | null;
  /** Only when a corrupted prompt was given. */
  patching?: {
    answer: number;
    wrong: number;
    /** The corrupted prompt as token ids (same length T as the clean one). */
    corrupted: number[];
    /** logit[answer] − logit[wrong] at the last position (nats), clean and corrupted runs. */
    clean_logit_difference: number;
    corrupted_logit_difference: number;
    /** [L][H] T values: (LD_patched − LD_corrupted) / (LD_clean − LD_corrupted) when head (l, h)'s output at position p
     *  is replaced by its corrupted value: 1 = the patch changed nothing, 0 = moved all the way to the corrupted run. */
    normalised: number[][][];
  };
  /** Only when asked for (d_vocab ≤ 512): direct-path token-space circuits of every head. */
  circuits?: {
    /** [L][H] V × V: query token × key token, W_E W_Q^h (W_E W_K^h)ᵀ, unscaled. */
    qk: number[][][][];
    /** [L][H] V × V: attended token × output logit, W_E W_V^h W_O^h W_U. */
    ov: number[][][][];
  };
  /** Only when asked for (`composition`): scores of every pair of heads in different layers (docs/own-model.md). */
  composition?: TransformerComposition;
  /** Only when asked for (`logit_lens`). */
  logit_lens?: TransformerLogitLens;
  /** Only when asked for (`head_svd`). */
  head_svd?: TransformerHeadSvd;
  /**
   * Only when asked for (`--qk-attribution L.H`): head (layer, head)'s scaled scores s_ij at query
   * i = `position`, split exactly over pairs (query-side source, key-side source) with the
   * normalisation's scale frozen at the forward pass's value (core/qk_attribution.hpp, docs/own-model.md).
   */
  qk_attribution?: {
    layer: number;
    head: number;
    /** The query position i (the analysis's position). */
    position: number;
    /** S names: "embed", "pos" (learned or shortformer positions), "L{l}H{h}" for every earlier head, "bias". */
    sources: string[];
    /** [i + 1][S][S]: parts[j][a][b] = query-side source a against key-side source b, for key j ≤ i. */
    parts: number[][][];
    /** [i + 1]: s_ij = q_i·k_j/attn_scale as the forward pass computes it; Σ_{a,b} parts[j][a][b] = scores[j] to rounding. */
    scores: number[];
  };
}

/** Q-, K- and V-composition, ‖W_OV^e M^ℓ‖_F / (‖W_OV^e‖_F ‖M^ℓ‖_F), normalisation weights folded in. */
export interface TransformerComposition {
  /** L·H names "l.h", in row order. */
  heads: string[];
  /** (L·H) × (L·H), [later][earlier], in [0, 1]; 0 unless earlier's layer < later's. */
  q: number[][];
  k: number[][];
  v: number[][];
  /** The same score of random Gaussian matrices of the heads' shapes: mean and sample standard deviation over `samples` draws. */
  baseline: { mean: number; std: number; samples: number; seed: number };
}

/** The stream after the embedding (stage 0) and after each layer (stage l + 1) read through the final normalisation (σ recomputed) and W_U. */
export interface TransformerLogitLens {
  /** k tokens per position. */
  top: number;
  /** T: the token tracked at each position (the next prompt token; at the last, the model's top prediction). */
  answers: number[];
  /** (L + 1) × T probabilities of the answer. */
  answer_probability: number[][];
  /** (L + 1) × T: 0 = the answer is the stage's top token. */
  answer_rank: number[][];
  /** [L + 1] T × k token ids, most probable first. */
  top_tokens: number[][][];
  /** [L + 1] T × k their probabilities. */
  top_probability: number[][][];
}

/** One token-space reading of the top singular directions: `top` tokens per direction, largest value first. */
export interface TransformerTokenReading {
  /** directions × top token ids. */
  tokens: number[][];
  /** directions × top values. */
  values: number[][];
}

/** Singular values of each head's OV and QK matrices, their top directions in token space, and the OV copying score. */
export interface TransformerHeadSvd {
  directions: number;
  top: number;
  /** [L][H] */
  heads: {
    /** d_head values, descending. */
    ov_singular_values: number[];
    qk_singular_values: number[];
    /** Σ max(Re λ, 0) / Σ |λ| over the eigenvalues of W_E W_OV W_U, in [0, 1]. */
    copying: number;
    /** d_head [re, im], largest |λ| first. */
    ov_eigenvalues: [number, number][];
    /** W_E u: tokens the head reads along each OV input direction. */
    ov_input: TransformerTokenReading;
    /** v W_U: logits each OV output direction raises. */
    ov_output: TransformerTokenReading;
    /** W_E u and W_E v of the QK directions. */
    qk_query: TransformerTokenReading;
    qk_key: TransformerTokenReading;
  }[][];
}

/**
 * A recorded training run (`headlab model train --history-out`, formats/transformer_json.hpp): every
 * `every` steps the scores of `score_sequences` repeated random sequences from the seed, step 0 first.
 */
export interface TrainingHistory {
  task: 'induction';
  seed: number;
  steps: number;
  batch: number;
  learning_rate: number;
  weight_decay: number;
  every: number;
  score_sequences: number;
  points: {
    step: number;
    /** The last step's training loss (nats); absent at step 0. */
    loss?: number;
    in_context_loss: number;
    /** L × H attention masses. */
    previous_token: number[][];
    induction: number[][];
  }[];
}
