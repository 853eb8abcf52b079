// The raw embind modules: what the Emscripten loaders (build/wasm/web/headlab_*.mjs, declared in
// web/wasm-*-module.d.ts) resolve to, as web/bindings/*.cpp register them. Only web/<concept>.js
// touches these; everything else sees the wrapped cores of web/headlab-core.d.ts. Each member's
// name and argument count is what its EMSCRIPTEN_BINDINGS block registers, and every registered
// function, class and method is declared here: tests/wasm/embind-declarations.test.mjs loads each
// module and holds the two to each other. The value types are the wrapped cores' (a binding's
// answer is what its wrapper returns, or the JSON text it parses) rather than restated.
import type {
  AttentionInput,
  AttentionResult,
  FeatureRecoveryCore,
  FeatureRecoveryEvaluation,
  FeatureRecoveryExample,
  FeatureRecoveryHeldOutInput,
  FeatureRecoveryInterventionInput,
  FeatureRecoveryInterventionResult,
  FeatureRecoveryProgress,
  FeatureRecoverySettings,
  FeatureRecoverySettingsInput,
  FeatureRecoverySnapshot,
  HeadlabCore,
  Matrix,
  MaxDigitCore,
  MaxDigitTrainer,
  MaxDigitTrainingSettings,
  MaxDigitWeights,
  ModuleOptions,
  TokenizedText,
  TrainingProgress,
  DivergenceProgress,
  TransformerCore,
  TransformerHeadLosses,
  TransformerInductionScores,
  TransformerPairsRequest,
  TransformerQkAttributionTable,
  TransformerRunOptions,
  TransformerTrainingSettings,
} from './headlab-core.js';

/** A binding's answer: the value, or { error } with the C++ message (web/errors.js unwrap throws it). */
export type Checked<T> = T | { error: string };

/** A factory of a loader: instantiates its module with `options`. */
export type ModuleFactory<M> = (options?: ModuleOptions) => Promise<M>;

/** An embind class_ object: garbage collection does not free it, delete() does. */
export interface EmbindHandle {
  delete(): void;
}

/** The return type of the wrapped core's member `K` of `Core`. */
type Answer<Core, K extends keyof Core> = Core[K] extends (...args: never[]) => infer R ? R : never;

/**
 * What every module registers (web/bindings/module_bindings.cpp), and the members of the Emscripten
 * runtime web/module.js reads for memoryDiagnostics().
 */
export interface EmbindModule {
  version(): string;
  /** Bytes of C++ heap in use (mallinfo().uordblks). */
  heap_bytes_in_use(): number;
  /** Bytes copied from JS typed arrays into the heap since the module started. */
  bytes_copied_in(): number;
  /** Live emval handles (embind's runtime). */
  count_emval_handles(): number;
  /** The linear memory as bytes (its buffer's size is the memory size). */
  readonly HEAP8: Int8Array;
}

/** headlab_core (web/bindings/attention_bindings.cpp), wrapped by web/attention.js. */
export interface HeadlabCoreModule extends EmbindModule {
  attention_forward(input: AttentionInput): Checked<AttentionResult>;
  swap_projection_coordinates(w: Matrix, a: number, b: number): Checked<Matrix>;
  rotate_query_key(q: Matrix, k: Matrix, rotation: Matrix): Checked<Answer<HeadlabCore, 'rotateQueryKey'>>;
  plane_rotation(d: number, a: number, b: number, angle: number): Checked<Matrix>;
  change_query_key_basis(q: Matrix, k: Matrix, a: Matrix): Checked<Answer<HeadlabCore, 'changeQueryKeyBasis'>>;
  query_key_picture(q: Matrix, k: Matrix, v: Matrix, scoreScale: number): Checked<Answer<HeadlabCore, 'queryKeyPicture'>>;
}

/** The feature-recovery trainer handle (FeatureRecoveryTrainer in web/feature-recovery.js owns it). */
export interface FeatureRecoveryTrainerHandle extends EmbindHandle {
  start(settings: FeatureRecoverySettingsInput): Checked<{ progress: FeatureRecoveryProgress; settings: FeatureRecoverySettings }>;
  step(n: number): Checked<FeatureRecoveryProgress>;
  stop(): Checked<FeatureRecoveryProgress>;
  snapshot(): Checked<FeatureRecoverySnapshot>;
  evaluate(): Checked<FeatureRecoveryEvaluation>;
  /** results.json text. */
  result(): Checked<string>;
}

/** The feature-recovery model handle (FeatureRecoveryModel in web/feature-recovery.js owns it). */
export interface FeatureRecoveryModelHandle extends EmbindHandle {
  load(input: FeatureRecoveryHeldOutInput & { fixed_keys?: Matrix }): Checked<unknown>;
  load_trainer(trainer: FeatureRecoveryTrainerHandle): Checked<unknown>;
  evaluate(): Checked<FeatureRecoveryEvaluation>;
  intervene(input: Omit<FeatureRecoveryInterventionInput, keyof FeatureRecoveryHeldOutInput>): Checked<FeatureRecoveryInterventionResult>;
  example(input: { index?: number; keys?: Matrix }): Checked<FeatureRecoveryExample>;
  settings(): Checked<FeatureRecoverySettings>;
}

/** headlab_feature_recovery (web/bindings/feature_recovery_bindings.cpp), wrapped by web/feature-recovery.js. */
export interface FeatureRecoveryModule extends EmbindModule {
  FeatureRecoveryTrainerHandle: new () => FeatureRecoveryTrainerHandle;
  FeatureRecoveryModelHandle: new () => FeatureRecoveryModelHandle;
  feature_recovery_live_models(): number;
  feature_recovery_live_trainers(): number;
  feature_recovery_task(input: { seed: number }): Checked<Answer<FeatureRecoveryCore, 'featureRecoveryTask'>>;
  feature_recovery_evaluate(input: FeatureRecoveryHeldOutInput): Checked<FeatureRecoveryEvaluation>;
  feature_recovery_intervene(input: FeatureRecoveryInterventionInput): Checked<FeatureRecoveryInterventionResult>;
  feature_recovery_example(input: Parameters<FeatureRecoveryCore['featureRecoveryExample']>[0]): Checked<FeatureRecoveryExample>;
  feature_recovery_replay_steps(steps: number, count: number): Checked<number[]>;
  feature_recovery_lost_directions(keys: Matrix): Checked<Matrix>;
}

/** The max-digit trainer handle (MaxDigitTrainer in web/max-digit.js owns it). */
export interface MaxDigitTrainerHandle extends EmbindHandle {
  start(settings: MaxDigitTrainingSettings): Checked<DivergenceProgress>;
  step(n: number): Checked<DivergenceProgress>;
  stop(): Checked<DivergenceProgress>;
  weights(): Checked<MaxDigitWeights>;
  result(): Checked<ReturnType<MaxDigitTrainer['result']>>;
}

/** The analyses of the max-digit core on weights given with the call (`Model`: the weights) or held by a handle (no first argument). */
interface MaxDigitAnalyses<Model extends unknown[]> {
  logits(...a: [...Model, digits: number[]]): Checked<Answer<MaxDigitCore, 'maxDigitLogits'>>;
  ans_attention(...a: [...Model, digits: number[]]): Checked<Matrix>;
  score_table(...a: Model): Checked<Matrix>;
  attention_by_max(...a: Model): Checked<Matrix[]>;
  patch(...a: [...Model, digits: number[], patches: { head: number; position: number }[]]): Checked<Answer<MaxDigitCore, 'maxDigitPatch'>>;
  ablation(...a: [...Model, heads: number[]]): Checked<Answer<MaxDigitCore, 'maxDigitAblation'>>;
  residual_free(...a: Model): Checked<Answer<MaxDigitCore, 'maxDigitResidualFree'>>;
  principal_directions(...a: [...Model, basis: string]): Checked<Answer<MaxDigitCore, 'maxDigitPrincipalDirections'>>;
  subspace_accuracy(...a: [...Model, basis: string, k: number]): Checked<Answer<MaxDigitCore, 'maxDigitSubspaceAccuracy'>>;
  cosine_top3(...a: Model): Checked<Matrix>;
  contributions(...a: [...Model, digits: number[], basis: string, k: number]): Checked<Answer<MaxDigitCore, 'maxDigitContributions'>>;
  angle_vs_dot(...a: [...Model, basis: string, k: number]): Checked<Answer<MaxDigitCore, 'maxDigitAngleVsDot'>>;
  /** analysis.json text. */
  analyze(...a: Model): Checked<string>;
  runner_up(...a: [...Model, maximum: number, runnerUp: number]): Checked<Answer<MaxDigitCore, 'maxDigitRunnerUp'>>;
  head_logits(...a: [...Model, digits: number[]]): Checked<Matrix>;
}

/** The max-digit model handle (MaxDigitModel in web/max-digit.js owns it): the analyses on the weights it holds. */
export interface MaxDigitModelHandle extends EmbindHandle, MaxDigitAnalyses<[]> {
  load(weights: MaxDigitWeights): Checked<unknown>;
}

/** The same analyses with the weights as the first argument, registered as max_digit_<name>. */
type MaxDigitFreeAnalyses = {
  [K in keyof MaxDigitAnalyses<[weights: MaxDigitWeights]> as `max_digit_${K}`]: MaxDigitAnalyses<[weights: MaxDigitWeights]>[K];
};

/** headlab_max_digit (web/bindings/max_digit_bindings.cpp), wrapped by web/max-digit.js. */
export interface MaxDigitModule extends EmbindModule, MaxDigitFreeAnalyses {
  MaxDigitTrainerHandle: new () => MaxDigitTrainerHandle;
  MaxDigitModelHandle: new () => MaxDigitModelHandle;
  max_digit_live_models(): number;
  max_digit_live_trainers(): number;
  /** Reads a weights file's text with its one reader. */
  max_digit_check_weights(text: string): Checked<MaxDigitWeights>;
  max_digit_train(settings: MaxDigitTrainingSettings): Checked<MaxDigitWeights>;
  max_digit_initial_weights(settings: MaxDigitTrainingSettings): Checked<MaxDigitWeights>;
}

/** A prompt as the bindings take it: text or token ids. */
type PromptArg = string | number[];

/** Numbers packed for web/transformer.js to view (run_to_js, analysis_to_js in transformer_bindings.cpp). */
type PackedNumbers = Record<string, unknown>;
/** The table as the binding gives it: parts T × T × S × S and scores T × T, row-major (web/transformer.js views them as Matrix values). */
type PackedQkAttributionTable = Omit<TransformerQkAttributionTable, 'parts' | 'scores'> & { parts: Float64Array; scores: Float64Array };

/** A weights file's bytes in the heap (WeightsBuffer in web/transformer.js owns it). */
export interface WeightsBytesHandle extends EmbindHandle {
  reserve(size: number): Checked<unknown>;
  write(bytes: Uint8Array, offset: number): Checked<unknown>;
}

/** A loaded transformer (TransformerModel in web/transformer.js owns it); JSON answers are the CLI documents' text. */
export interface TransformerModelHandle extends EmbindHandle {
  /** The config as read, as JSON text. */
  load(configText: string, bytes: Uint8Array): Checked<string>;
  load_buffer(configText: string, buffer: WeightsBytesHandle): Checked<string>;
  inspect(): Checked<string>;
  canonical(): Checked<{ config: string; safetensors: Uint8Array }>;
  /** `headlab model run`'s document text. */
  run(prompt: PromptArg, options: TransformerRunOptions | undefined): Checked<string>;
  /** `headlab model analyze`'s document text. */
  analyze(request: object): Checked<string>;
  batch_patching(request: TransformerPairsRequest): Checked<string>;
  path_patching(request: TransformerPairsRequest): Checked<string>;
  attribution_patching(request: TransformerPairsRequest): Checked<string>;
  faithfulness(request: TransformerPairsRequest): Checked<string>;
  batch_patching_start(request: TransformerPairsRequest): Checked<{ done: number; total: number }>;
  batch_patching_step(pairs: number): Checked<{ done: number; total: number }>;
  batch_patching_result(): Checked<string>;
  run_arrays(prompt: PromptArg, options: TransformerRunOptions | undefined): Checked<PackedNumbers>;
  head_losses(prompt: PromptArg, options: object | undefined): Checked<TransformerHeadLosses>;
  analyze_arrays(request: object): Checked<PackedNumbers>;
  clear_analysis_cache(): number;
  qk_attribution_table(prompt: PromptArg, layer: number, head: number): Checked<PackedQkAttributionTable>;
  tokenize(text: string): Checked<number[]>;
  induction_scores(sequences: number, seed: number): Checked<TransformerInductionScores>;
}

/** The induction task's trainer (TransformerTrainer in web/transformer.js owns it). */
export interface TransformerTrainerHandle extends EmbindHandle {
  /** settings.model: the config as JSON text. */
  start(settings: Omit<TransformerTrainingSettings, 'model'> & { model?: string }): Checked<TrainingProgress>;
  /** The settings filled in, the model's config as JSON text. */
  settings(): Checked<Record<string, unknown> & { model: string }>;
  step(n: number): Checked<DivergenceProgress>;
  stop(): Checked<TrainingProgress>;
  progress(): Checked<TrainingProgress>;
  scores(sequences: number, seed: number): Checked<TransformerInductionScores>;
  result(): Checked<{ config: string; safetensors: Uint8Array }>;
}

/** A tokenizer.json read by the core (Tokenizer in web/transformer.js owns it). */
export interface TokenizerHandle extends EmbindHandle {
  load(text: string): Checked<{ model: 'BPE' | 'WordLevel'; vocab_size: number }>;
  encode(text: string): Checked<TokenizedText>;
  encode_prompt(text: string, dVocab: number): Checked<TokenizedText>;
  token_names(dVocab: number): Checked<string[]>;
}

/** headlab_transformer (web/bindings/transformer_bindings.cpp), wrapped by web/transformer.js. */
export interface TransformerModule extends EmbindModule {
  WeightsBytesHandle: new () => WeightsBytesHandle;
  TransformerModelHandle: new () => TransformerModelHandle;
  TransformerTrainerHandle: new () => TransformerTrainerHandle;
  TokenizerHandle: new () => TokenizerHandle;
  transformer_live_handles(): number;
  /** The induction task's default config as JSON text. */
  transformer_induction_default_config(): string;
  transformer_layout(): Answer<TransformerCore, 'transformerLayout'>;
}
