// JS face of web/bindings/transformer_bindings.cpp: your own attention-only transformer
// (docs/own-model.md). The JSON documents arrive as the text their one C++ writer produces (the
// bytes `headlab model inspect / run / analyze` write) and are parsed here; the embind model and
// trainer handles never leave this file. Types: web/headlab-core.d.ts, formats/transformer.d.ts.
import { HeadlabError, unwrap } from './errors.js';

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
export class TransformerModel {
  #module;
  #handle;

  constructor(module, configText, safetensorsBytes) {
    if (typeof configText !== 'string') throw new HeadlabError('the config must be the text of model.json');
    const bytes = bytesOf(safetensorsBytes);
    this.#module = module;
    this.#handle = new module.TransformerModelHandle();
    try {
      this.config = JSON.parse(unwrap(this.#handle.load(configText, bytes)));
    } catch (err) {
      this.#handle.delete();
      this.#handle = null;
      throw err;
    }
  }

  #live() {
    if (!this.#handle) throw new HeadlabError('this TransformerModel was disposed; load the model again');
    return this.#handle;
  }

  inspect() {
    return JSON.parse(unwrap(this.#live().inspect()));
  }

  run(prompt, options = undefined) {
    return JSON.parse(unwrap(this.#live().run(promptArg(prompt), options ?? undefined)));
  }

  analyze(request) {
    if (!request || typeof request !== 'object' || Array.isArray(request)) {
      throw new HeadlabError('the analysis request must be an object with a prompt');
    }
    const r = { ...request };
    if ('prompt' in r && r.prompt != null) r.prompt = promptArg(r.prompt);
    if ('corrupted' in r && r.corrupted != null) r.corrupted = promptArg(r.corrupted);
    return JSON.parse(unwrap(this.#live().analyze(r)));
  }

  tokenize(text) {
    return unwrap(this.#live().tokenize(text));
  }

  inductionScores(sequences = 32, seed = 0) {
    return unwrap(this.#live().induction_scores(sequences, seed));
  }

  get disposed() {
    return this.#handle === null;
  }

  dispose() {
    if (this.#handle) {
      this.#handle.delete();
      this.#handle = null;
    }
  }
}

/** The induction trainer in the trainer protocol (TransformerTrainer in web/headlab-core.d.ts). */
export class TransformerTrainer {
  #module;
  #handle;

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
    this.#module = module;
    this.#handle = new module.TransformerTrainerHandle();
    try {
      this.progress = unwrap(this.#handle.start(s));
      const filled = unwrap(this.#handle.settings());
      this.settings = { ...filled, model: JSON.parse(filled.model) };
    } catch (err) {
      this.#handle.delete();
      this.#handle = null;
      throw err;
    }
  }

  #live() {
    if (!this.#handle) throw new HeadlabError('this TransformerTrainer was disposed; create a new one');
    return this.#handle;
  }

  step(n) {
    this.progress = unwrap(this.#live().step(n));
    return this.progress;
  }

  stop() {
    this.progress = unwrap(this.#live().stop());
    return this.progress;
  }

  scores(sequences = 16, seed = this.settings.seed) {
    return unwrap(this.#live().scores(sequences, seed));
  }

  result() {
    const r = unwrap(this.#live().result());
    return { config: r.config, safetensors: r.safetensors, progress: { ...this.progress } };
  }

  model() {
    const r = this.result();
    return new TransformerModel(this.#module, r.config, r.safetensors);
  }

  get disposed() {
    return this.#handle === null;
  }

  dispose() {
    if (this.#handle) {
      this.#handle.delete();
      this.#handle = null;
    }
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
