// The max-digit weights file: the TypeScript shape of the JSON read and written by
// formats/max_digit_weights.hpp (docs/max-digit-weights.md). Matrices are arrays of rows;
// in memory the JS layer holds them as { rows, cols, data: Float64Array } (MaxDigitWeights
// in web/headlab-core.d.ts).

export interface MaxDigitWeightsFile {
  /** 1 */
  format_version: number;
  /** ["0", …, "9", "PAD", "BOS", "SEP", "ANS"] */
  vocab: string[];
  /** 64 */
  d_model: number;
  /** 4 */
  n_heads: number;
  /** 16 */
  d_head: number;
  unit_norm_unembedding: boolean;
  /** The recipe that produced the weights (absent for weights made elsewhere). */
  training?: {
    seed: number;
    steps: number;
    batch_size: number;
    learning_rate: number;
    weight_decay: number;
    init_scale: number;
    /** Mean cross-entropy (nats) of the last training batch. */
    final_batch_loss: number;
  };
  /** 14 × 64 */
  E: number[][];
  /** 4 matrices 64 × 16 */
  W_Q: number[][][];
  W_K: number[][][];
  W_V: number[][][];
  /** 4 matrices 16 × 64 */
  W_O: number[][][];
  /** 64 × 14 */
  W_U: number[][];
}
