// <headlab-transformer-model id="m" src="model.safetensors" config="model.json">: an author's own
// attention-only transformer (docs/own-model.md) that the transformer widgets read — those with
// model="m", and those nested inside the element. It fetches the two files once (with a progress
// bar), has the core read them (headlab_transformer.wasm: every name, shape, dtype, offset and
// value checked) and shows what is loaded: layers, heads, widths, parameters. A file the core
// refuses is shown here, and in every widget reading it, with the core's message.
//
// A reader brings their own model by dropping its files on the element (the weights: .safetensors,
// .pt or .pth; its config .json; optionally its tokenizer.json) or picking them with its "Open a
// model…" button: read with progress, then by the worker as the page's own files are, and every
// figure reading the element switches to it; files that cannot be used get the reason, naming the
// files, in the element, and the model shown stays.
//
// A model trained in the page replaces the loaded one through `useModel({ config, safetensors },
// label)` (the training widget's result), or by dispatching a bubbling `headlab-transformer-trained`
// event with that detail from inside the element; `useLoaded()` goes back to the files.
//
// Attributes: id (what widgets name), src (the weights: a .safetensors file or a torch.save .pt /
// .pth checkpoint, told apart by their bytes; resolved against the page), config (its JSON, headlab's
// or TransformerLens's own cfg.to_dict(); default: src with its suffix replaced by .json), tokenizer
// (optional: the model's Hugging Face tokenizer.json, read by the core in the worker beside the
// other two; every figure's prompt is then text, encoded by it, and shows its tokens; a file the
// reader refuses is reported here, naming the file, and a model already shown stays as it was),
// timeout (seconds the downloads may take before they are abandoned with a message, 1–600, default
// DEFAULT_MODEL_TIMEOUT_S; a "Try again" button then loads them again), label (how the panel and the
// figures name the model to readers, e.g. "the induction model of the post"; default: no name, never
// the file's URL, which a build tool may have hashed). The files are the
// author's: src, config and tokenizer are never taken from the URL hash (share-state has nothing to share here).
// Events: `change` with { status, label, tokenizer, n_layers, n_heads, d_model, d_vocab, n_ctx, parameters, origin, trained }
// whenever the model is loaded, replaced or fails.
import type { TransformerAnalysis, TransformerConfigFile } from '../web/headlab-core.js';
import {} from './base/attributes.js';
import { MAX_DOWNLOAD_TIMEOUT_S, MIN_DOWNLOAD_TIMEOUT_S, fileUrl } from './base/download.js';
import { type AttributeProperties, defineAttributes, el, HeadlabElement, number, text, WidgetInputError } from './base/headlab-element.js';
import { formatCount, type BoundValue } from './chart/format.js';
import { transformerBoundValue } from './transformer/bound-values.js';
import {
  DEFAULT_MODEL_TIMEOUT_S,
  MAX_MODEL_BYTES,
  sourceOf,
  readerModelName,
  tokenNameWarnings,
  type LoadedTransformer,
  type ModelOrigin,
  type OpenedFiles,
  type TransformerModelSource,
  type TransformerSourceStatus,
} from './transformer/model.js';
import { modelDefaultPrompt } from './transformer/widget.js';

export interface TransformerModelState {
  status: TransformerSourceStatus;
  /** Where the model comes from, e.g. "induction-seed0.safetensors". */
  label: string;
  /** The tokenizer's file name when the model shown has one (its prompts are text), else null. */
  tokenizer: string | null;
  n_layers: number | null;
  n_heads: number | null;
  d_model: number | null;
  d_vocab: number | null;
  n_ctx: number | null;
  /** Scalar parameters, biases and LayerNorm weights included. */
  parameters: number | null;
  /**
   * Where the model shown comes from: 'files' (the author's src and config), 'page' (handed over by
   * useModel or the training widget: trained in this page) or 'reader' (files the reader opened);
   * null while nothing is shown.
   */
  origin: ModelOrigin | null;
  /**
   * Whether the model shown was trained in this page (origin 'page'). A model the reader opened is
   * not known to be trained or not: false here, with origin 'reader'.
   */
  trained: boolean;
}

/** A model as two files, as the training widget and `headlab model train` produce it. */
export interface TransformerModelFiles {
  /** model.json text. */
  config: string;
  /** model.safetensors bytes. */
  safetensors: Uint8Array;
}

/** The names src may end in: a safetensors file or a torch.save checkpoint (the suffix is what the config's default name drops). */
const WEIGHTS_FILE = /\.(safetensors|pth?)$/i;

/**
 * The weights, config and tokenizer among files a reader offered, or an error saying what is
 * missing or extra (naming the files). JSON files are told apart by their content: a tokenizer.json
 * has a "model" object (Hugging Face's format); any other JSON is taken as the config (the core
 * then says what is wrong with it).
 */
async function classifyFiles(files: File[]): Promise<OpenedFiles> {
  const names = files.map((f) => f.name).join(', ');
  const weights = files.filter((f) => WEIGHTS_FILE.test(f.name));
  const jsons = files.filter((f) => /\.json$/i.test(f.name));
  const other = files.filter((f) => !weights.includes(f) && !jsons.includes(f));
  if (other.length)
    throw new Error(
      `${other.map((f) => f.name).join(', ')}: not a model's file (the weights: .safetensors, .pt or .pth; the config and tokenizer: .json)`,
    );
  if (weights.length !== 1)
    throw new Error(
      weights.length === 0
        ? `${names}: no weights file among them (.safetensors, .pt or .pth); open the weights with their config`
        : `${weights.map((f) => f.name).join(', ')}: one weights file at a time`,
    );
  if (jsons.length === 0) throw new Error(`${weights[0].name}: its config (.json) is missing; open the weights with their config`);
  if (jsons.length > 2) throw new Error(`${jsons.map((f) => f.name).join(', ')}: at most two .json files (the config and tokenizer.json)`);
  const isTokenizer = async (f: File): Promise<boolean> => {
    if (f.size > MAX_MODEL_BYTES) return /tokenizer/i.test(f.name);
    try {
      const v = JSON.parse(await f.text()) as unknown;
      return typeof v === 'object' && v !== null && typeof (v as { model?: unknown }).model === 'object';
    } catch {
      return /tokenizer/i.test(f.name);
    }
  };
  const kinds = await Promise.all(jsons.map(isTokenizer));
  const configs = jsons.filter((_, i) => !kinds[i]);
  const tokenizers = jsons.filter((_, i) => kinds[i]);
  if (configs.length !== 1)
    throw new Error(
      configs.length === 0
        ? `${jsons.map((f) => f.name).join(', ')}: no config among them (only a tokenizer); open the weights with their config`
        : `${configs.map((f) => f.name).join(', ')}: two configs; open one config with the weights`,
    );
  return { weights: weights[0], config: configs[0], tokenizer: tokenizers[0] ?? null };
}

/** The parts build() makes (this.parts). */
interface TransformerModelParts {
  source: TransformerModelSource;
  now: HTMLParagraphElement;
  progressRow: HTMLDivElement;
  bar: HTMLProgressElement;
  progressText: HTMLSpanElement;
  failureLine: HTMLParagraphElement;
  /** The config's token names a reader cannot type unambiguously in a prompt (tokenNameWarnings). */
  namesWarning: HTMLParagraphElement;
  loadedButton: HTMLButtonElement;
  retryButton: HTMLButtonElement;
  buttonRow: HTMLDivElement;
  fileInput: HTMLInputElement;
}

/**
 * <headlab-transformer-model id="…" src="model.safetensors" config="model.json">: an attention-only
 * transformer read by the core (progress while downloading; the core's message for a bad file).
 * Attributes: src (the .safetensors file, resolved against the page; required), config (its JSON;
 * default: src with .safetensors replaced by .json), tokenizer (optional: the model's Hugging Face tokenizer.json;
 * every figure's prompt is then text, encoded by the core, its tokens shown under the field; a file
 * the reader refuses is reported in the element, naming it, and a model already shown stays),
 * timeout (seconds the downloads may take, 1–600, default 60;
 * then a message and a Try again button), label (how the panel and its figures name the model to
 * readers; default no name: never the file's URL, which a build tool may hash). File locations are never shared through the URL hash.
 * Event `change` when a model is loaded, replaced or fails.
 */
export class HeadlabTransformerModel extends HeadlabElement<TransformerModelState, TransformerModelParts> {
  static attributes = defineAttributes({
    src: text({ doc: 'The weights (.safetensors or torch.save .pt), resolved against the page; required.' }),
    config: text({ doc: 'The model’s JSON config.' }),
    tokenizer: text({ doc: 'A tokenizer file for the vocabulary’s names (optional).' }),
    timeout: number({
      fallback: DEFAULT_MODEL_TIMEOUT_S,
      min: MIN_DOWNLOAD_TIMEOUT_S,
      max: MAX_DOWNLOAD_TIMEOUT_S,
      doc: 'Seconds each file may take to download.',
    }),
    label: text({ property: false, doc: 'The model’s name under the figures.' }),
  });
  protected static needsCore = false;
  protected static css = /* css */ `
    .now { margin: 0.2rem 0 0.3rem; }
    .row { display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; align-items: center; }
    progress { width: 10rem; height: 1rem; accent-color: var(--hl-focus); }
    .progress-text { font-variant-numeric: tabular-nums; font-size: 0.9em; }
    .failure { color: var(--hl-fg); border-left: 3px solid var(--hl-bad); padding-left: 0.5rem; margin: 0.3rem 0; }
    .failure::before { content: "Problem: "; font-weight: 600; color: var(--hl-bad); }
    .names-warning { color: var(--hl-fg); border-left: 3px solid var(--hl-muted); padding-left: 0.5rem; margin: 0.3rem 0; }
    .open-hint { font-size: 0.9em; color: var(--hl-muted); }
    button { min-height: 2.75rem; }
    /* Files dragged over the element: the whole panel is where they go. */
    .body[data-dropping] { outline: 3px dashed var(--hl-focus); outline-offset: 4px; border-radius: 4px; }
  `;
  private lastStatus = '';
  /** The analysis behind the bound values, computed once per model in the worker. */
  private analyzed: { version: number; value: TransformerAnalysis } | null = null;
  /** The model version whose analysis the worker is computing (0: none); started when `analysis` is first read. */
  private analyzing = 0;
  /** Counts the analyses asked of the source's worker: the answer of one from before a re-attach is dropped. */
  private analyses = 0;

  /**
   * The source the widgets share (null before the element starts).
   * @internal
   */
  get modelSource(): TransformerModelSource | null {
    return this.source;
  }

  /** The model source build() took for this element (null before the first build). */
  private get source(): TransformerModelSource | null {
    return this.hasParts ? this.parts.source : null;
  }

  /** The config of the model shown (null while loading or after a failure). */
  get modelConfig(): TransformerConfigFile | null {
    return this.source?.status === 'ready' ? this.source.model!.config : null;
  }

  protected readState(): TransformerModelState {
    const m = this.source?.status === 'ready' ? this.source.model : null;
    const c = m?.config;
    return {
      status: this.source?.status ?? 'idle',
      label: m?.label ?? '',
      tokenizer: m?.tokenizerLabel ?? null,
      n_layers: c?.n_layers ?? null,
      n_heads: c?.n_heads ?? null,
      d_model: c?.d_model ?? null,
      d_vocab: c?.d_vocab ?? null,
      n_ctx: c?.n_ctx ?? null,
      parameters: m?.parameters ?? null,
      origin: m?.origin ?? null,
      trained: m?.origin === 'page',
    };
  }

  /**
   * Uses a model given as its two files (a model trained in the page); every widget reading this
   * element switches to it. Resolves once the core has read it (a bad model: status 'failed').
   */
  async useModel(files: TransformerModelFiles & { label?: string }, label?: string): Promise<void> {
    const source = this.source ?? sourceOf(this);
    const bytes = files.safetensors instanceof Uint8Array ? files.safetensors : new Uint8Array(files.safetensors as ArrayBuffer);
    await source.use(files.config, bytes, label ?? files.label ?? 'a model trained in this page');
  }

  /**
   * Opens a model from files the reader dropped or picked (File objects): one weights file
   * (.safetensors, .pt, .pth), one config and optionally one tokenizer.json (told apart from the
   * config by its content: a Hugging Face tokenizer has a "model" object). Resolves once read or
   * refused; a refusal (which files are missing or extra, a size, the reader's message) is shown in
   * the element, naming the files, and the model shown stays.
   */
  async openFiles(files: File[]): Promise<void> {
    const source = this.source ?? sourceOf(this);
    let opened: OpenedFiles;
    try {
      opened = await classifyFiles(files);
    } catch (err) {
      source.refuseOffered((err as Error).message);
      return;
    }
    await source.open(opened);
  }

  /** Back to the model read from `src` and `config`. */
  async useLoaded(): Promise<void> {
    const source = this.source;
    if (!source?.hasFileModel) return;
    await source.restore();
  }

  /**
   * `headlab model analyze` of the model shown, on the figures' default prompt (a repeated block of
   * tokens, or of words with a tokenizer: modelDefaultPrompt in widgets/transformer/widget.ts) with the CLI's defaults (mean ablation and the scores on 32
   * repeated random sequences, seed 0); computed once per model in the worker (task
   * 'transformer-analyze': about 130 ms for the shipped induction model, too long for the main
   * thread). Null while loading or computing; the element renders (and so every
   * <headlab-value> bound to it re-reads) when it arrives.
   */
  get analysis(): TransformerAnalysis | null {
    const m = this.source?.status === 'ready' ? this.source.model : null;
    if (!m) return null;
    if (this.analyzed?.version === m.version) return this.analyzed.value;
    this.analyzeInWorker();
    return null;
  }

  /** Whether the worker is computing the analysis (the build's snapshot pass waits for false). */
  get busy(): boolean {
    return this.analyzing !== 0;
  }

  /**
   * Starts the worker's analysis of the model shown. One job at a time: while one is in the
   * worker, a newer model waits for it to end (a reader or a script switching models quickly
   * queues nothing), and the analysis of a model no longer shown is dropped.
   */
  private analyzeInWorker(): void {
    const m = this.source?.status === 'ready' ? this.source.model : null;
    // Off the page nothing is analysed (a read of `analysis` after removal would start a worker
    // that no disconnectedCallback ends); re-inserted, the element analyses again when asked.
    if (!m || !this.isConnected || this.analyzing !== 0 || this.analyzed?.version === m.version) return;
    const version = m.version;
    this.analyzing = version;
    const request = { prompt: modelDefaultPrompt(m) };
    const token = ++this.analyses;
    const next = () => {
      this.analyzing = 0;
      if (this.source?.model?.version !== version) this.analyzeInWorker();
    };
    // In the source's worker, on the model kept there (no files sent when it holds them).
    this.parts.source.request<{ analysis: TransformerAnalysis }>(
      m,
      'transformer-analyze',
      { request },
      {
        done: ({ value }) => {
          if (token !== this.analyses) return;
          if (this.source?.model?.version === version) {
            this.analyzed = { version, value: value.analysis };
            this.requestRender();
          }
          next();
        },
        failed: (err) => {
          if (token !== this.analyses) return;
          if (this.source?.model?.version === version) this.showError(`The analysis behind the numbers failed: ${err.message}`);
          next();
        },
      },
    );
  }

  /**
   * Figures of the model shown, for <headlab-value source="…" name="…"> in the prose (undefined
   * while loading or for an unknown name): `parameters` (count), and every name of
   * transformerBoundValue (widgets/transformer/bound-values.ts) read from `analysis` —
   * in_context_loss, previous_token.{layer,head,score}, induction.{layer,head,score}, ablation.…
   */
  boundValue(name: string): BoundValue | undefined {
    const m = this.source?.status === 'ready' ? this.source.model : null;
    if (!m) return undefined;
    if (name === 'parameters') return { value: m.parameters, kind: 'count' };
    return transformerBoundValue(this.analysis, name);
  }

  private urls(): { weights: string; config: string; tokenizer: string | null } {
    const src = this.src.trim();
    if (src === '')
      throw new WidgetInputError(
        'a <headlab-transformer-model> needs src="model.safetensors" (and config="model.json" unless it is beside it with the same name)',
      );
    // Checked before anything is fetched: a mistyped attribute gives a message, not a request for a
    // missing file. The core tells the formats apart by their first bytes, not by this name.
    if (!WEIGHTS_FILE.test(src.replace(/[?#].*$/, '')) || src.length > 2048) {
      throw new WidgetInputError(
        `attribute src="${src}" must name a weights file: .safetensors, or .pt / .pth as torch.save writes them (e.g. src="model.safetensors")`,
      );
    }
    const weights = fileUrl(src);
    const configAttr = this.jsonFileAttribute('config', 'model.json');
    const config = fileUrl(configAttr !== '' ? configAttr : `${src.replace(/[?#].*$/, '').replace(WEIGHTS_FILE, '')}.json`);
    const tokenizerAttr = this.jsonFileAttribute('tokenizer', 'tokenizer.json');
    return { weights, config, tokenizer: tokenizerAttr === '' ? null : fileUrl(tokenizerAttr) };
  }

  /** The attribute `name` trimmed ('' when absent), which must name a .json file of at most 2,048 characters. */
  private jsonFileAttribute(name: 'config' | 'tokenizer', example: string): string {
    const value = (this.getAttribute(name) ?? '').trim();
    if (value !== '' && (!/\.json$/i.test(value.replace(/[?#].*$/, '')) || value.length > 2048)) {
      throw new WidgetInputError(`attribute ${name}="${value}" must name a .json file (e.g. ${name}="${example}")`);
    }
    return value;
  }

  disconnectedCallback(): void {
    // The source's worker ends with the element; a re-inserted element starts the analysis again if needed.
    this.analyses++;
    this.analyzing = 0;
    this.source?.endWorkers();
    super.disconnectedCallback();
  }

  protected build(): TransformerModelParts {
    const source = sourceOf(this);
    this.listen(source, 'change', () => {
      this.analyzed = null;
      this.requestRender();
      const status = `${source.status}|${source.model?.version ?? ''}`;
      if (status !== this.lastStatus && source.status !== 'loading') this.emitChange();
      this.lastStatus = status;
    });
    this.listen(source, 'progress', () => this.requestRender());
    this.listen(this, 'headlab-transformer-trained', (e) => {
      const detail = (e as CustomEvent<TransformerModelFiles & { label?: string }>).detail;
      if (!detail || typeof detail.config !== 'string' || !detail.safetensors) return;
      e.stopPropagation();
      void this.useModel(detail, detail.label);
    });
    const now = el('p', { class: 'now', role: 'status' });
    const progressRow = el('div', { class: 'row' });
    const bar = el('progress', { max: '1', value: '0', 'aria-label': 'Model download' });
    const progressText = el('span', { class: 'progress-text' });
    progressRow.append(bar, progressText);
    const failureLine = el('p', { class: 'failure', role: 'alert' });
    const namesWarning = el('p', { class: 'names-warning', role: 'note', hidden: '' });
    const loadedButton = el('button', { type: 'button' }, 'Back to the loaded model');
    this.listen(loadedButton, 'click', () => {
      void this.useLoaded();
    });
    const retryButton = el('button', { type: 'button' }, 'Try again');
    this.listen(retryButton, 'click', () => {
      // Focus stays in the element: the button leaves with the failure, the status line takes it.
      now.setAttribute('tabindex', '-1');
      now.focus();
      void source?.retry();
    });
    const row = el('div', { class: 'row' });
    // The reader's own model: a file button (the input itself hidden: the button is its label and
    // tap target) and the element as a drop target.
    const openRow = el('div', { class: 'row open-row' });
    const fileInput = el('input', { type: 'file', multiple: '', accept: '.safetensors,.pt,.pth,.json', hidden: '' });
    const hint = el(
      'span',
      { class: 'open-hint', id: 'open-hint' },
      'or drop its files here: the weights (.safetensors, .pt), its config (.json) and, if it has one, tokenizer.json',
    );
    // data-opens-files: a tap opens the system's file chooser, not a render (the product sweep's tap test skips it).
    const openButton = el('button', { type: 'button', 'aria-describedby': 'open-hint', 'data-opens-files': '' }, 'Open a model…');
    this.listen(openButton, 'click', () => fileInput.click());
    this.listen(fileInput, 'change', () => {
      const files = [...(fileInput.files ?? [])];
      fileInput.value = '';
      if (files.length) void this.openFiles(files);
    });
    openRow.append(openButton, hint, fileInput);
    const carriesFiles = (e: Event): boolean => [...((e as DragEvent).dataTransfer?.types ?? [])].includes('Files');
    this.listen(this, 'dragover', (e) => {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      (e as DragEvent).dataTransfer!.dropEffect = 'copy';
      this.body.setAttribute('data-dropping', '');
    });
    this.listen(this, 'dragleave', (e) => {
      // Leaving the element, not moving between its children.
      const to = (e as DragEvent).relatedTarget as Node | null;
      if (!to || !this.contains(to)) this.body.removeAttribute('data-dropping');
    });
    this.listen(this, 'drop', (e) => {
      this.body.removeAttribute('data-dropping');
      const files = [...((e as DragEvent).dataTransfer?.files ?? [])];
      if (!files.length) return;
      e.preventDefault();
      void this.openFiles(files);
    });
    this.body.append(
      now,
      progressRow,
      failureLine,
      namesWarning,
      row,
      openRow,
      this.exportControls({ json: true, jsonLabel: 'Model summary (JSON)' }),
    );
    // Figures nested inside the element are shown below its panel, outside the body, so they stay
    // on screen (with their own message) when the panel shows an error.
    if (!this.shadowRoot!.querySelector(':scope > slot')) this.shadowRoot!.append(el('slot'));
    this.loadFiles(source);
    return { source, now, progressRow, bar, progressText, failureLine, namesWarning, loadedButton, retryButton, buttonRow: row, fileInput };
  }

  /** Reads the files named by src and config (again when either attribute changes: widgets switch when they are ready). */
  private loadFiles(source: TransformerModelSource): void {
    let urls: { weights: string; config: string; tokenizer: string | null };
    try {
      urls = this.urls();
    } catch (err) {
      if (!(err instanceof WidgetInputError)) throw err;
      // Shown as a failed load (the failure line), not in the alert box that hides the panel: the
      // reader can still open a model of their own. The figures reading this element say it too
      // (rather than waiting for a model forever).
      // Once per mistake: a model the reader opens meanwhile stays.
      const refused = `refused\u0000${err.message}`;
      if (this.filesKey !== refused) source.refuse(err.message);
      this.filesKey = refused;
      return;
    }
    const { weights, config, tokenizer } = urls;
    const key = `${weights}\u0000${config}\u0000${tokenizer ?? ''}`;
    // Loaded again when the source is idle: the element left the page while its files were read.
    if (key === this.filesKey && source.status !== 'idle') return;
    this.filesKey = key;
    void source.load(weights, config, this.timeout, tokenizer);
  }

  private filesKey = '';

  /** updateComplete waits for the model, or for its failure (shown here, with "Try again"). */
  protected get settled(): boolean {
    return this.source?.status === 'ready' || this.source?.status === 'failed';
  }

  protected get failure(): string | null {
    return this.source?.status === 'failed' ? `The model could not be loaded: ${this.parts.source.failure}` : null;
  }

  /** The prerendered snapshot (which shows the loaded model) stays until the model is ready or has failed. */
  protected snapshotReplaceable(): boolean {
    return !this.source || this.source.status === 'ready' || this.source.status === 'failed';
  }

  protected render(): void {
    this.loadFiles(this.parts.source);
    const s = this.parts.source;
    const m = s.status === 'ready' ? s.model : null;
    this.parts.progressRow.hidden = s.status !== 'loading';
    if (s.status === 'loading') {
      const { received, total, phase } = s.progress;
      if (total > 0) {
        this.parts.bar.max = total;
        this.parts.bar.value = received;
      } else this.parts.bar.removeAttribute('value');
      // Downloading the files, then the worker streaming the weights into the model's memory.
      const doing = phase === 'read' ? 'Reading the weights: ' : phase === 'download' ? 'Downloading: ' : '';
      const amount =
        total > 0 ? `${formatCount(received / 1024)} of ${formatCount(total / 1024)} KB` : `${formatCount(received / 1024)} KB`;
      const label = `${doing}${amount}`;
      if (this.parts.progressText.textContent !== label) this.parts.progressText.textContent = label;
      this.parts.bar.setAttribute('aria-label', phase === 'read' ? 'Reading the model' : 'Model download');
    } else if (this.parts.progressText.textContent !== '') {
      // The hidden row back as built: what it shows once loaded does not depend on how many
      // progress reports arrived on the way (none when the files came in one piece).
      this.parts.bar.setAttribute('max', '1');
      this.parts.bar.setAttribute('value', '0');
      this.parts.bar.setAttribute('aria-label', 'Model download');
      this.parts.progressText.textContent = '';
    }
    // A failed load, or files refused while the model shown stayed (a bad tokenizer.json).
    const failureText =
      s.status === 'failed'
        ? `the model could not be loaded: ${s.failure}`
        : s.status === 'ready' && s.problem !== ''
          ? `${s.problem}; the model shown is unchanged.`
          : '';
    this.parts.failureLine.hidden = failureText === '';
    if (this.parts.failureLine.textContent !== failureText) this.parts.failureLine.textContent = failureText;
    // The button is there only when it does something (a hidden button would still be a tap target for tests and tools).
    const offer = Boolean(m && m.given && s.hasFileModel);
    // A download that failed (timed out, no answer, an HTTP error) may work a moment later; a file the core refused will not.
    const retry = s.status === 'failed' && s.retryable;
    const buttons = [...(offer ? [this.parts.loadedButton] : []), ...(retry ? [this.parts.retryButton] : [])];
    if (buttons.length !== this.parts.buttonRow.children.length || buttons.some((b, i) => this.parts.buttonRow.children[i] !== b))
      this.parts.buttonRow.replaceChildren(...buttons);
    const text =
      s.status === 'idle' || s.status === 'loading'
        ? 'Loading the model…'
        : s.status === 'failed'
          ? 'No model loaded.'
          : `Model${this.readerName(m!)} — ${m!.config.n_layers} attention layer${m!.config.n_layers === 1 ? '' : 's'} × ${m!.config.n_heads} heads, d_model ${m!.config.d_model}, d_head ${m!.config.d_head}, vocabulary ${m!.config.d_vocab}, context ${m!.config.n_ctx}, ${formatCount(m!.parameters)} parameters${m!.config.normalization === 'none' ? '' : `, ${m!.config.normalization}`}${m!.tokenizer ? `; prompts are text, tokenized by ${m!.given && m!.tokenizerLabel ? m!.tokenizerLabel : 'its tokenizer'} (${m!.tokenizer.model})` : ''}.`;
    if (this.parts.now.textContent !== text) this.parts.now.textContent = text;
    // With a tokenizer prompts are text and token_names only label tokens: nothing to type.
    const warnings = m && !m.tokenizer ? tokenNameWarnings(m.config.token_names) : [];
    const warning = warnings.length ? `Ambiguous token names in the config's token_names: ${warnings.join('; ')}.` : '';
    this.parts.namesWarning.hidden = warning === '';
    if (this.parts.namesWarning.textContent !== warning) this.parts.namesWarning.textContent = warning;
  }

  /**
   * The warning the panel shows for config token_names a reader cannot type unambiguously in a prompt
   * (a name given to several tokens, a name with a space or comma, an empty one, digits other than its
   * own id); '' when there is none or the model has a tokenizer.
   */
  get tokenNamesWarning(): string {
    return this.hasParts && !this.parts.namesWarning.hidden ? (this.parts.namesWarning.textContent ?? '') : '';
  }

  protected summarize(): string {
    return this.parts.now.textContent ?? '';
  }

  /** ": <name>" as readers see the model named (readerModelName), or '' when it has none. */
  private readerName(m: LoadedTransformer): string {
    const name = readerModelName(m, this);
    return name ? `: ${name}` : '';
  }
}

export interface HeadlabTransformerModel extends AttributeProperties<typeof HeadlabTransformerModel.attributes> {}
