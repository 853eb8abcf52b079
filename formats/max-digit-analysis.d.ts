// analysis.json and the cross-seed claims file: the TypeScript shapes of the JSON written by
// formats/max_digit_analysis.hpp (`headlab max-digit analyze / seeds`, and maxDigitAnalyze in
// the page). Fields: docs/max-digit-analysis.md.

export interface MaxDigitAccuracyRow {
  accuracy: number;
  correct: number;
  total: number;
  /** Accuracy over the lists whose maximum is m, m = 0…9. */
  accuracy_by_max: number[];
}

export interface MaxDigitLogitsAnswer {
  answer: number;
  /** 14 logits, one per token. */
  logits: number[];
}

export interface MaxDigitAnalysisFile {
  format_version: number;
  unit_norm_unembedding: boolean;
  evaluation: { lists: number; lists_by_max: number[] };
  accuracy: number;
  accuracy_by_max: number[];
  residual_free_accuracy: number;
  residual_free_accuracy_by_max: number[];
  residual_only_accuracy: number;
  /** Every non-empty subset of heads ablated. */
  head_ablation: (MaxDigitAccuracyRow & { heads: number[] })[];
  /** k = 1…8 principal directions of the W_O or W_U basis. */
  subspace_accuracy: { k: number[]; w_o: number[]; w_u: number[] };
  variance_explained: { w_o: number[]; w_u: number[] };
  /** 64 × 8 each: the top 8 directions. */
  principal_directions: { w_o: number[][]; w_u: number[][] };
  /** 3 × 3 */
  cosine_top3: number[][];
  /** 4 × 14 */
  scores: number[][];
  /** 4 × (10 × 14) */
  attention_by_max: number[][][];
  recruited_heads: number[][];
  patching: {
    digits: number[];
    position: number;
    original_answer: number;
    original_logits: number[];
    single_head: (MaxDigitLogitsAnswer & { head: number })[];
    all_heads: MaxDigitLogitsAnswer;
    pairs: (MaxDigitLogitsAnswer & { heads: [number, number] })[];
  };
  angle_vs_dot: {
    basis: 'w_o';
    k: number;
    /** 10 × k */
    mean_output: number[][];
    /** 10 × 10: [m][d] */
    cosine: number[][];
    dot: number[][];
    best_by_cosine: number[];
    best_by_dot: number[];
  };
  mechanism: MaxDigitMechanism;
  claims: MaxDigitClaims;
}

/** analysis.json "mechanism" (core/max_digit_analysis.hpp, struct Mechanism). */
export interface MaxDigitMechanism {
  score_slope: number[];
  score_monotone: boolean[];
  marker_gap: number[];
  embedding_norm: number[];
  unembedding_norm: number[];
  default_logits: number[];
  default_answer: number;
  default_answer_residual_free: number;
  one_hot_answer: number[];
  recruited_one_hot_answer: number[];
}

/** analysis.json "claims" and each row of the seeds file (struct SeedClaims). */
export interface MaxDigitClaims {
  accuracy: number;
  single_head_accuracy: number[];
  min_single_head_accuracy: number;
  single_heads_perfect: number;
  min_one_ablated_accuracy: number;
  directions_w_o: number;
  directions_w_u: number;
  angle_dot_agree: number;
  dot_correct: number;
  single_flips: number[];
  pair_flips: number[][];
  all_heads_answer: number;
  one_hot_exceptions: number[];
  default_answer: number;
  recruited_cells: number;
  scores_monotone: boolean;
  markers_below_digits: boolean;
}

/** The file `headlab max-digit seeds` writes (site/pages/data/max-digit-seeds-0-9.json). */
export interface MaxDigitSeedsFile {
  format_version: number;
  /** The shared recipe; each row differs only by its seed. */
  settings: {
    steps: number;
    batch_size: number;
    learning_rate: number;
    weight_decay: number;
    init_scale: number;
    unit_norm_unembedding: boolean;
  };
  seeds: { seed: number; final_batch_loss: number; claims: MaxDigitClaims }[];
}
