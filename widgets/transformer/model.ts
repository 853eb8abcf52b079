// The model every transformer widget on a page reads (docs/own-model.md): one safetensors file and
// its config fetched once, read by the core's one reader (formats/transformer_model.hpp, in the
// headlab_transformer WASM module), or a model trained in the page and handed over by the
// training widget. Each <headlab-transformer-model> element has one source (sourceOf); widgets find the element by id or by nesting. A
// source is an EventTarget: `change` when its status or its model changes, `progress` while the
// files download.
import { getTransformerCore } from '../../web/browser-core.js';
import type { TransformerConfigFile, TransformerCore, TransformerModel } from '../../web/headlab-core.js';
import { BodyTooLarge, boundedBody, shortUrl } from '../base/download.js';

export interface LoadedTransformer {
  /** The core's handle (weights in the WASM heap); disposed when the source moves to another model. */
  handle: TransformerModel;
  config: TransformerConfigFile;
  /** The two files, kept so a page can hand the model on (export, worker) and restore it. */
  configText: string;
  safetensors: Uint8Array;
  /** Where the model comes from, for captions ("induction-seed0.safetensors", "seed 3, trained in this page"). */
  label: string;
  /** Scalar parameters (biases and LayerNorm weights included), from the reader's inspection. */
  parameters: number;
  /** Increases with every replacement (widgets key their caches on it). */
  version: number;
}

export type TransformerSourceStatus = 'idle' | 'loading' | 'ready' | 'failed';

/** A file of the model as it arrives: bytes received and expected (0 when the server does not say). */
export interface DownloadProgress { received: number; total: number }

let versions = 0;

export class TransformerModelSource extends EventTarget {
  /** The headlab_transformer module the model was read with (null before the first model). */
  core: TransformerCore | null = null;
  status: TransformerSourceStatus = 'idle';
  failure = '';
  model: LoadedTransformer | null = null;
  /** The model as loaded from the files (what "back to the loaded model" restores). */
  private fromFiles: { configText: string; safetensors: Uint8Array; label: string } | null = null;
  progress: DownloadProgress = { received: 0, total: 0 };
  private key = '';
  private loading: Promise<void> | null = null;

  /**
   * Fetches the weights at `weightsUrl` and the config at `configUrl` (absolute URLs) and reads
   * them with the core. A second call with the same URLs does nothing. A bad file ends in status
   * 'failed' with the core's message (prefixed by the file) in `failure`.
   */
  load(weightsUrl: string, configUrl: string): Promise<void> {
    const key = `${weightsUrl}\u0000${configUrl}`;
    if (this.loading && this.key === key) return this.loading;
    this.key = key;
    this.status = 'loading';
    this.failure = '';
    this.progress = { received: 0, total: 0 };
    this.notify();
    const attempt = (async () => {
      const core = getTransformerCore();
      const [configText, safetensors] = await Promise.all([
        fetchBytes(configUrl, 'config', () => {}).then((b) => new TextDecoder().decode(b)),
        fetchBytes(weightsUrl, 'weights', (p) => { this.progress = p; this.dispatchEvent(new Event('progress')); }),
      ]);
      return { core: await core, configText, safetensors };
    })();
    this.loading = attempt.then(({ core, configText, safetensors }) => {
      if (this.key !== key) return;
      const label = fileName(weightsUrl);
      this.install(core, configText, safetensors, label);
      this.fromFiles = { configText, safetensors, label };
    }).catch((err: Error) => {
      if (this.key !== key) return;
      this.fail(err.message);
    });
    return this.loading;
  }

  /**
   * Uses a model given as its two files (a model trained in the page: the training widget's
   * result, { config, safetensors }). Resolves once the core has read it; a bad model ends in
   * status 'failed' with the core's message, as a bad file does.
   */
  async use(configText: string, safetensors: Uint8Array, label: string): Promise<void> {
    this.key = `given:${++versions}`;
    const key = this.key;
    this.loading = null;
    try {
      const core = await getTransformerCore();
      if (this.key !== key) return;
      this.install(core, configText, safetensors, label);
    } catch (err) {
      if (this.key === key) this.fail((err as Error).message);
    }
  }

  /** Back to the model read from the files (after a model trained in the page). */
  async restore(): Promise<void> {
    if (this.fromFiles) await this.use(this.fromFiles.configText, this.fromFiles.safetensors, this.fromFiles.label);
  }

  /** Whether a model read from files is there to go back to. */
  get hasFileModel(): boolean {
    return this.fromFiles !== null;
  }

  private install(core: TransformerCore, configText: string, safetensors: Uint8Array, label: string): void {
    // The reader checks every name, shape, dtype, offset and value; a bad file throws HeadlabError
    // with its message, which the element and every widget reading it show.
    this.core = core;
    const handle = core.loadTransformer(configText, safetensors);
    const parameters = handle.inspect().parameters;
    // One forward pass of a single token here, in the task that reads the model: the engine
    // compiles the WASM forward pass on its first call, which then is not paid inside the first
    // figure's render (each figure renders in a task of its own).
    handle.run([0]);
    this.model?.handle.dispose();
    this.model = { handle, config: handle.config, configText, safetensors, label, parameters, version: ++versions };
    this.status = 'ready';
    this.failure = '';
    this.notify();
  }

  /** Marks the source failed with an author's mistake found before any file is read (e.g. no src). */
  refuse(message: string): void {
    this.key = '';
    this.loading = null;
    this.fail(message);
  }

  private fail(message: string): void {
    this.model?.handle.dispose();
    this.model = null;
    this.status = 'failed';
    this.failure = message;
    this.notify();
  }

  private notify(): void {
    this.dispatchEvent(new Event('change'));
  }
}

/** Longest file fetched (the core's own limit on a safetensors file is 512 MiB; a page's model is far smaller). */
export const MAX_MODEL_BYTES = 64 * 1024 * 1024;

/** The body of `url` as bytes, reporting progress; a failed fetch names the file and the reason. */
async function fetchBytes(url: string, what: string, progress: (p: DownloadProgress) => void): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw new Error(`the ${what} file ${shortUrl(url)} could not be fetched (${(err as Error).message})`);
  }
  if (!response.ok) throw new Error(`the ${what} file ${shortUrl(url)} could not be fetched (HTTP ${response.status} ${response.statusText})`.replace(/ \)$/, ')'));
  try {
    return await boundedBody(response, MAX_MODEL_BYTES, (received, total) => progress({ received, total }));
  } catch (err) {
    if (!(err instanceof BodyTooLarge)) throw err;
    throw new Error(err.declared !== null
      ? `the ${what} file ${shortUrl(url)} is ${err.declared.toLocaleString('en-US')} bytes; the widgets read at most ${MAX_MODEL_BYTES.toLocaleString('en-US')}`
      : `the ${what} file ${shortUrl(url)} is over ${MAX_MODEL_BYTES.toLocaleString('en-US')} bytes; the widgets read at most that`);
  }
}

const sources = new WeakMap<Element, TransformerModelSource>();

/** The source of the <headlab-transformer-model> element `owner` (made on first use, before or after the element upgrades). */
export function sourceOf(owner: Element): TransformerModelSource {
  let s = sources.get(owner);
  if (!s) {
    s = new TransformerModelSource();
    sources.set(owner, s);
  }
  return s;
}

function fileName(url: string): string {
  return decodeURIComponent(url.split(/[?#]/)[0].split('/').pop() ?? url);
}
