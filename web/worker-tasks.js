// The tasks the worker can run, by kind (the worker task of docs/model-pattern.md). Each concept adds one entry:
//   kind: async (core, params, { progress, shouldStop, yieldToEvents }) => resultValue
// for headlab_core, or kind: { module: 'feature-recovery' | 'max-digit' | 'transformer', run: async (moduleCore, params, …) => … }
// for headlab_feature_recovery, headlab_max_digit and headlab_transformer.
// A task does its work in chunks, calling progress(...) and awaiting yieldToEvents()
// between chunks, and returns early (with what it has) once shouldStop() is true. A task may call
// transfer(buffers) with ArrayBuffers its result holds: they are moved to the page, not copied.
// A training task follows the trainer protocol: params { settings, chunk? }, progress messages
// { steps_taken, steps_total, loss, … }, and as result the model's file format as an object.
import { HeadlabError } from './errors.js';
import { featureRecoveryRun } from './feature-recovery.js';

/** Steps per progress message when the caller gives none: 60 updates over the default 1,200 steps. */
const FEATURE_RECOVERY_DEFAULT_CHUNK = 20;
/** Max-digit steps per progress message: ≈ 40 ms of WASM work (4,000 steps take ≈ 1.5 s), 40 updates per run. */
const MAX_DIGIT_DEFAULT_CHUNK = 100;
/** Induction-task steps per progress message: the CLI's score interval, 50 messages over the default 2,500 steps. */
const TRANSFORMER_DEFAULT_CHUNK = 50;
/** Repeated random sequences behind each message's scores: as many as the CLI's check every 50 steps. */
const TRANSFORMER_DEFAULT_SCORE_SEQUENCES = 16;
/**
 * Prompt pairs per step of 'transformer-batch-patching' when the caller gives none: a pair of the
 * shipped induction model is ≈ 4 ms of WASM work (bench/batch-patching.bench.mjs), so a step is
 * ≈ 30 ms and a stop waits at most that long (the intervals at the end are one step of their own).
 */
const BATCH_PATCHING_DEFAULT_CHUNK = 8;

/**
 * The one training loop of the worker's training tasks (the trainer protocol, docs/model-pattern.md):
 * `chunk` steps of `trainer` at a time until it is done or the page asks to stop, report(progress)
 * after every chunk (it may throw: a diverged run's message). Before each chunk the loop gives the
 * worker's queued messages their turn (a stop; a figure's request to a model this worker keeps),
 * waiting so that a chunk starts at least paceMs after the one before (0: no wait). Returns the
 * last progress; its `done` is false when the page stopped the run.
 */
async function trainInChunks(trainer, chunk, { shouldStop, yieldToEvents }, report, paceMs = 0) {
  if (!Number.isInteger(chunk) || chunk < 1) throw new HeadlabError(`chunk must be an integer ≥ 1, got ${chunk}`);
  let p = trainer.progress;
  let started = -Infinity;
  while (!p.done) {
    const wait = paceMs - (performance.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    else await yieldToEvents();
    if (shouldStop()) break;
    started = performance.now();
    p = trainer.step(chunk);
    report(p);
  }
  return p;
}

/** A progress message of 'transformer-train': the trainer protocol's fields and the scores of the current weights. */
function transformerProgress(trainer, p, sequences) {
  const s = trainer.scores(sequences);
  return {
    steps_taken: p.steps_taken,
    steps_total: p.steps_total,
    loss: p.loss,
    in_context_loss: s.in_context_loss,
    previous_token: s.previous_token,
    induction: s.induction,
  };
}

/**
 * The models 'transformer-load' and 'transformer-analyze' keep by id: at most one (the worker of a
 * model source holds the model its figures read; a model read after it replaces it).
 */
const keptTransformers = new Map();
function keepTransformer(id, model) {
  for (const m of keptTransformers.values()) if (m !== model) m.dispose();
  keptTransformers.clear();
  keptTransformers.set(id, model);
}

/** Bytes of a weights Blob read and written into the module's heap at a time (readWeights). */
const WEIGHTS_CHUNK_BYTES = 8 << 20;

/**
 * The weights a transformer task reads: params.safetensors (bytes: Uint8Array or ArrayBuffer) as
 * they are, or params.weights (a Blob: a File the reader dropped or picked, or the bytes a page
 * downloaded or trained, which the page holds only as a Blob) streamed into a WeightsBuffer in the
 * module's heap WEIGHTS_CHUNK_BYTES at a time: the heap then holds the file's only copy, which the
 * core reads in place (F32 embeddings stay float32 there), and neither this worker nor the page
 * holds the whole file as an ArrayBuffer. progress({ weights_read, weights_total }) after each chunk.
 */
async function readWeights(core, params, progress = () => {}) {
  const blob = params?.weights;
  if (blob === undefined || blob === null) return { bytes: params?.safetensors, dispose: () => {} };
  if (typeof Blob === 'undefined' || !(blob instanceof Blob)) throw new HeadlabError('weights must be a Blob (a File of the weights)');
  const buffer = core.transformerWeightsBuffer(blob.size);
  try {
    let at = 0;
    progress({ weights_read: 0, weights_total: blob.size });
    for (; at < blob.size;) {
      const chunk = new Uint8Array(await blob.slice(at, Math.min(blob.size, at + WEIGHTS_CHUNK_BYTES)).arrayBuffer());
      if (chunk.length === 0) break;
      buffer.write(chunk, at);
      at += chunk.length;
      progress({ weights_read: at, weights_total: blob.size });
    }
    if (at !== blob.size)
      throw new HeadlabError(`the weights file ended after ${at} of its ${blob.size} bytes (it changed while it was read)`);
  } catch (err) {
    buffer.dispose();
    throw err;
  }
  return { bytes: buffer, dispose: () => buffer.dispose() };
}

/** The core's reading of params.config with the weights of readWeights (the buffer freed once read). */
async function loadTransformerFrom(core, params, progress) {
  const weights = await readWeights(core, params, progress);
  try {
    return core.loadTransformer(params?.config, weights.bytes);
  } finally {
    weights.dispose();
  }
}

/**
 * The model a transformer task reads: without params.model the files, read for this task (the
 * caller disposes it); with it and the files (config with safetensors or weights), read and kept as
 * that id; with the id alone, the model kept under it.
 */
async function transformerOf(core, params) {
  const id = params?.model;
  if (id !== undefined && typeof id !== 'string') throw new HeadlabError(`model must be an id string, got ${typeof id}`);
  if (params?.config !== undefined || params?.safetensors !== undefined || params?.weights !== undefined || id === undefined) {
    const model = await loadTransformerFrom(core, params);
    if (id !== undefined) keepTransformer(id, model);
    return model;
  }
  const model = keptTransformers.get(id);
  if (!model) throw new HeadlabError(`model "${id}" is not kept in this worker; send its config and weights`);
  return model;
}

/**
 * The feature-recovery models 'feature-recovery-train' (keep_model) and 'feature-recovery-intervene'
 * keep by id: at most one (the worker of a <headlab-feature-recovery> holds its last run for the
 * figures reading it; the next run replaces it).
 */
const keptFeatureRecovery = new Map();
function keepFeatureRecovery(id, model) {
  for (const m of keptFeatureRecovery.values()) if (m !== model) m.dispose();
  keptFeatureRecovery.clear();
  keptFeatureRecovery.set(id, model);
}

/** The model kept as `id`; made from `run` ({ settings, w_q, w_v }) and kept when this worker does not hold it. */
function featureRecoveryModelOf(core, id, run) {
  if (typeof id !== 'string') throw new HeadlabError(`model must be an id string, got ${typeof id}`);
  const kept = keptFeatureRecovery.get(id);
  if (kept) return kept;
  if (!run) throw new HeadlabError(`model "${id}" is not kept in this worker; send its run`);
  const { seed, eval_size, request_scale, shift } = run.settings ?? {};
  const model = core.featureRecoveryModel({ seed, eval_size, request_scale, shift, w_q: run.w_q, w_v: run.w_v });
  keepFeatureRecovery(id, model);
  return model;
}

/**
 * The tokenizers 'transformer-load' and 'tokenizer-encode' keep by id: at most one (a page's
 * model element reads one tokenizer at a time in its own worker).
 */
const keptTokenizers = new Map();
function keepTokenizer(id, tokenizer) {
  for (const t of keptTokenizers.values()) if (t !== tokenizer) t.dispose();
  keptTokenizers.clear();
  keptTokenizers.set(id, tokenizer);
}

/**
 * Words of a vocabulary a default prompt is made of: letters only, three or more (after the one
 * leading space of a byte-level BPE token); two or more when fewer than two tokens have three.
 */
const PROMPT_WORDS = { BPE: [/^ [A-Za-z]{3,}$/, /^ [A-Za-z]{2,}$/], WordLevel: [/^[A-Za-z]{3,}$/, /^[A-Za-z]{2,}$/] };

/**
 * A default prompt for a model with a tokenizer that reads as text: k = min(6, ⌊n_ctx / 2⌋)
 * distinct words of the vocabulary (the first ids below d_vocab whose text is a word, PROMPT_WORDS),
 * repeated to min(n_ctx − 1, 64) tokens and written as text (a byte-level BPE's words carry their leading
 * space; WordLevel's are joined by spaces), the text trimmed as a prompt field trims it. Its ids
 * are the tokenizer's encoding of that text, so the text typed back gives the same prompt; words
 * are dropped from the end while the encoding is longer than n_ctx − 1 (a first word without its
 * space may be two tokens). Null when fewer than two words qualify or an id of the encoding is
 * d_vocab or more: the figures then use the block of ids (widgets/transformer/widget.ts, defaultPrompt).
 * Returns { text, ids, texts } (texts: each token's text, as encode() gives them).
 */
function textPrompt(tokenizer, names, nCtx) {
  const k = Math.max(1, Math.min(6, Math.floor(nCtx / 2)));
  let words = [];
  for (const pattern of PROMPT_WORDS[tokenizer.model] ?? []) {
    words = [];
    for (let id = 0; id < names.length && words.length < k; id++) if (pattern.test(names[id])) words.push(names[id]);
    if (words.length >= 2) break;
  }
  if (words.length < 2) return null;
  // min(n_ctx − 1, 64) tokens: defaultPromptLength in widgets/transformer/widget.ts.
  const length = Math.max(1, Math.min(64, nCtx > 2 ? nCtx - 1 : nCtx));
  for (let count = length; count >= 1;) {
    const chosen = Array.from({ length: count }, (_, i) => words[i % words.length]);
    const text = (tokenizer.model === 'BPE' ? chosen.join('') : chosen.join(' ')).trim();
    const encoded = tokenizer.encode(text);
    if (encoded.ids.some((id) => id >= names.length)) return null;
    if (encoded.ids.length <= length) return { text, ids: encoded.ids, texts: encoded.texts };
    count -= encoded.ids.length - length;
  }
  return null;
}

/**
 * What the page needs of a tokenizer read in the worker (task 'transformer-load'), without reading
 * it itself: its kind and size, every id's name for the model's d_vocab (the CLI documents'
 * token_names) and the default prompt as text (textPrompt).
 */
function tokenizerSummary(tokenizer, dVocab, nCtx) {
  const names = tokenizer.tokenNames(dVocab);
  return {
    model: tokenizer.model,
    vocab_size: tokenizer.vocabSize,
    token_names: names,
    default_prompt: textPrompt(tokenizer, names, nCtx),
  };
}

export const workerTasks = {
  // Echo of the core version: lets tests check the worker pipeline itself.
  version: async (core) => core.version(),

  /**
   * Trains the feature-recovery model (web/feature-recovery.js).
   * params: { settings: FeatureRecoverySettingsInput, chunk?: steps per progress message
   *           (integer ≥ 1), pace_ms?: least milliseconds per chunk (0 = full speed; lets a
   *           reader watch the response maps form) }.
   * progress: { steps_taken, steps_total, loss, losses: Float64Array (the losses of this chunk's
   *             steps), response_query, response_value: Float64Array (9 × 3, row-major) }.
   * result: the run in memory (featureRecoveryRun: results.json's fields, docs/feature-recovery-results.md,
   *         with matrices as { rows, cols, data }; featureRecoveryResultsFile nests them for a file);
   *         on a stop, the results of the steps taken so far (its steps_done < settings.steps).
   *         With params.keep_model (an id string) the worker keeps the run as a FeatureRecoveryModel,
   *         made from the trainer in the heap, for the requests of 'feature-recovery-intervene'.
   */
  'feature-recovery-train': {
    module: 'feature-recovery',
    run: async (core, params, hooks) => {
      const chunk = params?.chunk ?? FEATURE_RECOVERY_DEFAULT_CHUNK;
      const paceMs = params?.pace_ms ?? 0;
      const keep = params?.keep_model;
      if (!(Number.isFinite(paceMs) && paceMs >= 0)) throw new HeadlabError(`pace_ms must be a finite number ≥ 0, got ${paceMs}`);
      if (keep !== undefined && typeof keep !== 'string') throw new HeadlabError(`keep_model must be an id string, got ${typeof keep}`);
      const trainer = core.createFeatureRecoveryTrainer(params?.settings ?? {});
      try {
        let reported = 0;
        // A diverged run ends done; result() below throws the core's message.
        const report = (p) => {
          const s = trainer.snapshot();
          hooks.progress({
            steps_taken: p.steps_taken,
            steps_total: p.steps_total,
            loss: p.loss,
            losses: s.loss_trace.slice(reported),
            response_query: s.response_query.data,
            response_value: s.response_value.data,
          });
          reported = p.steps_taken;
        };
        await trainInChunks(trainer, chunk, hooks, report, paceMs);
        trainer.stop();
        const run = featureRecoveryRun(trainer.result());
        if (keep !== undefined) keepFeatureRecovery(keep, trainer.model());
        return run;
      } finally {
        trainer.dispose();
      }
    },
  },

  /**
   * A training replay of the feature-recovery model: trains with `settings` and keeps a
   * snapshot at each of core.featureRecoveryReplaySteps(steps, count) (0, then log-spaced,
   * dense early). Stepping from snapshot to snapshot gives the same bits as one run.
   * params: { settings: FeatureRecoverySettingsInput, count?: snapshots (2 … 400, default 48) }.
   * progress: { steps_taken, steps_total, loss }.
   * result: { settings, steps: number[] (snapshot steps kept), snapshots: [{ step, loss (of that
   *           step; null at step 0), w_q, w_v, response_query, response_value: Float64Array 9 × 3,
   *           keys: Float64Array 4 × 3, example: held-out example 0 traced through that snapshot
   *           (core featureRecoveryExample), computed here so the figure calls no core per snapshot }],
   *           loss_trace: Float64Array, diverged_at (1-based step, 0 = healthy), evaluation
   *           (core evaluate() of the final W_q, W_v; null when training diverged) }.
   *           A diverged run keeps only the snapshots before the divergence step.
   */
  'feature-recovery-replay': {
    module: 'feature-recovery',
    run: async (core, params, { progress, shouldStop, yieldToEvents }) => {
      const count = params?.count ?? 48;
      if (!Number.isInteger(count) || count < 2 || count > 400)
        throw new HeadlabError(`count must be an integer from 2 to 400, got ${count}`);
      const trainer = core.createFeatureRecoveryTrainer(params?.settings ?? {});
      const fixedKeys = params?.settings?.fixed_keys;
      try {
        const steps = trainer.settings.steps;
        const schedule = core.featureRecoveryReplaySteps(steps, count);
        const snapshots = [];
        let divergedAt = 0;
        for (const target of schedule) {
          if (shouldStop()) break;
          if (target > 0) {
            const p = trainer.step(target - trainer.progress.steps_taken);
            divergedAt = p.diverged_at;
            progress({ steps_taken: p.steps_taken, steps_total: p.steps_total, loss: p.loss });
            if (divergedAt) break;
          }
          const s = trainer.snapshot();
          // Example 0 is the first draw of the evaluation stream whatever the set's size, so a set
          // of 2 gives the example of the full held-out set without drawing the rest.
          const example = core.featureRecoveryExample({
            seed: s.settings.seed,
            request_scale: s.settings.request_scale,
            w_q: s.w_q,
            w_v: s.w_v,
            keys: s.keys,
            index: 0,
            eval_size: 2,
            ...(fixedKeys ? { fixed_keys: fixedKeys } : {}),
          });
          snapshots.push({
            step: s.steps_taken,
            loss: s.steps_taken > 0 ? s.loss_trace[s.steps_taken - 1] : null,
            w_q: s.w_q.data,
            w_v: s.w_v.data,
            keys: s.keys.data,
            response_query: s.response_query.data,
            response_value: s.response_value.data,
            example,
          });
          await yieldToEvents();
        }
        const last = trainer.snapshot();
        return {
          settings: trainer.settings,
          steps: snapshots.map((x) => x.step),
          snapshots,
          loss_trace: last.loss_trace,
          diverged_at: divergedAt,
          evaluation: divergedAt ? null : trainer.evaluate(),
        };
      } finally {
        trainer.dispose();
      }
    },
  },

  /**
   * One intervention on a trained feature-recovery run's held-out set (web/headlab-core.d.ts
   * FeatureRecoveryInterventionInput): the interventions figure's request to its source's worker,
   * one pass over the 4,096 held-out examples (about 3 ms of WASM), off the main thread so a typed
   * shift only draws there.
   * params: { model: id, run?: { settings, w_q, w_v }, intervention, feature?, shift, examples? }:
   *         the model kept under `model` (by 'feature-recovery-train' with keep_model, or by an
   *         earlier job of this task) answers, from its held-out set and clean prediction drawn
   *         once; `run` (a FeatureRecoveryRun's fields) makes and keeps it when this worker does
   *         not hold it. Without `model`: the free function on the params' own seed, w_q, w_v.
   * result: FeatureRecoveryInterventionResult (its matrices' buffers moved to the page).
   */
  'feature-recovery-intervene': {
    module: 'feature-recovery',
    run: async (core, params, { transfer = () => {} } = {}) => {
      let r;
      if (params?.model === undefined) r = core.featureRecoveryIntervene(params ?? {});
      else {
        const { model: id, run, ...request } = params;
        r = featureRecoveryModelOf(core, id, run).intervene(request);
      }
      transfer([r.before.data.buffer, r.after.data.buffer, r.target.data.buffer]);
      return r;
    },
  },

  /**
   * Checks a max-digit weights file's text and analyses the weights: what a page does when it
   * loads its model, kept off the main thread (the analysis evaluates 111,110 lists).
   * params: { text: the weights file (docs/max-digit-weights.md) }.
   * result: { weights, analysis, seed } — the checked weights, the analysis.json object
   *         (docs/max-digit-analysis.md) and the file's training.seed (null when absent).
   * A file the reader rejects fails with "is not a max-digit weights file: <reason>".
   */
  'max-digit-load': {
    module: 'max-digit',
    run: async (core, params) => {
      const text = params?.text;
      if (typeof text !== 'string') throw new HeadlabError(`text must be the weights file as a string, got ${typeof text}`);
      let weights;
      try {
        weights = core.maxDigitWeightsFromJson(text);
      } catch (err) {
        throw new HeadlabError(`is not a max-digit weights file: ${err?.message ?? err}`);
      }
      // training.seed is informative and optional; the reader has accepted the text as JSON.
      const seed = JSON.parse(text)?.training?.seed;
      return { weights, analysis: core.maxDigitAnalyze(weights), seed: typeof seed === 'number' ? seed : null };
    },
  },

  /**
   * Trains the max-digit transformer (web/max-digit.js) and analyses the result.
   * params: { settings: MaxDigitTrainingSettings, chunk?: steps per progress message (integer ≥ 1) }.
   * progress: { steps_taken, steps_total, loss } (loss: mean cross-entropy of the last batch, nats).
   * result: { progress, weights, analysis } — weights (docs/max-digit-weights.md) and the
   *         analysis.json object (docs/max-digit-analysis.md) of the finished run; on a stop,
   *         weights and analysis are null (a half-trained model is not offered to the page).
   */
  'max-digit-train': {
    module: 'max-digit',
    run: async (core, params, hooks) => {
      const chunk = params?.chunk ?? MAX_DIGIT_DEFAULT_CHUNK;
      const trainer = core.createMaxDigitTrainer(params?.settings ?? {});
      try {
        const p = await trainInChunks(trainer, chunk, hooks, (q) => {
          if (q.diverged_at) throw new HeadlabError(q.divergence);
          hooks.progress({ steps_taken: q.steps_taken, steps_total: q.steps_total, loss: q.loss });
        });
        if (!p.done) return { progress: p, weights: null, analysis: null };
        const weights = trainer.weights();
        return { progress: p, weights, analysis: core.maxDigitAnalyze(weights) };
      } finally {
        trainer.dispose();
      }
    },
  },

  /**
   * Trains an attention-only transformer on the induction task (web/transformer.js), reporting
   * the scores that show the phase change (docs/own-model.md, "Training without PyTorch").
   * params: { settings?: TransformerTrainingSettings, chunk?: steps per progress message (integer ≥ 1,
   *           default 50), score_sequences?: sequences behind each message's scores (integer in [1, 1000], default 16) }.
   * progress: { steps_taken, steps_total, loss, in_context_loss, previous_token: L × H, induction: L × H }
   *           once before the first step and after every chunk (scores: seed settings.seed, as the CLI's).
   * result: { config: model.json text, safetensors: Uint8Array, progress } of the weights when training
   *         ended — all steps, or those taken before a stop (between chunks).
   */
  'transformer-train': {
    module: 'transformer',
    run: async (core, params, hooks) => {
      const chunk = params?.chunk ?? TRANSFORMER_DEFAULT_CHUNK;
      const sequences = params?.score_sequences ?? TRANSFORMER_DEFAULT_SCORE_SEQUENCES;
      if (!Number.isInteger(chunk) || chunk < 1) throw new HeadlabError(`chunk must be an integer ≥ 1, got ${chunk}`);
      if (!Number.isInteger(sequences) || sequences < 1 || sequences > 1000) {
        throw new HeadlabError(`score_sequences must be an integer from 1 to 1000, got ${sequences}`);
      }
      const trainer = core.createTransformerTrainer(params?.settings ?? {});
      try {
        hooks.progress(transformerProgress(trainer, trainer.progress, sequences));
        await trainInChunks(trainer, chunk, hooks, (p) => {
          // A diverged run ends with a message naming the step, not with weights its reader refuses.
          if (p.diverged_at) throw new HeadlabError(p.divergence);
          hooks.progress(transformerProgress(trainer, p, sequences));
        });
        trainer.stop();
        return trainer.result();
      } finally {
        trainer.dispose();
      }
    },
  },

  /**
   * Analyses or runs a model off the main thread (a larger model's patching and ablation take a
   * while; the figures keep every core call that depends on the reader's input here, so the page
   * only draws: docs/limits.md, "Main-thread tasks").
   * params: { model?: an id (string) under which this worker keeps the model between tasks,
   *           config?: model.json text, safetensors?: Uint8Array | ArrayBuffer, request?: TransformerAnalysisRequest,
   *           run?: { prompt: token ids, options?: TransformerRunOptions } }.
   *   Without `model`: the files are read, used and released (every task pays the read).
   *   With `model` and the files: read and kept as that id (the model kept before is released: one
   *   per worker, as one figure owns its worker), then used. With `model` alone: the model kept under
   *   that id, its analysis cache included (core AnalysisCache: induction scores, in-context loss
   *   and ablation losses computed once per (sequences, seed, ablation)), so a new prompt pays only
   *   for what reads it; "is not kept in this worker" when it is not there.
   * result: { inspection, analysis, run } — `headlab model inspect`, (with a request) `headlab model analyze`
   *         and (with run) `headlab model run [--ablate …]` as web/transformer.js gives them (large
   *         matrices as Matrix values viewing one buffer, moved to the page, not copied: core.transferOf);
   *         analysis and run null when not asked. A rejected file, request or prompt fails with the core's message.
   */
  'transformer-analyze': {
    module: 'transformer',
    run: async (core, params, { transfer = () => {} } = {}) => {
      const model = await transformerOf(core, params);
      try {
        const run = params?.run == null ? null : model.run(params.run.prompt, params.run.options);
        const analysis = params?.request == null ? null : model.analyze(params.request);
        transfer([...core.transferOf(run), ...core.transferOf(analysis)]);
        return { inspection: model.inspect(), analysis, run };
      } finally {
        if (params?.model === undefined) model.dispose();
      }
    },
  },

  /**
   * Activation patching over a batch of prompt pairs, with intervals (core/batch_patching.hpp), a
   * few pairs per step so the page shows progress and can stop it.
   * params: { model?, config?, safetensors? (as 'transformer-analyze'), request: TransformerPairsRequest
   *           ({ pairs: file text } or { task, count?, pairs_seed? }, with resamples?, permutations?, seed?),
   *           chunk?: pairs per step (integer in [1, 1024], default BATCH_PATCHING_DEFAULT_CHUNK) }.
   * progress: { pairs_done, pairs_total } after the request is checked and after every step.
   * result: `headlab model analyze --pairs`'s document as an object, the same bits as the CLI; or
   *         null when stopped between steps (nothing half-computed is returned). A bad request, pair
   *         or setting fails with the core's message before any pair is patched.
   */
  'transformer-batch-patching': {
    module: 'transformer',
    run: async (core, params, { progress = () => {}, shouldStop = () => false, yieldToEvents = async () => {} } = {}) => {
      const chunk = params?.chunk ?? BATCH_PATCHING_DEFAULT_CHUNK;
      if (!Number.isInteger(chunk) || chunk < 1 || chunk > 1024) {
        throw new HeadlabError(`chunk must be an integer from 1 to 1024, got ${chunk}`);
      }
      const model = await transformerOf(core, params);
      try {
        let p = model.batchPatchingStart(params?.request);
        progress({ pairs_done: p.done, pairs_total: p.total });
        while (p.done < p.total) {
          await yieldToEvents();
          if (shouldStop()) return null;
          p = model.batchPatchingStep(chunk);
          progress({ pairs_done: p.done, pairs_total: p.total });
        }
        await yieldToEvents();
        if (shouldStop()) return null;
        return model.batchPatchingResult();
      } finally {
        if (params?.model === undefined) model.dispose();
      }
    },
  },

  /**
   * Path patching over a batch of prompt pairs (core/path_patching.hpp: sender head → each later
   * receiver's q, k, v), with intervals, in one call (the shipped induction model's 64 pairs take
   * ≈ 100 ms of WASM work: bench/batch-patching.bench.mjs).
   * params: { model?, config?, safetensors? (as 'transformer-analyze'), request: TransformerPairsRequest }.
   * result: `headlab model analyze --path-patching`'s document as an object, the same bits as the CLI.
   * A bad request or pair, or a one-layer model, fails with the core's message.
   */
  'transformer-path-patching': {
    module: 'transformer',
    run: async (core, params) => {
      const model = await transformerOf(core, params);
      try {
        return model.pathPatching(params?.request);
      } finally {
        if (params?.model === undefined) model.dispose();
      }
    },
  },

  /**
   * Circuit faithfulness over a batch of prompt pairs (core/circuit_faithfulness.hpp): the share of
   * the clean-vs-corrupted logit difference the circuit's heads recover with every other head
   * replaced (corrupted run or mean), its interval, and the same without each circuit head, in one
   * call (the shipped induction model's 64 pairs: ≈ 15 ms of WASM work for a two-head circuit, 45 ms for all 8 heads,
   * bench/batch-patching.bench.mjs).
   * params: { model?, config?, safetensors? (as 'transformer-analyze'), request: TransformerFaithfulnessRequest }.
   * result: `headlab model analyze --faithfulness`'s document as an object, the same bits as the CLI.
   * A bad request, pair or circuit (empty, a head twice, a head the model lacks) fails with the core's message.
   */
  'transformer-faithfulness': {
    module: 'transformer',
    run: async (core, params) => {
      const model = await transformerOf(core, params);
      try {
        return model.faithfulness(params?.request);
      } finally {
        if (params?.model === undefined) model.dispose();
      }
    },
  },

  /**
   * Attribution patching over a batch of prompt pairs (core/attribution_patching.hpp): every head's
   * and every edge's (sender → receiver's q, k, v) first-order estimate beside the real patch, and
   * their agreement, in one call (the core's pairs are not resumable between calls; the shipped
   * induction model's 64 pairs take 0.14–0.5 s of WASM work, over a second in a fresh worker's
   * first call: the real patches beside the estimates are path patching's cost). progress: { pairs_done: 0,
   * pairs_total: N } once the request is read (N: the pairs file's length or the task's count),
   * then { pairs_done: N, pairs_total: N } with the result.
   * params: { model?, config?, safetensors? (as 'transformer-analyze'), request: TransformerPairsRequest
   *           ({ pairs } or { task, count?, pairs_seed? }; resamples, permutations and seed are refused) }.
   * result: `headlab model analyze --attribution-patching`'s document as an object, the same bits as
   *         the CLI. A bad request or pair fails with the core's message; nothing half-computed is returned.
   */
  'transformer-attribution-patching': {
    module: 'transformer',
    run: async (core, params, { progress = () => {} } = {}) => {
      const model = await transformerOf(core, params);
      try {
        const request = params?.request;
        const total = typeof request?.pairs === 'string' ? null : (request?.count ?? 64);
        if (Number.isInteger(total)) progress({ pairs_done: 0, pairs_total: total });
        const doc = model.attributionPatching(request);
        progress({ pairs_done: doc.pairs, pairs_total: doc.pairs });
        return doc;
      } finally {
        if (params?.model === undefined) model.dispose();
      }
    },
  },

  /**
   * A prompt's next-token loss with each head ablated alone (TransformerModel.headLosses, `headlab model
   * run --head-losses`): mean ablation averages each head's output over the author's reference
   * sequences, or over repeated random sequences (the first pass is ~20 ms in WASM).
   * params: { model?, config?, safetensors? (as 'transformer-analyze'), prompt, options?: { mode?, sequences?, seed?, reference? } }.
   * result: TransformerHeadLosses.
   */
  'transformer-head-losses': {
    module: 'transformer',
    run: async (core, params) => {
      const model = await transformerOf(core, params);
      try {
        return model.headLosses(params?.prompt, params?.options);
      } finally {
        if (params?.model === undefined) model.dispose();
      }
    },
  },

  /**
   * One head's QK attribution for every query of a prompt (TransformerModel.qkAttributionTable):
   * the T × T table a <headlab-qk-attribution> reads a clicked cell from without another task.
   * params: { model?, config?, safetensors? (as 'transformer-analyze'), prompt: token ids, layer, head }.
   * result: { layer, head, positions, sources, parts: [T][T] S × S Matrix, scores: T × T Matrix }
   *         (their two buffers moved to the page: core.transferOf). A bad head, layer or prompt fails with the core's message.
   */
  'transformer-qk-attribution': {
    module: 'transformer',
    run: async (core, params, { transfer = () => {} } = {}) => {
      const model = await transformerOf(core, params);
      try {
        const table = model.qkAttributionTable(params?.prompt, params?.layer, params?.head);
        transfer(core.transferOf(table));
        return table;
      } finally {
        if (params?.model === undefined) model.dispose();
      }
    },
  },

  /**
   * Reads an author's model off the main thread: what a <headlab-transformer-model> does with the
   * files it downloaded or the reader opened (or a model handed over from the page). The core reads
   * both files (every name, shape and dtype checked before any value is converted; then every
   * value) within its own limits (core/transformer.hpp; docs/limits.md). The page gets the config
   * and the counts, never the weights: the model stays here (keep_model) and every figure asks this
   * worker for what it draws.
   * params: { config: model.json text, weights: Blob (the weights file: safetensors or a torch.save
   *           checkpoint, by its first bytes; streamed into the module's heap in chunks, readWeights)
   *           or safetensors: Uint8Array | ArrayBuffer (the same bytes), tokenizer?: tokenizer.json
   *           text, keep_tokenizer?: an id under which this worker keeps the tokenizer read
   *           ('tokenizer-encode' then encodes with it), keep_model?: an id under which the model is
   *           kept for the tasks that name it }.
   * progress: { weights_read, weights_total } (bytes) while a Blob is streamed into the heap.
   * result: { config: the config as the core read it (TransformerModel.config: every field filled
   *           in), parameters: scalar parameter count, bytes: the weights file's size,
   *           tokenizer?: tokenizerSummary (kind, size, token_names, default_prompt),
   *           tokenizer_failure?: the reader's message for a tokenizer it refused }. A refused
   *           model file fails with the core's message, and nothing is kept. The page never reads
   *           the tokenizer itself (GPT-2's tokenizer.json of 1.3 MB takes about 0.5 s to read).
   */
  'transformer-load': {
    module: 'transformer',
    run: async (core, params, { progress = () => {} } = {}) => {
      if (typeof params?.config !== 'string') throw new HeadlabError('the config must be the text of model.json');
      const keep = params.keep_model;
      if (keep !== undefined && typeof keep !== 'string') throw new HeadlabError(`keep_model must be an id string, got ${typeof keep}`);
      const model = await loadTransformerFrom(core, params, progress);
      let kept = false;
      try {
        const parameters = model.inspect().parameters;
        const bytes = params.weights?.size ?? params.safetensors?.byteLength ?? 0;
        const out = { config: model.config, parameters, bytes };
        // A tokenizer.json beside the model: read by the core here too, so a bad one is found off
        // the main thread; its refusal is answered (tokenizer_failure: the reader's message), not
        // thrown, as the page may keep the model it shows rather than fail.
        if (params.tokenizer != null) {
          let tokenizer = null;
          try {
            tokenizer = core.loadTokenizer(params.tokenizer);
          } catch (err) {
            if (!(err instanceof HeadlabError)) throw err;
            out.tokenizer_failure = err.message;
          }
          if (tokenizer) {
            out.tokenizer = tokenizerSummary(tokenizer, model.config.d_vocab, model.config.n_ctx);
            if (typeof params.keep_tokenizer === 'string') keepTokenizer(params.keep_tokenizer, tokenizer);
            else tokenizer.dispose();
          }
        }
        if (keep !== undefined) {
          keepTransformer(keep, model);
          kept = true;
        }
        return out;
      } finally {
        if (!kept) model.dispose();
      }
    },
  },

  /**
   * A prompt typed as token names or ids, read by the kept model's prompt reader (`headlab model
   * run --prompt` without a tokenizer: TransformerModel.tokenize), so the page needs no model of its own.
   * params: { model?, config?, weights? / safetensors? (as 'transformer-analyze'), texts: string[] }.
   * result: one entry per text: { ids } or { error: the core's message } for a text it refuses.
   */
  'transformer-tokenize': {
    module: 'transformer',
    run: async (core, params) => {
      if (!Array.isArray(params?.texts)) throw new HeadlabError('texts must be an array of strings');
      const model = await transformerOf(core, params);
      try {
        return params.texts.map((text) => {
          try {
            return { ids: model.tokenize(text) };
          } catch (err) {
            if (!(err instanceof HeadlabError)) throw err;
            return { error: err.message };
          }
        });
      } finally {
        if (params?.model === undefined) model.dispose();
      }
    },
  },

  /**
   * Encodes prompts with a tokenizer this worker keeps (TokenizerLink, widgets/transformer/model.ts):
   * the page's prompt fields are text, encoded here rather than on the page.
   * params: { tokenizer: the id it is kept under, text?: its tokenizer.json text (read and kept
   *           when this worker does not hold it: a new worker after the page ended the first),
   *           texts: string[], d_vocab: the model's vocabulary }.
   * result: one entry per text: encodePrompt(text, d_vocab)'s { ids, begins, ends, texts }, or
   *         { error: the core's message } for a text it refuses (no token, an id ≥ d_vocab).
   */
  'tokenizer-encode': {
    module: 'transformer',
    run: async (core, params) => {
      const id = params?.tokenizer;
      if (typeof id !== 'string') throw new HeadlabError('tokenizer must be the id of a kept tokenizer');
      let tokenizer = keptTokenizers.get(id);
      if (!tokenizer) {
        if (typeof params.text !== 'string') throw new HeadlabError(`tokenizer "${id}" is not kept in this worker; send its text`);
        tokenizer = core.loadTokenizer(params.text);
        keepTokenizer(id, tokenizer);
      }
      if (!Array.isArray(params.texts)) throw new HeadlabError('texts must be an array of strings');
      return params.texts.map((text) => {
        try {
          return tokenizer.encodePrompt(text, params.d_vocab);
        } catch (err) {
          if (!(err instanceof HeadlabError)) throw err;
          return { error: err.message };
        }
      });
    },
  },

  /** Releases the model kept under params.model ('transformer-analyze'); result: whether one was kept. */
  'transformer-release': {
    module: 'transformer',
    run: async (_core, params) => {
      const model = keptTransformers.get(params?.model);
      keptTransformers.delete(params?.model);
      model?.dispose();
      return model !== undefined;
    },
  },
};
