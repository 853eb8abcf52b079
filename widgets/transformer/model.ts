// The model every transformer widget on a page reads (docs/own-model.md): a weights file and its
// config fetched once (within a time limit), or files the reader opened, or a model trained in the
// page and handed over by the training widget; read by the core's one reader
// (formats/transformer_model.hpp, in the headlab_transformer WASM module) in the source's worker,
// which keeps the model and answers every figure's requests. The main thread holds no model: the
// config the worker read, and the weights only as a Blob (a handle to bytes the browser keeps, sent
// to a new worker again when the first has ended). Each <headlab-transformer-model> element has one
// source (sourceOf); widgets find the element by id or by nesting. A source is an EventTarget:
// `change` when its status or its model changes, `progress` while the files download or stream
// into the worker.
import { compileTransformerModule } from '../../web/browser-core.js';
import type { TokenizedText, TransformerConfigFile } from '../../web/headlab-core.js';
import { WorkerHost, type WorkerJobHandlers } from '../../web/worker-client.js';
import { BodyTooLarge, DownloadFailed, download, downloadBlob, fileName, shortUrl } from '../base/download.js';
import { formatCount } from '../chart/format.js';

export interface LoadedTransformer {
  /** The config as the worker's core read it; with a tokenizer, its token_names are the tokenizer's (as the CLI's --tokenizer sets them). */
  config: TransformerConfigFile;
  /**
   * Reads prompts typed as token names or ids (without a tokenizer) with the core's prompt reader
   * in the source's worker ('transformer-tokenize'), as TokenizerLink encodes text.
   */
  prompts: PromptLink;
  /**
   * The model's tokenizer.json, read by the core in a worker (null without one): prompts are then
   * text, encoded there (encodePrompt: the CLI's --prompt with --tokenizer) and the page gets the
   * ids and the tokens' texts back (TokenizerLink). The page never reads the tokenizer itself.
   */
  tokenizer: TokenizerLink | null;
  /** The tokenizer's file name, for captions (null without one). */
  tokenizerLabel: string | null;
  /**
   * The files as the worker is sent them (again, when a new worker must read the model): the
   * config's text and the weights as a Blob (the File the reader opened, or the bytes downloaded
   * or handed over, which the page keeps only as a Blob); never an ArrayBuffer of the weights.
   */
  configText: string;
  weights: Blob;
  /** Where the model comes from, for captions ("induction-seed0.safetensors", "seed 3, trained in this page"). */
  label: string;
  /** Scalar parameters (biases and LayerNorm weights included), from the reader's inspection. */
  parameters: number;
  /** Increases with every replacement (widgets key their caches on it). */
  version: number;
  /** The id the source's worker keeps the model under (request() sends the files again to a worker that does not hold it). */
  workerId: string;
  /** Whether the model was handed over (trained in the page, or files the reader opened) rather than read from the author's files. */
  given: boolean;
  /**
   * Where the model comes from: 'files' (the author's src and config), 'page' (handed over by a
   * script or the training widget: trained in this page) or 'reader' (files the reader dropped or
   * picked, which may or may not have been trained).
   */
  origin: ModelOrigin;
}

/** Where a model shown comes from (LoadedTransformer.origin). */
export type ModelOrigin = 'files' | 'page' | 'reader';

export type TransformerSourceStatus = 'idle' | 'loading' | 'ready' | 'failed';

/**
 * How text a reader sees names `model`: a model the reader opened or trained in the page by its
 * label (their own file's name, "a model trained in this page"); the author's files by the model
 * element's `label` attribute, never by their URL (a build tool hashes file names, as
 * induction-seed0-B3x9q1.safetensors, and a path means nothing to a reader); '' when the author gave none.
 */
export function readerModelName(model: LoadedTransformer, owner: Element | null): string {
  if (model.given) return model.label;
  return (owner?.getAttribute('label') ?? '').trim().slice(0, 200);
}

/** A file of the model as it arrives: bytes received and expected (0 when the server does not say). */
export interface DownloadProgress {
  received: number;
  total: number;
  /** 'download': the files arrive from the server; 'read': the worker streams the weights into the model's memory. */
  phase?: 'download' | 'read';
}

let versions = 0;

/** How long the two downloads of a model may take before they are abandoned (the `timeout` attribute's default, seconds). */
export const DEFAULT_MODEL_TIMEOUT_S = 60;

export class TransformerModelSource extends EventTarget {
  /** The <headlab-transformer-model> element whose source this is (its tokenizer's worker belongs to it). */
  constructor(private readonly owner: Element | null = null) {
    super();
    this.host = new WorkerHost(owner);
    // Compiled here, instantiated only in the worker: the page holds no transformer module's heap.
    compileTransformerModule();
  }

  /**
   * The source's one worker: it reads the files (keeping the model and the tokenizer), answers every
   * figure's requests from the model it keeps (request()) and encodes the prompts (TokenizerLink).
   * Ended when the model element leaves the page (endWorkers); the next request starts another,
   * which is sent the files again.
   */
  private readonly host: WorkerHost;
  /** What the worker of `generation` keeps: the id of its model and of its tokenizer ('' for none). */
  private holds = { generation: -1, model: '', tokenizer: '' };

  /** What the host's current worker keeps (nothing for a worker made since the last look). */
  private holding(host: WorkerHost): { generation: number; model: string; tokenizer: string } {
    if (this.holds.generation !== host.generation) this.holds = { generation: host.generation, model: '', tokenizer: '' };
    return this.holds;
  }

  /**
   * Runs worker task `task` (web/worker-tasks.js: 'transformer-analyze' and the tasks that read a
   * kept model) on `model` in the source's worker, after the jobs asked before it. The files go
   * with the job only when the worker does not keep the model already (a new worker, or another
   * model read since): every figure of the source reads the one model kept there, with its analysis
   * cache (core AnalysisCache), and no weights cross to the worker per figure or per update.
   */
  request<T>(
    model: LoadedTransformer,
    task: string,
    params: Record<string, unknown>,
    handlers: WorkerJobHandlers<T>,
    options: { background?: boolean; yields?: boolean } = {},
  ): void {
    const id = model.workerId;
    this.host.start<T>(
      task,
      (host: WorkerHost) => {
        const holds = this.holding(host);
        const held = holds.model === id;
        holds.model = id;
        return { model: id, ...(held ? {} : { config: model.configText, weights: model.weights }), ...params };
      },
      {
        ...handlers,
        failed: (err) => {
          // The worker lost the model (it failed to read the files sent): the next job sends them again.
          if (/is not kept in this worker/.test(err.message) && this.holds.model === id) this.holds.model = '';
          handlers.failed?.(err);
        },
      },
      options,
    );
  }

  /**
   * Runs worker task `task` (web/worker-tasks.js: 'transformer-analyze', 'transformer-qk-attribution',
   * …) with `params` on the model shown, in the source's worker: a page script's (or a test's) way
   * to the numbers behind the figures, since the page holds no model. Rejects without a model.
   */
  compute<T>(task: string, params: Record<string, unknown>): Promise<T> {
    const model = this.status === 'ready' ? this.model : null;
    if (!model) return Promise.reject(new Error('no model is shown'));
    return new Promise<T>((resolve, reject) =>
      this.request<T>(model, task, params, { done: ({ value }) => resolve(value), failed: (err) => reject(err) }),
    );
  }

  /** Runs `task` with params made from what the worker keeps (TokenizerLink: the tokenizer's text only when it is not kept). */
  private send<T>(
    task: string,
    params: (holds: { model: string; tokenizer: string }) => Record<string, unknown>,
    handlers: WorkerJobHandlers<T>,
  ): void {
    this.host.start<T>(task, (host: WorkerHost) => params(this.holding(host)), handlers);
  }

  /** Whether the source's worker has a job running or waiting (tests and the build wait for false). */
  get workerBusy(): boolean {
    return this.host.running;
  }

  status: TransformerSourceStatus = 'idle';
  failure = '';
  model: LoadedTransformer | null = null;
  /** The model as loaded from the files (what "back to the loaded model" restores). */
  private fromFiles: ModelFiles | null = null;
  /**
   * Why the last files offered could not be used while the model shown stayed (a bad tokenizer.json
   * for a page's model; a bad file dropped or picked by the reader): '' when there is none.
   */
  problem = '';
  progress: DownloadProgress = { received: 0, total: 0 };
  private key = '';
  private loading: Promise<void> | null = null;

  /** Whether the last failure was a download (timed out, no answer, an HTTP error): loading again may work. */
  retryable = false;
  private urls: { weights: string; config: string; tokenizer: string | null; timeoutS: number } | null = null;

  /**
   * Fetches the weights at `weightsUrl` and the config at `configUrl` (absolute URLs), both within
   * `timeoutS` seconds (widgets/base/download.ts: a stalled or dripping server is abandoned then),
   * and has the worker read them (readInWorker). A second call with the same URLs does nothing.
   * A failed download ends in status 'failed' with `retryable` set (retry() loads again); a bad
   * file in 'failed' with the core's message (prefixed by the file) in `failure`. With
   * `tokenizerUrl` the tokenizer.json there is fetched too and read in the worker; a bad one while
   * a model is shown leaves that model as it was, with the reader's message in `problem`.
   */
  /**
   * The tokenizer of a worker's read (null without one) as the page holds it: a link to the worker
   * that keeps it, and the token names it sent. `text` is the tokenizer.json text.
   */
  private tokenizerOf(read: WorkerRead, text: string | null, label: string): ModelFiles['tokenizer'] {
    if (!read.tokenizer || text === null) return null;
    const { summary } = read.tokenizer;
    const dVocab = summary.token_names.length;
    const link = new TokenizerLink(
      summary,
      read.tokenizer.keptAs,
      text,
      dVocab,
      this.owner,
      (task, params, handlers) => this.send(task, params, handlers),
      () => this.dispatchEvent(new Event('tokens')),
    );
    return { label, names: summary.token_names, link };
  }

  /**
   * Ends the source's worker (the model element left the page): what it kept (the model, its
   * analysis cache, the tokenizer) goes with it; a request after that, once the element is back on
   * the page, starts a worker again and sends it the files.
   */
  endWorkers(): void {
    this.host.dispose();
  }

  load(weightsUrl: string, configUrl: string, timeoutS = DEFAULT_MODEL_TIMEOUT_S, tokenizerUrl: string | null = null): Promise<void> {
    const key = `${weightsUrl}\u0000${configUrl}\u0000${tokenizerUrl ?? ''}`;
    if (this.loading && this.key === key) return this.loading;
    this.key = key;
    this.urls = { weights: weightsUrl, config: configUrl, tokenizer: tokenizerUrl, timeoutS };
    const shown = this.status === 'ready' ? this.model : null;
    this.status = 'loading';
    this.failure = '';
    this.problem = '';
    this.retryable = false;
    this.progress = { received: 0, total: 0 };
    this.notify();
    const attempt = (async () => {
      // One failed file ends the other's download too.
      const sibling = new AbortController();
      let files: [string, Blob, string | null];
      try {
        files = await Promise.all([
          fetchBytes(configUrl, 'config', timeoutS, sibling.signal).then((b) => new TextDecoder().decode(b)),
          fetchBlob(weightsUrl, 'weights', timeoutS, sibling.signal, (p) => {
            this.progress = { ...p, phase: 'download' };
            this.dispatchEvent(new Event('progress'));
          }),
          tokenizerUrl === null
            ? null
            : fetchBytes(tokenizerUrl, 'tokenizer', timeoutS, sibling.signal, undefined, MAX_TOKENIZER_BYTES).then((b) =>
                new TextDecoder().decode(b),
              ),
        ]);
      } catch (err) {
        sibling.abort();
        throw err;
      }
      const read = await this.readInWorker(files[0], files[1], files[2] === null ? null : files[2]);
      return { read, tokenizerText: files[2] };
    })();
    this.loading = attempt
      .then(({ read, tokenizerText }) => {
        if (this.key !== key) return;
        if (read.tokenizerFailure) {
          this.refuseFiles(`the tokenizer file ${shortUrl(tokenizerUrl!)}: ${read.tokenizerFailure}`, shown);
          return;
        }
        const tokenizer = this.tokenizerOf(read, tokenizerText, tokenizerUrl === null ? '' : fileName(tokenizerUrl));
        const files: ModelFiles = { ...read, label: fileName(weightsUrl), tokenizer };
        this.install(files, 'files');
        this.fromFiles = files;
      })
      .catch((err: Error) => {
        if (this.key !== key) return;
        if (this.owner !== null && !this.owner.isConnected) {
          // The element left the page during the read (its worker ended with it): nothing is wrong
          // with the files, so the element loads them again when it is back on the page.
          this.key = '';
          this.loading = null;
          this.status = 'idle';
          this.notify();
          return;
        }
        // A tokenizer that could not be fetched is a bad tokenizer file: the model shown stays.
        if (err instanceof FileProblem && err.what === 'tokenizer') this.refuseFiles(err.message, shown);
        else this.fail(err.message, err instanceof FetchFailed);
      });
    return this.loading;
  }

  /**
   * Files that cannot be used (`message` names the file and the reader's reason): the model `shown`
   * before them stays, with the message in `problem`; without one, the source fails with it.
   */
  private refuseFiles(message: string, shown: LoadedTransformer | null): void {
    if (!shown || shown !== this.model) {
      this.fail(message, false);
      return;
    }
    this.status = 'ready';
    this.failure = '';
    this.problem = message;
    this.notify();
  }

  /** Loads the files of the last load() again (after a failed download). */
  retry(): Promise<void> {
    if (!this.urls || this.status === 'loading') return this.loading ?? Promise.resolve();
    this.loading = null;
    return this.load(this.urls.weights, this.urls.config, this.urls.timeoutS, this.urls.tokenizer);
  }

  /**
   * Uses a model given as its two files (a model trained in the page: the training widget's
   * result, { config, safetensors }). Resolves once the worker and the core have read it; a bad
   * model ends in status 'failed' with the core's message, as a bad file does.
   */
  async use(configText: string, safetensors: Uint8Array, label: string): Promise<void> {
    this.key = `given:${++versions}`;
    const key = this.key;
    this.loading = null;
    this.problem = '';
    try {
      // Kept as a Blob: the page holds no ArrayBuffer of the weights once the worker has read them.
      const read = await this.readInWorker(configText, new Blob([safetensors as Uint8Array<ArrayBuffer>]), null);
      if (this.key !== key) return;
      this.install({ ...read, label, tokenizer: null }, 'page');
    } catch (err) {
      if (this.key === key) this.fail((err as Error).message, false);
    }
  }

  /**
   * Uses files the reader opened (dropped on the model element or picked with its file button): the
   * weights, their config and an optional tokenizer.json, read here with progress and then by the
   * worker as the page's own files are. Every figure reading the source switches once they are
   * read; files refused (by their sizes, the limits, the reader) leave the model shown as it was,
   * with the message, naming the files, in `problem` (without a model shown the source fails).
   */
  async open(files: OpenedFiles): Promise<void> {
    this.key = `given:${++versions}`;
    const key = this.key;
    this.loading = null;
    const shown = this.status === 'ready' ? this.model : null;
    const { weights, config, tokenizer } = files;
    const named = `${weights.name} with ${config.name}`;
    this.status = 'loading';
    this.failure = '';
    this.problem = '';
    this.retryable = false;
    const all = [config, weights, ...(tokenizer ? [tokenizer] : [])];
    this.progress = { received: 0, total: weights.size, phase: 'read' };
    this.notify();
    try {
      for (const f of all) {
        const limit = f === weights ? MAX_MODEL_BYTES : MAX_TOKENIZER_BYTES;
        if (f.size > limit)
          throw new Error(`the file ${f.name} is ${formatCount(f.size)} bytes; the widgets read at most ${formatCount(limit)}`);
      }
      // The config and tokenizer are read here (text, a few MB at most); the weights File goes to
      // the worker as it is (a handle: no bytes copied on the page), which streams it into the
      // module's heap in chunks, the bar following its bytes.
      const configText = await config.text();
      const tokenizerText = tokenizer ? await tokenizer.text() : null;
      if (this.key !== key) return;
      const out = await this.readInWorker(configText, weights, tokenizerText).catch((err: Error) => {
        throw new Error(`${named}: ${err.message}`);
      });
      if (this.key !== key) return;
      if (out.tokenizerFailure) {
        this.refuseFiles(`the tokenizer file ${tokenizer!.name}: ${out.tokenizerFailure}`, shown);
        return;
      }
      const label = weights.name;
      this.install({ ...out, label, tokenizer: this.tokenizerOf(out, tokenizerText, tokenizer?.name ?? '') }, 'reader');
    } catch (err) {
      if (this.key === key) this.refuseFiles((err as Error).message, shown);
    }
  }

  /** Files the reader offered that cannot be used (`message` says why, naming them): the model shown stays. */
  refuseOffered(message: string): void {
    this.refuseFiles(message, this.status === 'ready' ? this.model : null);
  }

  /** Back to the model read from the files (after a model trained in the page). */
  async restore(): Promise<void> {
    if (!this.fromFiles) return;
    // Read by a worker once already: installed as it was; the next request sends its files again.
    this.key = `given:${++versions}`;
    this.loading = null;
    this.problem = '';
    this.install(this.fromFiles, 'files');
  }

  /** Whether a model read from files is there to go back to. */
  get hasFileModel(): boolean {
    return this.fromFiles !== null;
  }

  /**
   * Shows the model the worker read (readInWorker), which it keeps: every figure sends its requests
   * there. The page keeps the config the worker sent and the files as the worker is sent them.
   */
  private install(files: ModelFiles, origin: ModelOrigin): void {
    const { configText, weights, label, parameters } = files;
    // The tokenizer stays in the worker that read it (TokenizerLink: the prompt fields are encoded
    // there); its names, sent from there, become the config's token_names, as the CLI's
    // --tokenizer makes them (labels, tables, documents).
    const tokenizer = files.tokenizer?.link ?? null;
    let config = files.config;
    if (files.tokenizer) config = { ...config, token_names: files.tokenizer.names };
    const model: LoadedTransformer = {
      config,
      prompts: null as unknown as PromptLink,
      tokenizer,
      tokenizerLabel: files.tokenizer?.label ?? null,
      configText,
      weights,
      label,
      parameters,
      version: ++versions,
      workerId: files.workerId,
      given: origin !== 'files',
      origin,
    };
    model.prompts = new PromptLink(model, this.owner, this, () => this.dispatchEvent(new Event('tokens')));
    this.model = model;
    this.status = 'ready';
    this.failure = '';
    this.notify();
  }

  /**
   * The worker's reading of a model's files (task 'transformer-load', in the source's worker): read
   * by the core within its own limits, off the main thread, the weights Blob streamed into the
   * module's heap in chunks (progress: `progress` events), with the tokenizer.json text when there
   * is one; the worker keeps the model it read (and the tokenizer) for the figures' requests.
   * Resolves to the config the core read, the parameter count and the reader's message for a
   * tokenizer it refused (tokenizerFailure); rejects with the core's message for the model. The
   * Blob is sent as a handle: no weights are copied on the page.
   */
  private readInWorker(configText: string, weights: Blob, tokenizerText: string | null): Promise<WorkerRead> {
    const workerId = `read-${++reads}`;
    const keep = tokenizerText !== null ? `tokenizer-${++tokenizerIds}` : null;
    type Read = { config: TransformerConfigFile; parameters: number; tokenizer?: TokenizerSummary; tokenizer_failure?: string };
    return new Promise<Read>((resolve, reject) => {
      this.host.start<Read>(
        'transformer-load',
        (host: WorkerHost) => {
          const holds = this.holding(host);
          // Kept once read: a refusal forgets both (below), so the next job sends its files.
          holds.model = workerId;
          if (keep) holds.tokenizer = keep;
          return {
            config: configText,
            weights,
            keep_model: workerId,
            ...(tokenizerText !== null ? { tokenizer: tokenizerText, keep_tokenizer: keep } : {}),
          };
        },
        {
          progress: (detail) => {
            if (typeof detail.weights_read !== 'number') return;
            this.progress = { received: detail.weights_read, total: Number(detail.weights_total), phase: 'read' };
            this.dispatchEvent(new Event('progress'));
          },
          done: ({ value }) => {
            if (keep && !value.tokenizer && this.holds.tokenizer === keep) this.holds.tokenizer = '';
            resolve(value);
          },
          failed: (err) => {
            if (this.holds.model === workerId) this.holds.model = '';
            if (keep && this.holds.tokenizer === keep) this.holds.tokenizer = '';
            reject(err);
          },
        },
      );
    }).then((v) => {
      const summary = v.tokenizer ?? null;
      return {
        workerId,
        config: v.config,
        configText,
        weights,
        parameters: v.parameters,
        tokenizerFailure: v.tokenizer_failure ?? '',
        tokenizer: summary ? { summary, keptAs: keep! } : null,
      };
    });
  }

  /** Marks the source failed with an author's mistake found before any file is read (e.g. no src). */
  refuse(message: string): void {
    this.key = '';
    this.loading = null;
    this.fail(message, false);
  }

  private fail(message: string, retryable: boolean): void {
    this.retryable = retryable;
    this.problem = '';
    this.model = null;
    this.status = 'failed';
    this.failure = message;
    this.notify();
  }

  private notify(): void {
    this.dispatchEvent(new Event('change'));
  }
}

/**
 * Longest weights file a page reads: the core's own limit on a weights file (formats/safetensors.hpp
 * and formats/torch_checkpoint.hpp, max_file_bytes: 512 MiB; the worker's WeightsBuffer holds it
 * too), so the page reads every model the command line reads. Checked here first, so an oversized
 * download or File is refused before any byte of it moves. Memory, not this limit, bounds a page in
 * practice (docs/limits.md, "Large models": the worker holds the file once and float64 copies of the
 * smaller tensors, about 1.8× the file).
 */
export const MAX_MODEL_BYTES = 512 * 1024 * 1024;
/** Longest tokenizer.json fetched: the core's own limit (formats/tokenizer_json.hpp, kMaxTokenizerBytes; GPT-2's is 1.4 MB). */
export const MAX_TOKENIZER_BYTES = 8 * 1024 * 1024;

/** Files a reader opened: the weights, their config and optionally the tokenizer (LocalFiles: File objects). */
export interface OpenedFiles {
  weights: File;
  config: File;
  tokenizer: File | null;
}

/** A model as the worker read it (its config) and the files it was sent, with its tokenizer and caption. */
interface ModelFiles {
  /** The id the source's worker kept the model under when it read it. */
  workerId: string;
  config: TransformerConfigFile;
  configText: string;
  weights: Blob;
  parameters: number;
  label: string;
  tokenizer: { label: string; names: string[]; link: TokenizerLink } | null;
}

/** A file of the model that could not be used, `what` naming which ('config', 'weights', 'tokenizer'). */
class FileProblem extends Error {
  constructor(
    message: string,
    readonly what: string,
  ) {
    super(message);
  }
}

/** A file that could not be downloaded (as opposed to one the core refused): loading again may work. */
class FetchFailed extends FileProblem {}

/** A file over the widgets' limit (its size named in the message). */
class FileRefused extends FileProblem {}

/** The body of `url` as bytes within `timeoutS` seconds, reporting progress; a failed download names the file and the reason. */
async function fetchBytes(
  url: string,
  what: string,
  timeoutS: number,
  signal: AbortSignal,
  progress: (p: DownloadProgress) => void = () => {},
  maxBytes = MAX_MODEL_BYTES,
): Promise<Uint8Array> {
  try {
    return await download(url, {
      maxBytes,
      timeoutS,
      signal,
      progress: (received, total) => progress({ received, total }),
    });
  } catch (err) {
    throw downloadRefusal(err, url, what, maxBytes);
  }
}

/** A download's failure as the widgets word it: unreachable (FetchFailed), over `maxBytes` (FileRefused), or `err` itself. */
function downloadRefusal(err: unknown, url: string, what: string, maxBytes: number): unknown {
  if (err instanceof DownloadFailed) return new FetchFailed(`the ${what} file ${shortUrl(url)} could not be fetched (${err.reason})`, what);
  if (!(err instanceof BodyTooLarge)) return err;
  return new FileRefused(
    err.declared !== null
      ? `the ${what} file ${shortUrl(url)} is ${formatCount(err.declared)} bytes; the widgets read at most ${formatCount(maxBytes)}`
      : `the ${what} file ${shortUrl(url)} is over ${formatCount(maxBytes)} bytes; the widgets read at most that`,
    what,
  );
}

/**
 * The weights at `url` as a Blob (downloadBlob: the chunks as they arrive, never joined into one
 * ArrayBuffer on the page), within `timeoutS` seconds; refusals as fetchBytes words them.
 */
async function fetchBlob(
  url: string,
  what: string,
  timeoutS: number,
  signal: AbortSignal,
  progress: (p: DownloadProgress) => void,
): Promise<Blob> {
  try {
    return await downloadBlob(url, {
      maxBytes: MAX_MODEL_BYTES,
      timeoutS,
      signal,
      progress: (received, total) => progress({ received, total }),
    });
  } catch (err) {
    throw downloadRefusal(err, url, what, MAX_MODEL_BYTES);
  }
}

/** The worker's reading of a model's files (readInWorker), with the tokenizer it keeps. */
interface WorkerRead {
  workerId: string;
  config: TransformerConfigFile;
  configText: string;
  weights: Blob;
  parameters: number;
  tokenizerFailure: string;
  tokenizer: { summary: TokenizerSummary; keptAs: string } | null;
}

/** A prompt's encoding as the worker answers it: the tokens (ids, UTF-8 byte spans, texts), or the core's refusal. */
export type PromptEncoding = TokenizedText | { error: string };

/** What the worker's 'transformer-load' says of a tokenizer it read (tokenizerSummary in web/worker-tasks.js). */
export interface TokenizerSummary {
  model: 'BPE' | 'WordLevel';
  vocab_size: number;
  /** Every id's name below d_vocab (its text, or "<unused N>"). */
  token_names: string[];
  /** A default prompt that reads as text, with its encoding (null when the vocabulary has no words for one). */
  default_prompt: { text: string; ids: number[]; texts: string[] } | null;
}

/** Encodings kept per tokenizer (the texts of a page's fields and attributes, and what a reader typed). */
const KEPT_ENCODINGS = 256;

let tokenizerIds = 0;
/** Reads made by every source of the page: each model a worker keeps has an id of its own. */
let reads = 0;

/** How a TokenizerLink runs a job in its source's worker (TransformerModelSource.send). */
type SendJob = <T>(
  task: string,
  params: (holds: { model: string; tokenizer: string }) => Record<string, unknown>,
  handlers: WorkerJobHandlers<T>,
) => void;

/**
 * Texts read in a worker, in batches: `answer(text)` gives what the worker has sent for it (undefined
 * while it is asked; `notify` is called when answers arrive, so a figure draws with what it has and
 * renders again). Texts asked while a job runs go in the next job (one job at a time); at most `kept`
 * answers are kept (the oldest dropped). A failed job's texts keep its message, unless `owner` has
 * left the page: off the page no worker starts, and the texts are asked again when a figure renders.
 */
class WorkerTexts<A> {
  private readonly answers = new Map<string, A | { error: string }>();
  private readonly wanted = new Set<string>();
  private asking = false;

  /** `send(texts, handlers)` runs one job that answers `texts` in order. */
  constructor(
    private readonly kept: number,
    private readonly owner: Element | null,
    private readonly send: (texts: string[], handlers: WorkerJobHandlers<(A | { error: string })[]>) => void,
    private readonly notify: () => void,
  ) {}

  /** The answer for `text` if the worker has sent it; else undefined, and the text is asked for. */
  answer(text: string): A | { error: string } | undefined {
    const hit = this.answers.get(text);
    if (hit) return hit;
    this.wanted.add(text);
    if (!this.asking) queueMicrotask(() => this.ask());
    return undefined;
  }

  /** An answer known without the worker (a tokenizer's default prompt, encoded when it was read). */
  know(text: string, answer: A): void {
    this.answers.set(text, answer);
  }

  /** Whether texts are being read in the worker or wait to be (tests and the build wait for false). */
  get busy(): boolean {
    return this.asking || this.wanted.size > 0;
  }

  /** Sends every text asked for since the last job, in one job. */
  private ask(): void {
    if (this.asking || this.wanted.size === 0) return;
    const texts = [...this.wanted].filter((t) => !this.answers.has(t));
    this.wanted.clear();
    if (!texts.length) return;
    this.asking = true;
    const settle = () => {
      this.asking = false;
      if (this.wanted.size) this.ask();
    };
    this.send(texts, {
      done: ({ value }) => {
        value.forEach((e, i) => this.answers.set(texts[i], e));
        while (this.answers.size > this.kept) this.answers.delete(this.answers.keys().next().value!);
        settle();
        this.notify();
      },
      failed: (err) => {
        const offPage = this.owner !== null && !this.owner.isConnected;
        if (!offPage) for (const t of texts) this.answers.set(t, { error: err.message });
        settle();
        if (!offPage) this.notify();
      },
    });
  }
}

/**
 * The page's side of a tokenizer read in a worker: prompts are encoded there, never on the main
 * thread (reading GPT-2's 1.3 MB tokenizer.json is a task of about 0.5 s). `encoded(text)` answers
 * from what the worker has sent (undefined while it is asked; the source then fires `tokens`
 * when the answer arrives), so a figure draws with ids it has and renders again when new ones come.
 * The worker is the source's ('transformer-load' kept the tokenizer there); a worker that does not
 * keep it (a new one after the model element left the page, or one that has read another
 * tokenizer since) is sent the text again with the next texts to encode.
 */
export class TokenizerLink {
  /** The id the worker keeps the tokenizer under. */
  readonly id: string;
  readonly model: 'BPE' | 'WordLevel';
  readonly vocabSize: number;
  readonly defaultPrompt: TokenizerSummary['default_prompt'];
  private readonly texts: WorkerTexts<TokenizedText>;

  /**
   * `summary` and `keptAs` (the id the source's worker keeps the tokenizer under) from
   * readInWorker; `text` the tokenizer.json text (sent again to a worker that does not keep it);
   * `owner` the model element (no worker is started for it while it is off the page); `send` runs a
   * job in the source's worker; `notify` is called when encodings arrive.
   */
  constructor(
    summary: TokenizerSummary,
    keptAs: string,
    text: string,
    dVocab: number,
    owner: Element | null,
    send: SendJob,
    notify: () => void,
  ) {
    this.id = keptAs;
    this.model = summary.model;
    this.vocabSize = summary.vocab_size;
    this.defaultPrompt = summary.default_prompt;
    this.texts = new WorkerTexts<TokenizedText>(
      KEPT_ENCODINGS,
      owner,
      (texts, handlers) =>
        send(
          'tokenizer-encode',
          (holds) => {
            const held = holds.tokenizer === this.id;
            holds.tokenizer = this.id;
            return { tokenizer: this.id, texts, d_vocab: dVocab, ...(held ? {} : { text }) };
          },
          handlers,
        ),
      notify,
    );
    if (summary.default_prompt) {
      const { ids, texts } = summary.default_prompt;
      this.texts.know(summary.default_prompt.text, { ids, texts, begins: [], ends: [] });
    }
  }

  /** The encoding of `text` if the worker has sent it; else undefined, and the text is asked for. */
  encoded(text: string): PromptEncoding | undefined {
    return this.texts.answer(text);
  }

  /** Whether texts are being encoded in the worker or wait to be (tests and the build wait for false). */
  get busy(): boolean {
    return this.texts.busy;
  }
}

/** Prompt readings kept per model (the texts of a page's attributes and what a reader typed). */
const KEPT_PROMPTS = 256;

/**
 * The page's side of the core's prompt reader for a model without a tokenizer (token names or ids,
 * `headlab model run --prompt`): prompts are read in the source's worker by the model kept there
 * ('transformer-tokenize'), as TokenizerLink encodes text; `read(text)` answers from what the
 * worker has sent (undefined while it is asked; the source then fires `tokens`).
 */
export class PromptLink {
  private readonly texts: WorkerTexts<{ ids: number[] }>;

  constructor(model: LoadedTransformer, owner: Element | null, source: TransformerModelSource, notify: () => void) {
    this.texts = new WorkerTexts(
      KEPT_PROMPTS,
      owner,
      (texts, handlers) => source.request(model, 'transformer-tokenize', { texts }, handlers),
      notify,
    );
  }

  /** The reading of `text` if the worker has sent it; else undefined, and the text is asked for. */
  read(text: string): { ids: number[] } | { error: string } | undefined {
    return this.texts.answer(text);
  }

  /** Whether texts are being read in the worker or wait to be. */
  get busy(): boolean {
    return this.texts.busy;
  }
}

const sources = new WeakMap<Element, TransformerModelSource>();

/** The source of the <headlab-transformer-model> element `owner` (made on first use, before or after the element upgrades). */
export function sourceOf(owner: Element): TransformerModelSource {
  let s = sources.get(owner);
  if (!s) {
    s = new TransformerModelSource(owner);
    sources.set(owner, s);
  }
  return s;
}

/** Warnings listed at most (the panel stays short; the count of the rest is given). */
const MAX_NAME_WARNINGS = 3;

/**
 * What is ambiguous in a config's token_names for a reader typing a prompt, as the core's prompt
 * reader takes it (formats/transformer_json.cpp parse_prompt: pieces split at spaces, tabs, line
 * breaks and commas; a piece of digits is an id; otherwise the first token of that name): a name
 * given to several tokens (the prompt reads the first), a name holding a separator or empty (no
 * prompt can name it), a name of digits other than its own id (the prompt reads it as that id).
 * One sentence per problem, the first MAX_NAME_WARNINGS and a count of the rest; [] when none.
 */
export function tokenNameWarnings(names: readonly string[] | undefined): string[] {
  if (!names) return [];
  const problems: string[] = [];
  const first = new Map<string, number>();
  const quoted = (n: string) => JSON.stringify(n.length > 24 ? `${n.slice(0, 24)}…` : n);
  names.forEach((name, id) => {
    if (name === '') problems.push(`token ${id} has an empty name, which no prompt can type (use its id ${id})`);
    else if (/[\s,]/.test(name))
      problems.push(
        `${quoted(name)} (token ${id}) holds a space or comma, which splits a prompt: no prompt can type it (use its id ${id})`,
      );
    else if (/^-?\d{1,9}$/.test(name) && Number(name) !== id)
      problems.push(`${quoted(name)} (token ${id}) reads as the id ${Number(name)} in a prompt (type ${id} for this token)`);
    const earlier = first.get(name);
    if (earlier === undefined) first.set(name, id);
    else if (name !== '')
      problems.push(`${quoted(name)} names tokens ${earlier} and ${id}: a prompt's ${quoted(name)} reads token ${earlier}`);
  });
  if (problems.length <= MAX_NAME_WARNINGS) return problems;
  return [...problems.slice(0, MAX_NAME_WARNINGS), `and ${problems.length - MAX_NAME_WARNINGS} more`];
}
