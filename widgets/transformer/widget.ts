// Base of the widgets on an author's own transformer (docs/own-model.md): the model source they
// read, the reader's prompt field, the token labels and analyses in the worker; the note while
// the model loads, the message when it could not be read and the caches per model come from
// ModelFigure (widgets/base/model-figure.ts).
//
// A TransformerWidget finds its model in build(): the `model` attribute names the id of a
// <headlab-transformer-model> on the page; without it the nearest enclosing
// <headlab-transformer-model> (nesting). The widget computes nothing itself: every number comes from
// the model kept in the source's worker (requests by key, answers cached per model version), so the
// page holds no model and does not wait for headlab_core.
import { WidgetInputError, el } from '../base/headlab-element.js';
import { MODEL_FIGURE_CSS, ModelFigure } from '../base/model-figure.js';
import type {
  TransformerAnalysis,
  TransformerAttributionPatchingFile,
  TransformerBatchPatchingFile,
  TransformerConfigFile,
  TransformerFaithfulnessFile,
  TransformerFaithfulnessRequest,
  TransformerEdgeFaithfulnessFile,
  TransformerEdgeFaithfulnessRequest,
  TransformerPairsRequest,
  TransformerPathPatchingFile,
  TransformerQkAttributionTable,
  TransformerHeadLossOptions,
  TransformerHeadLosses,
  TransformerRun,
  TransformerRunOptions,
} from '../../web/headlab-core.js';
import { readerModelName, sourceOf, type LoadedTransformer, type TransformerModelSource } from './model.js';
import { rowView } from '../../web/matrix.js';
import { localId } from '../base/ids.js';

export const MODEL_TAG = 'headlab-transformer-model';

/** Worker tasks over batches of prompt pairs: queued behind the figures' runs and analyses. */
const BATCH_TASKS = new Set([
  'transformer-batch-patching',
  'transformer-attribution-patching',
  'transformer-path-patching',
  'transformer-faithfulness',
]);

/**
 * What a figure asks the worker's 'transformer-analyze' task for (web/worker-tasks.js), and what it
 * answers; or, with `task`, the parameters of that task (which reads the kept model the same way).
 */
interface WorkerJob {
  task?:
    | 'transformer-qk-attribution'
    | 'transformer-batch-patching'
    | 'transformer-head-losses'
    | 'transformer-attribution-patching'
    | 'transformer-faithfulness'
    | 'transformer-path-patching';
  request?: Record<string, unknown>;
  run?: { prompt: number[]; options?: TransformerRunOptions };
  prompt?: number[];
  options?: TransformerHeadLossOptions;
  layer?: number;
  head?: number;
  /** Waits behind every figure's job asked without it, as a batch does (WorkerHost's background jobs). */
  background?: boolean;
}
interface WorkerResult {
  analysis: TransformerAnalysis | null;
  run: TransformerRun | null;
}

export const TRANSFORMER_CSS = /* css */ `
  .figure svg { display: block; max-width: 100%; height: auto; touch-action: manipulation; }
  .prompt-row label { display: flex; flex-direction: column; gap: 0.2rem; align-items: stretch; }
  /* The whole prompt in view at every width: a text area as wide as the widget whose height follows
     its wrapped text (field-sizing; PromptField sets the height where that is not supported). */
  .prompt-row textarea { font: inherit; font-variant-numeric: tabular-nums; width: 100%; min-height: 2.75rem; padding: 0.45rem 0.4rem;
    box-sizing: border-box; resize: none; overflow: hidden; field-sizing: content; line-height: 1.5;
    overflow-wrap: anywhere; white-space: pre-wrap;
    color: var(--hl-fg); background: var(--hl-control); border: 1px solid var(--hl-rule); border-radius: 4px; }
  .input-problem, .field-problem { color: var(--hl-bad); font-size: 0.9em; margin: 0.2rem 0 0; }
  .input-problem:empty, .field-problem:empty { display: none; }
  .controls { display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; align-items: center; margin: 0.3rem 0; }
  .controls label { display: inline-flex; flex-wrap: wrap; gap: 0.35rem; align-items: center; max-width: 100%; }
  select { font: inherit; max-width: 100%; min-height: 2.75rem; color: var(--hl-fg); background: var(--hl-control); border: 1px solid var(--hl-rule); border-radius: 4px; }
  .tokens { display: flex; flex-wrap: wrap; gap: 0.25rem; margin: 0.3rem 0; padding: 0; list-style: none; }
  .tokens button { min-width: 2.75rem; min-height: 2.75rem; font-variant-numeric: tabular-nums; }
  /* The prompt's tokens as the model's tokenizer cut it: one chip per token, its text (spaces and
     line breaks drawn) over its id; wrapping at any width. */
  .token-count { flex-basis: 100%; font-size: 0.9em; margin: 0.25rem 0 0; color: var(--hl-muted); }
  .token-chips { flex-basis: 100%; display: flex; flex-wrap: wrap; gap: 0.2rem; margin: 0.2rem 0 0; padding: 0; list-style: none; }
  .token-chips li { display: inline-flex; flex-direction: column; align-items: center; max-width: 100%; padding: 0.05rem 0.3rem;
    border: 1px solid var(--hl-rule); border-radius: 4px; background: var(--hl-control); color: var(--hl-fg); line-height: 1.3; }
  .token-chips .text { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
  .token-chips .id { font-size: max(11px, 0.75em); color: var(--hl-muted); font-variant-numeric: tabular-nums; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
  .readout { min-height: 1.4em; font-size: 0.9em; margin: 0.2rem 0 0; font-variant-numeric: tabular-nums; }
  svg[tabindex]:focus-visible { outline: 3px solid var(--hl-focus); outline-offset: 2px; }
  .unavailable { color: var(--hl-muted); font-style: italic; }
  .layered { position: relative; width: fit-content; max-width: 100%; }
  .layered > .base > svg, .layered > .base > canvas, .layered > .base > img, .layered > .base > picture > img { display: block; max-width: 100%; height: auto; }
  /* A prerendered snapshot shows the canvas as a picture of its pixels (site/ssr/snapshot-markup.js), in a <picture> when the
     dark scheme's differs: cells stay sharp when scaled. */
  .layered > .base > img, .layered > .base > picture > img { image-rendering: pixelated; }
  .layered > svg.overlay { position: absolute; inset: 0; width: 100%; height: 100%; pointer-events: none; }
  .layered:focus-visible { outline: 3px solid var(--hl-focus); outline-offset: 2px; }
${MODEL_FIGURE_CSS}`;

/** Position `position`'s next-token logits in a run or analysis (which may hold rows from logits_from on only). */
export function logitsAt(run: TransformerRun, position: number): Float64Array {
  const row = position - (run.logits_from ?? 0);
  if (row < 0 || row >= run.logits.rows) throw new RangeError(`the run holds no logits of position ${position}`);
  return rowView(run.logits, row);
}

/** The display name of token `t` (its config name, else its id). */
export function tokenName(config: TransformerConfigFile, t: number): string {
  return config.token_names?.[t] ?? String(t);
}

/**
 * Most tokens in a default prompt: every figure draws something per token (T × T patterns, T
 * chips, T rows of attribution), and 64 tokens keep each drawing legible at 360 px and each
 * update's drawing within a frame; a longer prompt is the reader's to type.
 */
export const MAX_DEFAULT_PROMPT = 64;

/** Tokens in a default prompt: min(n_ctx − 1, MAX_DEFAULT_PROMPT) (all n_ctx for a context of 1 or 2). */
export function defaultPromptLength(nCtx: number): number {
  return Math.max(1, Math.min(MAX_DEFAULT_PROMPT, nCtx > 2 ? nCtx - 1 : nCtx));
}

/**
 * A prompt for any model when the author gives none: a block of k tokens repeated up to
 * defaultPromptLength tokens (k = min(6, d_vocab, ⌊n_ctx / 2⌋), ids spread over the vocabulary by
 * a stride prime to d_vocab), the shape on which previous-token and induction heads show
 * themselves. Nearly the full context of a small model, because a model trained on sequences of
 * n_ctx tokens (as the induction task's are) may read positions as well as tokens; one short of
 * it, because the last position's prediction (of a token after the context) is never trained.
 */
export function defaultPrompt(config: TransformerConfigFile): number[] {
  const V = config.d_vocab;
  const k = Math.max(1, Math.min(6, V, Math.floor(config.n_ctx / 2)));
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const stride = [7, 5, 3, 1].find((s) => gcd(s, V) === 1) ?? 1;
  const block = Array.from({ length: k }, (_, i) => (3 + i * stride) % V);
  return Array.from({ length: defaultPromptLength(config.n_ctx) }, (_, i) => block[i % k]);
}

/**
 * The prompt a figure of `model` shows without a `prompt` attribute: with a tokenizer whose
 * vocabulary has words, a text of words repeated to defaultPromptLength tokens and its encoding (chosen in
 * the worker that read the tokenizer: textPrompt in web/worker-tasks.js), so the field reads as
 * text and typing it back gives the same ids; otherwise the block of ids of defaultPrompt.
 */
export function modelDefaultPrompt(model: LoadedTransformer): number[] {
  return model.tokenizer?.defaultPrompt?.ids ?? defaultPrompt(model.config);
}

/** A prompt as the text a reader types: names (when the config has them) or ids, space separated. */
export function promptText(config: TransformerConfigFile, tokens: number[]): string {
  return tokens.map((t) => tokenName(config, t)).join(' ');
}

/**
 * Token ids as the text a reader of `model` types: with a tokenizer, the default prompt's text
 * when they are its ids, else the tokens' texts written out — run together for a byte-level BPE
 * (each token carries its own spaces), separated by spaces for WordLevel (whose words carry none);
 * its encoding of that text may cut it otherwise: the figure shows the ids it uses. Without a
 * tokenizer, promptText.
 */
export function modelPromptText(model: LoadedTransformer, tokens: number[]): string {
  const tokenizer = model.tokenizer;
  if (!tokenizer) return promptText(model.config, tokens);
  const d = tokenizer.defaultPrompt;
  if (d && d.ids.length === tokens.length && d.ids.every((t, i) => t === tokens[i])) return d.text;
  return tokens.map((t) => tokenName(model.config, t)).join(tokenizer.model === 'WordLevel' ? ' ' : '');
}

/**
 * Thrown where a text prompt's ids are needed before the worker has encoded it (tokenize): the
 * figure keeps what it shows and renders again when the ids arrive (the source's `tokens` event).
 * A WidgetInputError so that `state` and `error` read it quietly, never shown: the figure's render catches it.
 */
export class TokensPending extends WidgetInputError {
  constructor(text: string) {
    super(`the text "${text}" is being encoded`);
  }
}

/** "L1 H3" for head h of layer l (TransformerLens's numbering: both from 0). */
export function headName(l: number, h: number): string {
  return `L${l} H${h}`;
}

/**
 * Common to the transformer figures (docs/own-model.md, docs/own-model-widgets.md). Each reads the
 * model of a <headlab-transformer-model>: the one its `model` attribute names, or the one it is
 * nested in. Layers and heads are numbered from 0 (TransformerLens's numbering); prompts are token
 * names (when the config has token_names) or ids, separated by spaces or commas, at most n_ctx of
 * them; text when the model element has a tokenizer (encoded by it, the tokens shown under the
 * field). A bad file shows the core's message in the model element and in every figure reading it.
 */
export abstract class TransformerWidget<State = unknown, Parts extends object = object> extends ModelFigure<
  LoadedTransformer,
  State,
  Parts
> {
  protected static needsCore = false;
  declare protected source: TransformerModelSource | null;
  private owner: Element | null = null;
  /** Whether an analysis of this figure is in the source's worker, and the one asked for after it (analyzedInWorker). */
  private workerBusy = false;
  private workerWanted: { model: LoadedTransformer; key: string; job: WorkerJob; pick: (value: never) => unknown } | null = null;
  /** Counts this figure's jobs: the answer of a job from before a re-attach is dropped. */
  private workerJob = 0;

  /** The <headlab-transformer-model> this figure reads (null before build), for what it computes itself. */
  protected get modelElement(): Element | null {
    return this.owner;
  }

  /**
   * `headlab model analyze` of `request` on the current model, computed once per (model, key) in
   * the source's worker (task 'transformer-analyze', on the model kept there: TransformerModelSource
   * request()): null until it arrives, then the figure renders again.
   * Every core call that depends on the reader's input goes there (analyses: about 10–130 ms in
   * WASM for the shipped induction model; a mean-ablated run: about 20 ms), so an update on the
   * main thread only draws (docs/limits.md, "Main-thread tasks"). At most one job of this figure is
   * in the worker and one waits (the last asked for), so a reader sweeping a control queues
   * nothing: each key is computed once.
   */
  protected analyzedInWorker(
    model: LoadedTransformer,
    key: string,
    request: Record<string, unknown>,
    { background = false }: { background?: boolean } = {},
  ): TransformerAnalysis | null {
    // The logits of the attributed position only (logitsAt reads them): a figure reads no other
    // row, and T × d_vocab of them are most of an analysis's work for a large vocabulary (64 ×
    // 50,278: 2.5·10⁹ multiply-adds, 26 MB moved to the page).
    const prompt = request.prompt;
    const position = typeof request.position === 'number' && request.position >= 0 ? request.position : null;
    const rows = Array.isArray(prompt) && prompt.length > 0 ? { logits_from: position ?? prompt.length - 1 } : {};
    return this.computedInWorker<TransformerAnalysis>(
      model,
      `analysis:${key}`,
      { request: { ...request, ...rows }, ...(background ? { background } : {}) },
      (v: WorkerResult) => v.analysis,
    );
  }

  /**
   * `headlab model run` of `prompt` (with `options`: ablated heads) on the current model in the
   * worker, as analyzedInWorker, with the last position's logits only (the figures read no other row: logitsAt).
   */
  protected ranInWorker(model: LoadedTransformer, key: string, prompt: number[], options?: TransformerRunOptions): TransformerRun | null {
    return this.computedInWorker<TransformerRun>(
      model,
      `run:${key}`,
      { run: { prompt, options: { ...options, logits_from: Math.max(0, prompt.length - 1) } } },
      (v: WorkerResult) => v.run,
    );
  }

  /** The prompt's next-token loss with each head ablated alone (task 'transformer-head-losses'), as analyzedInWorker. */
  protected headLossesInWorker(
    model: LoadedTransformer,
    key: string,
    prompt: number[],
    options: TransformerHeadLossOptions,
  ): TransformerHeadLosses | null {
    return this.computedInWorker<TransformerHeadLosses>(
      model,
      `losses:${key}`,
      { task: 'transformer-head-losses', prompt, options },
      (v: TransformerHeadLosses) => v,
    );
  }

  /** One head's QK attribution table on `prompt` (task 'transformer-qk-attribution'), as analyzedInWorker. */
  protected qkTableInWorker(
    model: LoadedTransformer,
    key: string,
    prompt: number[],
    layer: number,
    head: number,
  ): TransformerQkAttributionTable | null {
    return this.computedInWorker<TransformerQkAttributionTable>(
      model,
      `qk:${key}`,
      { task: 'transformer-qk-attribution', prompt, layer, head },
      (v: TransformerQkAttributionTable) => v,
    );
  }

  /**
   * Activation patching over a batch of prompt pairs with intervals (task 'transformer-batch-patching',
   * a few pairs per step), as analyzedInWorker; batchProgressed(model, key, done, total) after each step.
   */
  protected batchPatchedInWorker(
    model: LoadedTransformer,
    key: string,
    request: TransformerPairsRequest,
  ): TransformerBatchPatchingFile | null {
    return this.computedInWorker<TransformerBatchPatchingFile>(
      model,
      `batch:${key}`,
      { task: 'transformer-batch-patching', request: request as Record<string, unknown> },
      (v: TransformerBatchPatchingFile) => v,
    );
  }

  /**
   * Attribution patching over a batch of prompt pairs (task 'transformer-attribution-patching', one
   * call), as analyzedInWorker; batchProgressed(model, key, done, total) when the worker starts it and ends it.
   */
  protected attributionPatchedInWorker(
    model: LoadedTransformer,
    key: string,
    request: TransformerPairsRequest,
  ): TransformerAttributionPatchingFile | null {
    return this.computedInWorker<TransformerAttributionPatchingFile>(
      model,
      `batch:${key}`,
      { task: 'transformer-attribution-patching', request: request as Record<string, unknown> },
      (v: TransformerAttributionPatchingFile) => v,
    );
  }

  /** Path patching over a batch of prompt pairs (task 'transformer-path-patching', one call), as analyzedInWorker. */
  protected pathPatchedInWorker(
    model: LoadedTransformer,
    key: string,
    request: TransformerPairsRequest,
  ): TransformerPathPatchingFile | null {
    return this.computedInWorker<TransformerPathPatchingFile>(
      model,
      `batch:${key}`,
      { task: 'transformer-path-patching', request: request as Record<string, unknown> },
      (v: TransformerPathPatchingFile) => v,
    );
  }

  /** Circuit faithfulness over a batch of prompt pairs (task 'transformer-faithfulness', one call; heads or edges), as analyzedInWorker. */
  protected faithfulnessInWorker(
    model: LoadedTransformer,
    key: string,
    request: TransformerFaithfulnessRequest | TransformerEdgeFaithfulnessRequest,
  ): TransformerFaithfulnessFile | TransformerEdgeFaithfulnessFile | null {
    return this.computedInWorker<TransformerFaithfulnessFile | TransformerEdgeFaithfulnessFile>(
      model,
      `batch:${key}`,
      { task: 'transformer-faithfulness', request: request as unknown as Record<string, unknown> },
      (v: TransformerFaithfulnessFile) => v,
    );
  }

  /** A step of a batch job of the current model is done (batchPatchedInWorker): by default nothing. */
  protected batchProgressed(_model: LoadedTransformer, _key: string, _done: number, _total: number): void {}

  /**
   * The value kept for `key` under `model`, computed here (cached) or in the worker (`run:…` for
   * ranInWorker's key, `analysis:…` for analyzedInWorker's); undefined when neither has it.
   */
  protected kept<T>(model: LoadedTransformer, key: string): T | undefined {
    return (this.memo.find(model.version, key) ?? this.memo.find(model.version, `worker:${key}`)) as T | undefined;
  }

  private computedInWorker<T>(model: LoadedTransformer, key: string, job: WorkerJob, pick: (value: never) => unknown): T | null {
    const hit = this.kept<T>(model, key);
    if (hit) return hit;
    this.workerWanted = { model, key, job, pick };
    if (!this.workerBusy) this.startWanted();
    return null;
  }

  /** An analysis of the current model failed in the worker: by default the widget shows the message. */
  protected workerFailed(_model: LoadedTransformer, _key: string, err: Error): void {
    this.showError(`The analysis failed: ${err.message}`);
  }

  /** Whether an analysis is in the worker or waiting for it (the build's snapshot pass waits for false). */
  get busy(): boolean {
    return (
      this.workerBusy ||
      this.workerWanted !== null ||
      this.waitingForTokens ||
      (this.currentModel?.tokenizer?.busy ?? false) ||
      (this.currentModel?.prompts.busy ?? false) ||
      this.promptFields.some((f) => f.waiting)
    );
  }

  /**
   * The prompt fields of this figure (PromptField adds itself): a typed text awaiting its encoding keeps the figure busy.
   * @internal
   */
  readonly promptFields: PromptField[] = [];

  /**
   * The state with the core's numbers behind the figure (patterns, attribution, patching, logits,
   * circuit); null while loading. Never throws.
   */
  abstract get figureData(): Record<string, unknown> | null;

  /**
   * A PromptField of this figure, read as the reader types (bindField); `onValid` runs on each valid
   * prompt (default: emitChange); attribute and fallback as PromptField's.
   */
  protected promptField(
    label: string,
    onValid: () => void = () => this.emitChange(),
    attribute?: string,
    fallback?: (model: LoadedTransformer) => number[],
  ): PromptField {
    return new PromptField(this, label, (input, options) => this.bindField(input, options), onValid, attribute, fallback);
  }

  /** Whether the last render stopped at a text prompt the worker had not yet encoded (TokensPending). */
  private waitingForTokens = false;
  /** The source whose `tokens` event this figure listens to (encodings arriving from the tokenizer's worker). */
  private tokensFrom: TransformerModelSource | null = null;
  private readonly onTokens = () => this.requestRender();

  /** Draws `model`; a prompt still being encoded leaves the figure as it is until the ids arrive. */
  protected drawModel(model: LoadedTransformer): void {
    try {
      this.renderContent(model);
      this.waitingForTokens = false;
    } catch (err) {
      // Only a pending encoding waits; a refused prompt (or any error) is shown and waits for nothing.
      this.waitingForTokens = err instanceof TokensPending;
      if (!this.waitingForTokens) throw err;
    }
  }

  protected summarize(): string {
    try {
      return super.summarize();
    } catch (err) {
      if (!(err instanceof TokensPending)) throw err;
      return 'The prompt is being encoded.';
    }
  }

  protected sourceBound(key: unknown): void {
    super.sourceBound(key);
    this.tokensFrom?.removeEventListener('tokens', this.onTokens);
    this.tokensFrom = this.source;
    this.tokensFrom?.addEventListener('tokens', this.onTokens);
  }

  /** Starts the waiting job unless its value is already kept (one job at a time). */
  private startWanted(): void {
    const wanted = this.workerWanted;
    this.workerWanted = null;
    if (!wanted || this.currentModel?.version !== wanted.model.version || this.kept(wanted.model, wanted.key) !== undefined) return;
    const { model, key, job: asked, pick } = wanted;
    const { task = 'transformer-analyze', background = false, ...job } = asked;
    const source = this.source;
    if (!source) return;
    this.workerBusy = true;
    const token = ++this.workerJob;
    source.request<WorkerResult>(
      model,
      task,
      { ...job },
      {
        progress: (detail) => {
          if (token !== this.workerJob || this.currentModel?.version !== model.version || typeof detail.pairs_done !== 'number') return;
          this.batchProgressed(model, key.replace(/^batch:/, ''), detail.pairs_done, Number(detail.pairs_total));
        },
        done: ({ value }) => {
          if (token !== this.workerJob) return;
          this.workerBusy = false;
          if (this.currentModel?.version === model.version) {
            this.memo.put(model.version, `worker:${key}`, pick(value as never));
            this.requestRender();
          }
          this.startWanted();
        },
        failed: (err) => {
          if (token !== this.workerJob) return;
          this.workerBusy = false;
          if (this.currentModel?.version === model.version)
            this.workerFailed(model, key.replace(/^(analysis|run|qk|batch|losses):/, ''), err);
          this.startWanted();
        },
      },
      // Batches over prompt pairs (and a heavy analysis) wait behind every figure's run and analysis (WorkerHost).
      // Activation patching over pairs stops between steps: it gives way to a figure's job asked while it runs.
      { background: background || BATCH_TASKS.has(task), yields: task === 'transformer-batch-patching' },
    );
  }

  /** The <headlab-transformer-model> this widget reads: by id (`model`), else the enclosing one. */
  protected sourceKey(): Element {
    const id = this.getAttribute('model') ?? '';
    if (id !== '') {
      const owner = document.getElementById(id);
      if (!owner || owner.localName !== MODEL_TAG)
        throw new WidgetInputError(`attribute model="${id}" names no <${MODEL_TAG} id="${id}"> on this page`);
      return owner;
    }
    const around = this.closest(MODEL_TAG);
    if (!around) throw new WidgetInputError(`this figure needs a model: put it inside a <${MODEL_TAG}> or name one with model="its id"`);
    return around;
  }

  protected sourceFor(owner: unknown): TransformerModelSource {
    this.owner = owner as Element;
    return sourceOf(this.owner);
  }

  // A new model makes every figure reading it render: each in a task of its own (no long task of all).
  protected sourceChanged(): void {
    this.forgetModel();
    this.requestRenderInTask();
  }

  disconnectedCallback(): void {
    // The source's worker stays (its model element owns it); this figure's answer still to come is dropped.
    this.workerJob++;
    this.workerBusy = false;
    this.workerWanted = null;
    this.owner = null;
    this.tokensFrom?.removeEventListener('tokens', this.onTokens);
    this.tokensFrom = null;
    this.waitingForTokens = false;
    // Re-attached, the figure builds its fields again.
    this.promptFields.length = 0;
    super.disconnectedCallback();
  }

  protected modelNoteText(model: LoadedTransformer): string {
    const c = model.config;
    const name = readerModelName(model, this.owner);
    return `Model${name ? `: ${name}` : ''} (${c.n_layers} layer${c.n_layers === 1 ? '' : 's'} × ${c.n_heads} heads, d_model ${c.d_model}, vocabulary ${c.d_vocab}, context ${c.n_ctx}).`;
  }
}

/**
 * The reader's prompt, mirrored to attribute `attribute` (default "prompt"): typed as token
 * names or ids, tokenised by the core (the model's own reader of prompts), validated as the reader
 * types; an invalid prompt is flagged beside the field and the last valid one kept. Without the
 * attribute the prompt is `fallback(config)`.
 */
export class PromptField {
  readonly element: HTMLDivElement;
  readonly input: HTMLTextAreaElement;
  private readonly bound: { show: (text: string) => void; check: () => boolean };

  constructor(
    private readonly host: TransformerWidget & { currentModel: LoadedTransformer | null },
    label: string,
    bind: (
      input: HTMLTextAreaElement,
      options: {
        label: string;
        parse: (text: string) => { ids: number[] | null; text: string };
        commit: (value: { ids: number[] | null; text: string }) => void;
        current?: () => string;
        message?: HTMLElement;
      },
    ) => { show: (text: string) => void; check: () => boolean },
    onValid: () => void,
    private readonly attribute = 'prompt',
    private readonly fallback: (model: LoadedTransformer) => number[] = modelDefaultPrompt,
  ) {
    host.promptFields.push(this);
    this.element = el('div', { class: 'row prompt-row' });
    const l = el('label', {}, label);
    this.labelText = l.firstChild as Text;
    this.labelWords = label;
    // A text area, not a one-line input: a prompt of n_ctx − 1 tokens is wider than a phone (or
    // than a one-line field at any width), and the reader should see all of it (the repeated block).
    this.input = el('textarea', { rows: '1', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'off', name: attribute });
    l.append(this.input);
    if (!fieldSizingSupported()) {
      this.input.addEventListener('input', () => this.fitHeight());
      if (typeof ResizeObserver === 'function') new ResizeObserver(() => this.fitHeight()).observe(this.input);
    }
    const problem = el('p', { class: 'input-problem', role: 'status' });
    // With a tokenizer: how many tokens the text gives (announced as it changes) and the tokens themselves.
    this.count = el('p', { class: 'token-count', role: 'status', id: localId(host, 'token-count') });
    this.chips = el('ol', { class: 'token-chips', 'aria-labelledby': this.count.id });
    this.count.hidden = this.chips.hidden = true;
    this.element.append(l, problem, this.count, this.chips);
    this.bound = bind(this.input, {
      label: `the ${attribute === 'prompt' ? 'prompt' : `${attribute} prompt`}`,
      message: problem,
      parse: (text) => {
        const model = this.host.currentModel;
        if (!model) throw new WidgetInputError('the model is still loading');
        this.awaiting = null;
        try {
          return { ids: tokenize(model, text, attribute === 'prompt' ? 'the prompt' : `the ${attribute} prompt`), text };
        } catch (err) {
          if (!(err instanceof TokensPending)) throw err;
          // Encoded in the worker: checked again when the ids arrive (sync), committed then if valid.
          this.awaiting = text;
          return { ids: null, text };
        }
      },
      commit: ({ ids, text: typed }) => {
        if (ids === null) return;
        const model = this.host.currentModel!;
        // With a tokenizer the attribute keeps the text as typed (its encoding is the prompt);
        // without one, the tokens' names or ids.
        const text = model.tokenizer ? typed : promptText(model.config, ids);
        if (this.host.getAttribute(this.attribute) === text) return;
        this.host.setAttribute(this.attribute, text);
        onValid();
      },
      current: () => {
        const m = this.host.currentModel;
        return m ? this.text(m) : '';
      },
    });
  }

  private readonly labelText: Text;
  private readonly labelWords: string;
  private readonly count: HTMLParagraphElement;
  private readonly chips: HTMLOListElement;
  /** The chips drawn last (model version and text), so a render that changes neither leaves them. */
  private chipsKey = '';
  /** A typed text whose encoding the worker was asked for when the field was checked (null: none). */
  private awaiting: string | null = null;
  /** Whether the check of the awaited text, now encoded, is queued. */
  private rechecking = false;

  /** Whether a typed text waits for its encoding (the widget is busy until it is checked again). */
  get waiting(): boolean {
    return this.awaiting !== null;
  }

  /** The prompt as token ids for `model` (the attribute, or the fallback prompt); TokensPending while a text is encoded. */
  tokens(model: LoadedTransformer): number[] {
    const raw = this.host.getAttribute(this.attribute);
    return raw === null || raw.trim() === '' ? this.fallback(model) : tokenize(model, raw, `attribute ${this.attribute}`);
  }

  /** The field's text for `model`: with a tokenizer the attribute as written, else the tokens' names or ids. */
  private text(model: LoadedTransformer): string {
    const raw = this.host.getAttribute(this.attribute);
    if (model.tokenizer && raw !== null && raw.trim() !== '') return raw.trim();
    return modelPromptText(model, this.tokens(model));
  }

  sync(model: LoadedTransformer): void {
    // A typed text the worker has read (or encoded) since the field was checked: check it again (committed if valid).
    const awaited = this.awaiting;
    const answered = (text: string) => (model.tokenizer ? model.tokenizer.encoded(text) : model.prompts.read(text)) !== undefined;
    if (awaited !== null && !this.rechecking && answered(awaited)) {
      this.rechecking = true;
      queueMicrotask(() => {
        this.rechecking = false;
        if (this.awaiting !== awaited) return;
        this.awaiting = null;
        if (this.input.value.trim() === awaited && this.host.currentModel === model) this.bound.check();
      });
    }
    // "Prompt (tokens separated by spaces):" says how ids are typed; with a tokenizer it is text.
    const words = model.tokenizer ? this.labelWords.replace(/\s*\(tokens separated by spaces\)/, ' (text)') : this.labelWords;
    if (this.labelText.data !== words) this.labelText.data = words;
    // A typed text awaiting its encoding stays in the field (it is checked again when the ids arrive).
    if (this.awaiting === null) this.bound.show(this.text(model));
    this.showTokens(model);
    if (!fieldSizingSupported()) this.fitHeight();
  }

  /**
   * With a tokenizer, the prompt's tokens under the field: one chip per token (its text, a space
   * drawn as ␣ and a line break as ↵, over its id), in a list named by the count line, which a
   * screen reader announces when it changes ("7 tokens: the · cat · …" is read from the list).
   */
  private showTokens(model: LoadedTransformer): void {
    const tokenizer = model.tokenizer;
    this.count.hidden = this.chips.hidden = !tokenizer;
    if (!tokenizer) {
      if (this.chipsKey !== '') this.chips.replaceChildren();
      this.chipsKey = '';
      return;
    }
    const ids = this.tokens(model);
    const key = `${model.version}\u0000${ids.join(' ')}`;
    if (key === this.chipsKey) return;
    this.chipsKey = key;
    this.count.textContent = `${ids.length} token${ids.length === 1 ? '' : 's'}, as ${model.tokenizerLabel ?? 'the tokenizer'} cuts the ${this.attribute === 'prompt' ? 'prompt' : `${this.attribute} prompt`}:`;
    this.chips.replaceChildren(
      ...ids.map((id, i) => {
        const name = tokenName(model.config, id);
        const shown = name.replace(/ /g, '␣').replace(/\n/g, '↵').replace(/\t/g, '⇥').replace(/\r/g, '␍');
        const li = el('li');
        const idLine = el('span', { class: 'id' });
        idLine.append(el('span', { class: 'visually-hidden' }, ', id '), String(id));
        li.append(
          el('span', { class: 'visually-hidden' }, `token ${i + 1}: `),
          el('span', { class: 'text' }, shown === '' ? '∅' : shown),
          idLine,
        );
        return li;
      }),
    );
  }

  /** Without field-sizing: the text area as tall as its wrapped text (the scroll height, borders added). */
  private fitHeight(): void {
    const t = this.input;
    if (!t.isConnected || t.clientWidth === 0) return;
    t.style.height = 'auto';
    t.style.height = `${t.scrollHeight + t.offsetHeight - t.clientHeight}px`;
  }
}

/** Whether the browser sizes a text area to its content from CSS (field-sizing: content). */
function fieldSizingSupported(): boolean {
  return typeof CSS !== 'undefined' && CSS.supports('field-sizing', 'content');
}

/**
 * Text → token ids: by the model's tokenizer when it has one (encodePrompt: the CLI's --prompt with
 * --tokenizer), else by the core's prompt reader (names or ids); both in the source's worker,
 * TokensPending until it has answered; the core's message (naming the bad token and its position)
 * as a WidgetInputError.
 */
export function tokenize(model: LoadedTransformer, text: string, what: string): number[] {
  if (model.tokenizer) {
    // Encoded in the tokenizer's worker (TokenizerLink): the ids once it has answered, its refusal as the CLI words it.
    const encoded = model.tokenizer.encoded(text);
    if (encoded === undefined) throw new TokensPending(text);
    if ('error' in encoded) throw new WidgetInputError(`${what} "${text}": ${encoded.error}`);
    return encoded.ids;
  }
  // Read by the kept model's prompt reader in the worker (PromptLink), as the tokenizer encodes text.
  const read = model.prompts.read(text);
  if (read === undefined) throw new TokensPending(text);
  if ('error' in read) throw new WidgetInputError(`${what} "${text}": ${read.error}`);
  return read.ids;
}
