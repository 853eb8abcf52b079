// JS face of web/bindings/transformer_bindings.cpp: your own attention-only transformer
// (docs/own-model.md). The JSON documents arrive as the text their one C++ writer produces (the
// bytes `headlab model inspect / run / analyze` write) and are parsed here; the embind model and
// trainer handles never leave this file. Types: web/headlab-core.d.ts, formats/transformer.d.ts.
import { HeadlabError, unwrap } from './errors.js';
import { OwnedHandle, OwnedTrainer, live, started } from './owned-handle.js';

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

/** A model read from its two files (TransformerModel in web/headlab-core.d.ts). */
export class TransformerModel extends OwnedHandle {
  constructor(module, configText, safetensorsBytes) {
    if (typeof configText !== 'string') throw new HeadlabError('the config must be the text of model.json');
    const bytes = bytesOf(safetensorsBytes);
    const handle = new module.TransformerModelHandle();
    const config = started(handle, (h) => JSON.parse(unwrap(h.load(configText, bytes))));
    super(handle, 'this TransformerModel was disposed; load the model again');
    this.config = config;
  }

  inspect() {
    return JSON.parse(unwrap(live(this).inspect()));
  }

  run(prompt, options = undefined) {
    return JSON.parse(unwrap(live(this).run(promptArg(prompt), options ?? undefined)));
  }

  analyze(request) {
    if (!request || typeof request !== 'object' || Array.isArray(request)) {
      throw new HeadlabError('the analysis request must be an object with a prompt');
    }
    const r = { ...request };
    if ('prompt' in r && r.prompt != null) r.prompt = promptArg(r.prompt);
    if ('corrupted' in r && r.corrupted != null) r.corrupted = promptArg(r.corrupted);
    return JSON.parse(unwrap(live(this).analyze(r)));
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

  tokenize(text) {
    return unwrap(live(this).tokenize(text));
  }

  inductionScores(sequences = 32, seed = 0) {
    return unwrap(live(this).induction_scores(sequences, seed));
  }
}

/** The induction trainer in the trainer protocol (TransformerTrainer in web/headlab-core.d.ts). */
export class TransformerTrainer extends OwnedTrainer {
  #module;

  constructor(module, settings = {}) {
    if (settings != null && (typeof settings !== 'object' || Array.isArray(settings))) {
      throw new HeadlabError('settings must be an object');
    }
    const s = { ...(settings ?? {}) };
    if (s.model != null) {
      if (typeof s.model !== 'object' || Array.isArray(s.model)) throw new HeadlabError('settings.model must be an object of config fields');
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
    createTransformerTrainer: (settings = {}) => new TransformerTrainer(module, settings),
    transformerInductionDefaultConfig: () => JSON.parse(module.transformer_induction_default_config()),
    transformerLiveHandles: () => module.transformer_live_handles(),
  };
}
