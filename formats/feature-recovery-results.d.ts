// results.json, format "headlab.feature-recovery.results/1": the TypeScript shape of the file
// written by formats/feature_recovery_results.hpp (`headlab feature-recovery`, and the trainer's
// result() in the page). Fields: docs/feature-recovery-results.md; schema:
// docs/feature-recovery-results.schema.json. Matrices are arrays of rows.

/** The run's settings as the file names them (version 1 keeps `batch` for the trainer's batch_size). */
export interface FeatureRecoveryResultsSettings {
  seed: number;
  steps: number;
  /** Fresh examples per step (the trainer setting batch_size). */
  batch: number;
  learning_rate: number;
  optimizer: 'adam';
  beta1: number;
  beta2: number;
  epsilon: number;
  init_scale: number;
  eval_size: number;
  request_scale: number;
  shift: number;
  learned_keys: boolean;
}

export interface FeatureRecoveryResults {
  format: 'headlab.feature-recovery.results/1';
  headlab_version: string;
  settings: FeatureRecoveryResultsSettings;
  /** Steps taken (the trainer's steps_taken): settings.steps, or fewer for a stopped run. */
  steps_done: number;
  /** True when the run was stopped before settings.steps (steps_done < settings.steps): a partial run, labelled so on the page and by the interventions widget. */
  partial: boolean;
  /** 4 × 3, the model's keys (the fixed tetrahedron unless settings.learned_keys). */
  fixed_keys: number[][];
  /** R, 9 × 9 orthogonal: x = z·R. */
  mixing: number[][];
  /** 9 × 3 each. */
  w_q: number[][];
  w_v: number[][];
  /** R·W_q and R·W_v, 9 × 3 each. */
  response_query: number[][];
  response_value: number[][];
  /** Training loss of every step taken. */
  loss_trace: number[];
  heldout_mse: number;
  uniform_attention_mse: number;
  query_r2: [number, number, number];
  value_r2: [number, number, number];
  interventions: {
    /** MSE against the kept target after erasing request feature j. */
    erase_request: [number, number, number];
    /** MSE against the kept target after erasing payload feature j from every record. */
    erase_payload: [number, number, number];
    /** MSE between the predictions before and after shifting every irrelevant coordinate. */
    irrelevant_shift_mse: number;
  };
  /** Wall time of the training steps, seconds (the one field that differs between identical runs). */
  train_seconds: number;
}
