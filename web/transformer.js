// JS face of web/bindings/transformer_bindings.cpp: your own attention-only transformer
// (docs/own-model.md). inspect() parses the text its one C++ writer produces (the bytes `headlab
// model inspect` writes). run() and analyze() give the `headlab model run / analyze` documents'
// members with the same doubles, without a JSON text: the module hands over one Float64Array of
// every number (layout in transformer_bindings.cpp, analysis_to_js) and the large matrices (logits,
// patterns, patching, circuits, QK attribution) are Matrix values { rows, cols, data } whose data
// views it (stacks of them as arrays of Matrix, web/README.md), so a worker posts the analysis by
// moving one buffer (transferOf). The embind model and trainer handles never leave this file. Types:
// web/headlab-core.d.ts, formats/transformer.d.ts.
import { HeadlabError, unwrap } from './errors.js';
import { OwnedHandle, OwnedTrainer, live, started } from './owned-handle.js';
import { loadModule, moduleApi } from './module.js';

function bytesOf(source) {
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  throw new HeadlabError('the weights must be the safetensors file as a Uint8Array or an ArrayBuffer');
}

/** A prompt or request value as the bindings take it: arrays of ids pass as plain arrays. */
function promptArg(prompt) {
  if (typeof prompt === 'string' || Array.isArray(prompt)) return prompt;
  if (ArrayBuffer.isView(prompt)) return Array.from(prompt);
  throw new HeadlabError('prompt must be a string of tokens or an array of token ids');
}

/** The `rows` × `cols` Matrix stored row-major in `data` from `at`: its data a view, not a copy. */
function viewMatrix(data, at, rows, cols) {
  return { rows, cols, data: data.subarray(at, at + rows * cols) };
}

/** `count` such matrices stored one after another from `at`: a stack, as an array of Matrix. */
function viewStack(data, at, count, rows, cols) {
  return Array.from({ length: count }, (_, k) => viewMatrix(data, at + k * rows * cols, rows, cols));
}

/** The small L × H tables as plain arrays of numbers, as the JSON document has them (figures map and sort them). */
function plainRows(data, at, rows, cols) {
  const out = new Array(rows);
  for (let i = 0; i < rows; i++) out[i] = Array.from(data.subarray(at + i * cols, at + (i + 1) * cols));
  return out;
}

/** [L][H] of `rows` × `cols` matrices stored one after another from `at`. */
function perHead(data, at, L, H, rows, cols) {
  return Array.from({ length: L }, (_, l) => viewStack(data, at + l * H * rows * cols, H, rows, cols));
}

/** The run document's members from run_to_js's { tokens, numbers }; returns [members, offset after them]. */
function runMembers(config, packed) {
  const { n_layers: L, n_heads: H, d_vocab: V } = config;
  const tokens = Array.from(packed.tokens);
  const T = tokens.length,
    data = packed.numbers;
  // Rows [from, T) of the logits: a run or an analysis asked with logits_from forms only those.
  const from = packed.logits_from ?? 0,
    rows = T - from;
  const out = { tokens };
  if (config.token_names?.length) out.token_names = tokens.map((t) => config.token_names[t]);
  // Only when asked: a run of every row has the CLI document's members exactly.
  if (from > 0) out.logits_from = from;
  out.logits = viewMatrix(data, 0, rows, V);
  out.patterns = perHead(data, rows * V, L, H, T, T);
  return [out, rows * V + L * H * T * T];
}

/** The `headlab model analyze` document from analysis_to_js's value (members in the writer's order). */
function analysisOf(config, packed) {
  const { n_layers: L, n_heads: H, d_vocab: V } = config;
  const [out, start] = runMembers(config, packed);
  const T = out.tokens.length,
    data = packed.numbers;
  let at = start;
  const take = (rows, cols) => {
    const m = plainRows(data, at, rows, cols);
    at += rows * cols;
    return m;
  };
  out.position = packed.position;
  out.token = packed.token;
  const heads = take(L, H);
  const attentionBias = take(1, L)[0];
  out.direct_logit_attribution = {
    embed: packed.embed,
    pos_embed: packed.pos_embed,
    heads,
    attention_bias: attentionBias,
    constant: packed.constant,
    logit: packed.logit,
  };
  out.ablation = { mode: packed.mode, sequences: packed.sequences, seed: packed.seed, clean_loss: packed.clean_loss, loss: take(L, H) };
  out.induction = { previous_token: take(L, H), induction: take(L, H), in_context_loss: packed.in_context_loss };
  if (packed.sequences === 0) {
    // sequences 0: no repeated-sequence analyses (their numbers NaN), null as in the JSON document.
    out.ablation = null;
    out.induction = null;
  }
  if (packed.patching) {
    // [L] of H × T, as the document's [L][H][T]: layer l's row h is head (l, h) patched at each position.
    const normalised = viewStack(data, at, L, H, T);
    at += L * H * T;
    out.patching = {
      answer: packed.answer,
      wrong: packed.wrong,
      corrupted: Array.from(packed.corrupted),
      clean_logit_difference: packed.clean_logit_difference,
      corrupted_logit_difference: packed.corrupted_logit_difference,
      normalised,
    };
  }
  if (packed.circuits) {
    const qk = perHead(data, at, L, H, V, V);
    at += L * H * V * V;
    out.circuits = { qk, ov: perHead(data, at, L, H, V, V) };
    at += L * H * V * V;
  }
  if (packed.qk_attribution) {
    const keys = out.position + 1,
      S = packed.qk_sources.length;
    const parts = viewStack(data, at, keys, S, S);
    at += keys * S * S;
    out.qk_attribution = {
      layer: packed.qk_layer,
      head: packed.qk_head,
      position: out.position,
      sources: packed.qk_sources,
      parts,
      scores: data.subarray(at, at + keys),
    };
  }
  // composition, logit_lens, head_svd: the writer's own text of those members.
  if (packed.head_circuits) Object.assign(out, JSON.parse(packed.head_circuits));
  return out;
}

/**
 * The buffers behind a run() or analyze() value (one, its numbers): the transfer list that moves
 * it to another thread without a copy (postMessage(value, transferOf(value))). Empty for anything else.
 */
export function transferOf(value) {
  const buffers = [value?.logits?.data?.buffer, value?.parts?.[0]?.[0]?.data?.buffer, value?.scores?.data?.buffer];
  return buffers.filter((b) => b instanceof ArrayBuffer);
}

/**
 * A weights file's bytes written into the module's heap chunk by chunk (WeightsBuffer in
 * web/headlab-core.d.ts): loadTransformer(config, buffer) then reads them without a copy, so a
 * large file is never held whole in JS beside the heap.
 */
export class WeightsBuffer extends OwnedHandle {
  constructor(module, size) {
    const handle = new module.WeightsBytesHandle();
    started(handle, (h) => unwrap(h.reserve(size)));
    super(handle, 'this WeightsBuffer was disposed; reserve another');
    this.size = size;
  }

  /** Copies `chunk` (Uint8Array, ArrayBuffer or a view) to bytes [offset, offset + its length). */
  write(chunk, offset) {
    unwrap(live(this).write(bytesOf(chunk), offset));
  }
}

/** A model read from its two files (TransformerModel in web/headlab-core.d.ts). */
export class TransformerModel extends OwnedHandle {
  constructor(module, configText, safetensorsBytes) {
    if (typeof configText !== 'string') throw new HeadlabError('the config must be the text of model.json');
    const handle = new module.TransformerModelHandle();
    const config =
      safetensorsBytes instanceof WeightsBuffer
        ? started(handle, (h) => JSON.parse(unwrap(h.load_buffer(configText, live(safetensorsBytes)))))
        : started(handle, (h) => JSON.parse(unwrap(h.load(configText, bytesOf(safetensorsBytes)))));
    super(handle, 'this TransformerModel was disposed; load the model again');
    this.config = config;
  }

  inspect() {
    return JSON.parse(unwrap(live(this).inspect()));
  }

  canonical() {
    return unwrap(live(this).canonical());
  }

  run(prompt, options = undefined) {
    return runMembers(this.config, unwrap(live(this).run_arrays(promptArg(prompt), options ?? undefined)))[0];
  }

  headLosses(prompt, options = undefined) {
    const o = options == null ? undefined : { ...options };
    if (o && Array.isArray(o.reference)) o.reference = o.reference.map(promptArg);
    return unwrap(live(this).head_losses(promptArg(prompt), o));
  }

  analyze(request) {
    if (!request || typeof request !== 'object' || Array.isArray(request)) {
      throw new HeadlabError('the analysis request must be an object with a prompt');
    }
    const r = { ...request };
    if ('prompt' in r && r.prompt != null) r.prompt = promptArg(r.prompt);
    if ('corrupted' in r && r.corrupted != null) r.corrupted = promptArg(r.corrupted);
    return analysisOf(this.config, unwrap(live(this).analyze_arrays(r)));
  }

  /**
   * Forgets the prompt-independent part of the analyses (induction scores, in-context loss,
   * per-head ablation losses over the repeated random sequences), which analyze() computes once
   * per (sequences, seed, ablation) and then reuses for every prompt. The results do not change;
   * only the next analyze() takes as long as a first one. Returns how many were kept.
   */
  clearAnalysisCache() {
    return live(this).clear_analysis_cache();
  }

  /**
   * Head (layer, head)'s QK attribution for every query of the prompt: { layer, head, positions: T,
   * sources: [S] names, parts: [T][T] S × S Matrix (query i, key j; zero for j > i), scores: T × T
   * Matrix } (core/qk_attribution.hpp); parts and scores each view one buffer (transferOf).
   */
  qkAttributionTable(prompt, layer, head) {
    const t = unwrap(live(this).qk_attribution_table(promptArg(prompt), layer, head));
    const T = t.positions,
      S = t.sources.length;
    return {
      ...t,
      parts: Array.from({ length: T }, (_, i) => viewStack(t.parts, i * T * S * S, T, S, S)),
      scores: viewMatrix(t.scores, 0, T, T),
    };
  }

  tokenize(text) {
    return unwrap(live(this).tokenize(text));
  }

  inductionScores(sequences = 32, seed = 0) {
    return unwrap(live(this).induction_scores(sequences, seed));
  }

  /** Activation patching over a batch of prompt pairs with intervals: `headlab model analyze --pairs`'s document, parsed. */
  batchPatching(request) {
    return JSON.parse(unwrap(live(this).batch_patching(pairsRequest(request))));
  }

  /** Path patching over a batch (sender head → receiver's q, k, v): `headlab model analyze --path-patching`'s document, parsed. */
  pathPatching(request) {
    return JSON.parse(unwrap(live(this).path_patching(pairsRequest(request))));
  }

  /**
   * Attribution patching over a batch (first-order estimates of every head and edge patch, and their
   * agreement with the real patches): `headlab model analyze --attribution-patching`'s document, parsed.
   */
  attributionPatching(request) {
    return JSON.parse(unwrap(live(this).attribution_patching(pairsRequest(request))));
  }

  /**
   * Circuit faithfulness over a batch (request: the pairs or task, circuit [[layer, head], …] or edges
   * [[l_s, h_s, l_r, h_r, 'q' | 'k' | 'v'], …], ablation 'corrupted' or 'mean', interval settings):
   * `headlab model analyze --faithfulness` (or --faithfulness-edges)'s document, parsed.
   */
  faithfulness(request) {
    return JSON.parse(unwrap(live(this).faithfulness(pairsRequest(request))));
  }

  /**
   * batchPatching() a few pairs at a time (the worker task 'transformer-batch-patching'):
   * start checks the request and returns { done: 0, total: N }; step(k) patches k more pairs and
   * returns { done, total }; result() the document batchPatching() returns, once done = total.
   */
  batchPatchingStart(request) {
    return unwrap(live(this).batch_patching_start(pairsRequest(request)));
  }

  batchPatchingStep(pairs) {
    return unwrap(live(this).batch_patching_step(pairs));
  }

  batchPatchingResult() {
    return JSON.parse(unwrap(live(this).batch_patching_result()));
  }
}

/** A batch request is an object ({ pairs } or { task, … }); anything else is refused here, by name. */
function pairsRequest(request) {
  if (!request || typeof request !== 'object' || Array.isArray(request)) {
    throw new HeadlabError("the batch-patching request must be an object with pairs (a pairs file's text) or a task");
  }
  return request;
}

/**
 * A Hugging Face tokenizer.json read by the core (Tokenizer in web/headlab-core.d.ts): encode(text)
 * gives { ids, begins, ends (UTF-8 byte spans of the text), texts (each token readable) }.
 */
export class Tokenizer extends OwnedHandle {
  constructor(module, text) {
    if (typeof text !== 'string') throw new HeadlabError('the tokenizer must be the text of tokenizer.json');
    const handle = new module.TokenizerHandle();
    const info = started(handle, (h) => unwrap(h.load(text)));
    super(handle, 'this Tokenizer was disposed; load it again');
    this.model = info.model;
    this.vocabSize = info.vocab_size;
  }

  encode(text) {
    return unwrap(live(this).encode(text));
  }

  /** encode() of a prompt for a model of dVocab tokens, refused as the CLI's --prompt with --tokenizer refuses it. */
  encodePrompt(text, dVocab) {
    return unwrap(live(this).encode_prompt(text, dVocab));
  }

  /** Every id's name for a model of dVocab tokens, as the CLI's documents name them ("<unused N>" for an id without a token). */
  tokenNames(dVocab) {
    return unwrap(live(this).token_names(dVocab));
  }
}

/** The transformer trainer (on the induction task) in the trainer protocol (TransformerTrainer in web/headlab-core.d.ts). */
export class TransformerTrainer extends OwnedTrainer {
  #module;

  constructor(module, settings = {}) {
    if (settings != null && (typeof settings !== 'object' || Array.isArray(settings))) {
      throw new HeadlabError('settings must be an object');
    }
    const s = { ...(settings ?? {}) };
    if (s.model != null) {
      if (typeof s.model !== 'object' || Array.isArray(s.model))
        throw new HeadlabError('settings.model must be an object of config fields');
      // Partial config over the induction default, read by the config's one reader.
      const defaults = JSON.parse(module.transformer_induction_default_config());
      s.model = JSON.stringify({ ...defaults, ...s.model });
    } else {
      delete s.model;
    }
    const handle = new module.TransformerTrainerHandle();
    const { progress, filled } = started(handle, (h) => {
      const p = unwrap(h.start(s));
      const f = unwrap(h.settings());
      return { progress: p, filled: { ...f, model: JSON.parse(f.model) } };
    });
    super(handle, 'this TransformerTrainer was disposed; create a new one', progress);
    this.#module = module;
    this.settings = filled;
  }

  scores(sequences = 16, seed = this.settings.seed) {
    return unwrap(live(this).scores(sequences, seed));
  }

  result() {
    const r = unwrap(live(this).result());
    return { config: r.config, safetensors: r.safetensors, progress: this.progress };
  }

  model() {
    const r = this.result();
    return new TransformerModel(this.#module, r.config, r.safetensors);
  }
}

export function transformerApi(module) {
  return {
    loadTransformer: (configText, safetensorsBytes) => new TransformerModel(module, configText, safetensorsBytes),
    transformerWeightsBuffer: (size) => new WeightsBuffer(module, size),
    loadTokenizer: (tokenizerJsonText) => new Tokenizer(module, tokenizerJsonText),
    createTransformerTrainer: (settings = {}) => new TransformerTrainer(module, settings),
    transformerInductionDefaultConfig: () => JSON.parse(module.transformer_induction_default_config()),
    transformerLiveHandles: () => module.transformer_live_handles(),
    transformerLayout: () => module.transformer_layout(),
    transferOf,
  };
}

/** Wraps an instantiated headlab_transformer module (the value its factory resolves to). */
export function wrapTransformerCore(module) {
  return { ...moduleApi(module), ...transformerApi(module) };
}

/** Instantiates headlab_transformer (your own attention-only transformer) with `factory`, the default export of headlab_transformer.mjs, and wraps it. */
export function loadTransformerCore(factory, moduleOptions = {}) {
  return loadModule(factory, moduleOptions, 'transformer module', transformerApi);
}
