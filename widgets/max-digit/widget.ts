// What the max-digit widgets share: the model they read (see model.ts), the reader's list of
// digits, the head colours (Okabe–Ito, the same in every widget) and the token labels.
//
// A MaxDigitWidget (a ModelFigure, widgets/base/model-figure.ts) resolves its model source in
// build(): the `model` attribute names the id of a <headlab-max-digit-model> element on the page;
// without it the widget uses the shipped seed-0 weights. While the model loads it shows a note;
// when the model cannot be loaded, or `model` names no such element, the problem is shown inside
// the widget. Its figures light up together what the reader points at (highlight.ts).
import { getMaxDigitCore } from '../../web/browser-core.js';
import type { MaxDigitCore, MaxDigitModel as MaxDigitHeldWeights } from '../../web/headlab-core.js';
import { WidgetInputError, custom, el } from '../base/headlab-element.js';
import { MODEL_FIGURE_CSS, ModelFigure, type FigureParts } from '../base/model-figure.js';
import { formatPercent } from '../chart/format.js';
import { applyHighlight, currentHighlight, highlightOf, onHighlight, setHighlight } from './highlight.js';
import { firstInteraction, watchReach } from './loading.js';
import { defaultWeightsUrl, modelSource, retryOnInteraction, type MaxDigitModel, type MaxDigitModelSource } from './model.js';

/** Head h's colour (Okabe–Ito orange, sky blue, bluish green, reddish purple): legible on light and dark panels. */
export const HEAD_COLOURS = ['#e69f00', '#56b4e9', '#009e73', '#cc79a7'] as const;
export const POSITIONS = 9;
export const ANS_POSITION = 8;
export const PAD = 10;
export const BOS = 11;
export const SEP = 12;
export const ANS = 13;

/**
 * Heads the per-head controls are built for (buttons, radio groups, legends): they exist before
 * the model loads, behind the prerendered snapshot. Everything drawn from a model reads its head
 * count from the model (headCount); render() checks the two agree.
 */
export const CONTROL_HEADS = 4;

/** How many heads `model` has: n_heads of its weights, as the core writes them (core/max_digit_task.hpp), never restated here. */
export function headCount(model: MaxDigitModel): number {
  const n = model.weights.n_heads;
  if (!Number.isInteger(n) || n! < 1) throw new WidgetInputError(`the model's weights give no head count (n_heads ${n})`);
  return n!;
}

/** `model`'s token names by id ("0"…"9", "PAD", "BOS", "SEP", "ANS"): vocab of its weights, as the core writes them. */
export function tokenNames(model: MaxDigitModel): readonly string[] {
  const names = model.weights.vocab;
  if (!Array.isArray(names) || names.length === 0) throw new WidgetInputError("the model's weights give no vocabulary");
  return names;
}

/** The nine tokens of the prompt for `digits`: BOS, the digits, PAD up to six slots, SEP, ANS. */
export function promptTokens(digits: number[]): number[] {
  const slots = [...digits, ...Array(6 - digits.length).fill(PAD)];
  return [BOS, ...slots, SEP, ANS];
}

/**
 * A list of 1–6 digits written as "2 3 4 5 6", "2,3,4,5,6" or "23456"; throws
 * WidgetInputError naming `what` when it is anything else.
 */
export function parseDigits(text: string, what: string): number[] {
  const trimmed = text.trim();
  const parts = /^[0-9]+$/.test(trimmed) ? trimmed.split('') : trimmed.split(/[\s,;]+/).filter((p) => p !== '');
  if (parts.length < 1 || parts.length > 6) {
    throw new WidgetInputError(`${what} "${text}" must hold 1 to 6 digits, got ${parts.length}`);
  }
  return parts.map((p) => {
    if (!/^[0-9]$/.test(p)) throw new WidgetInputError(`${what} "${text}": "${p}" is not a digit 0–9`);
    return Number(p);
  });
}

export const DEFAULT_DIGITS = [2, 3, 4, 5, 6];

/** The `digits` attribute of a figure that reads one list (the reader's field mirrors it). */
export const digitsAttribute = custom({
  type: 'number[]',
  shared: true,
  doc: 'The list of 1 to 6 digits 0–9, separated by spaces (default "2 3 4 5 6").',
  parse: (raw) => (raw === null ? DEFAULT_DIGITS : parseDigits(raw, 'attribute digits')),
  format: (v: number[]) => v.join(' '),
});

export const MAX_DIGIT_CSS = /* css */ `
  .figure svg { display: block; max-width: 100%; height: auto; }
  .digits-row label { display: flex; gap: 0.4rem; align-items: center; flex-wrap: wrap; }
  .digits-row input { font: inherit; width: 9em; padding: 0.2rem 0.4rem; min-height: 2.75rem; box-sizing: border-box;
    color: var(--hl-fg); background: var(--hl-control); border: 1px solid var(--hl-rule); border-radius: 4px; }
  .input-problem { color: var(--hl-bad); font-size: 0.9em; margin: 0.2rem 0 0; }
  .input-problem:empty { display: none; }
  .swatch { display: inline-block; width: 0.8em; height: 0.8em; border-radius: 2px; margin-right: 0.3em; vertical-align: -0.05em; }
  .legend { display: flex; flex-wrap: wrap; gap: 0.2rem 0.9rem; font-size: 0.9em; margin: 0.3rem 0; }
  td.best { font-weight: 700; }
  td.disagree, .disagree { outline: 2px solid var(--hl-changed); outline-offset: -2px; }
  th.head-name { white-space: nowrap; }
  table.compact th, table.compact td { padding: 0.15rem 0.3rem; font-size: 0.85em; }
  table.compact caption { font-size: 0.85em; }
  th.corner { white-space: nowrap; }
  .dim { opacity: 0.28; transition: opacity 0.12s; }
  .lit { opacity: 1; }
  td.lit, th.lit, label.lit, fieldset.lit { outline: 2px solid var(--hl-focus); outline-offset: -2px; }
  @media (prefers-reduced-motion: reduce) { .dim { transition: none; } }
${MODEL_FIGURE_CSS}`;

/** A swatch element in head h's colour (the colour is set through CSSOM, which the strict CSP allows). */
export function headSwatch(h: number): HTMLSpanElement {
  const s = el('span', { class: 'swatch', 'aria-hidden': 'true' });
  s.style.background = HEAD_COLOURS[h];
  return s;
}

/**
 * A horizontally scrolling box for a table wider than a narrow screen: focusable (a keyboard
 * reader can scroll it) and named for screen readers.
 */
export function scrollBox(label: string): HTMLDivElement {
  return el('div', { class: 'scroll', tabindex: '0', role: 'group', 'aria-label': label });
}

/** Heat tint for table cells: at most two thirds of the base sheet's strongest mix, so text keeps 4.5:1 contrast in light and dark. */
export const HEAT_HEADROOM = 1.5;

/** "head 0" with its colour swatch. */
export function headLabel(h: number): DocumentFragment {
  const f = document.createDocumentFragment();
  f.append(headSwatch(h), `head ${h}`);
  return f;
}

/**
 * Common to the max-digit figures. Each reads a max-digit model: the one of the
 * <headlab-max-digit-model> whose id its `model` attribute names, or (no `model`) the shipped
 * seed-0 weights from data/max-digit-seed0.json beside the package's modules. Heads are 0–3; digit
 * lists are 6 digits 0–9. Behind a prerendered snapshot a figure loads its module and weights on
 * the reader's first interaction (docs/embedding.md); its model element's loading="eager" loads
 * them with the page.
 */
export abstract class MaxDigitWidget<State = unknown, Parts extends object = object> extends ModelFigure<MaxDigitModel, State, Parts> {
  protected static loadModule: () => Promise<unknown> = getMaxDigitCore;
  /** The page's headlab_max_digit module (null before it has loaded). */
  protected maxDigit: MaxDigitCore | null = null;
  protected static cachedInputs = 256;
  declare protected source: MaxDigitModelSource | null;
  private unsubscribeHighlight: (() => void) | null = null;

  /** The model of the last render (an export draws what was shown). */
  private drawn: MaxDigitModel | null = null;

  /** This figure's digits field (attribute digits), read as the reader types; a valid list renders the figure. */
  protected digitsField(): DigitsField {
    return new DigitsField(
      this,
      'Digits (1 to 6, each 0–9):',
      (input, options) => this.bindField(input, options),
      () => this.emitChange(),
    );
  }

  private factsModel(): MaxDigitModel {
    const model = this.currentModel ?? this.drawn;
    if (!model) throw new WidgetInputError('nothing to draw before the model has loaded');
    return model;
  }

  /** The head count of the model shown (or last drawn). */
  protected get heads(): number {
    return headCount(this.factsModel());
  }

  /** The token names of the model shown (or last drawn). */
  protected get tokenNames(): readonly string[] {
    return tokenNames(this.factsModel());
  }

  protected moduleLoaded(module: unknown): void {
    this.maxDigit = module as MaxDigitCore;
  }

  /** `model`'s weights held in the page's max-digit module (copied in once per model for every figure): what the analyses take. */
  protected held(model: MaxDigitModel): MaxDigitHeldWeights {
    return this.source!.held(this.maxDigit!, model);
  }

  /** Called when the model is replaced (retraining): drop caches keyed on the old weights. */
  protected modelChanged(): void {}

  /** The `model` attribute: the id of a <headlab-max-digit-model>, or '' for the shipped weights. */
  protected sourceKey(): string {
    const id = this.getAttribute('model') ?? '';
    if (id !== '') {
      const owner = document.getElementById(id);
      if (!owner || owner.localName !== 'headlab-max-digit-model') {
        throw new WidgetInputError(`attribute model="${id}" names no <headlab-max-digit-model id="${id}"> on this page`);
      }
    }
    return id;
  }

  protected sourceFor(id: unknown): MaxDigitModelSource {
    return modelSource(id as string);
  }

  protected sourceBound(id: unknown): void {
    this.modelChanged();
    if (id === '' && this.source!.status === 'idle') void this.source!.load(defaultWeightsUrl());
  }

  /**
   * Whether the figure has yet to draw the model it was handed (its render waits for its turn,
   * requestRenderInTurn): tests, the benchmark and the build's snapshot pass wait for false.
   */
  get busy(): boolean {
    return this.renderTurnPending;
  }

  /** The model loaded or was replaced: every figure of the page redraws, one per task (requestRenderInTurn). */
  protected sourceChanged(): void {
    this.modelChanged();
    this.requestRenderInTurn();
  }

  /**
   * Behind a prerendered snapshot the module and the weights wait for the reader's first
   * interaction (widgets/max-digit/loading.ts), unless the model element it names has
   * loading="eager".
   */
  protected deferLoading(): Promise<void> | null {
    const id = this.getAttribute('model');
    if (id && document.getElementById(id)?.getAttribute('loading') === 'eager') return null;
    this.stopWatchingReach?.();
    this.stopWatchingReach = watchReach(this);
    return firstInteraction();
  }

  private stopWatchingReach: (() => void) | null = null;

  disconnectedCallback(): void {
    this.stopWatchingReach?.();
    this.stopWatchingReach = null;
    this.unsubscribeHighlight?.();
    this.unsubscribeHighlight = null;
    super.disconnectedCallback();
  }

  protected build(): FigureParts<Parts> {
    const parts = super.build();
    // A model that failed to load for a reason that may pass (the worker blocked, the network) is
    // loaded again at the reader's next click or key press.
    retryOnInteraction(
      (target, type, handler) => this.listen(target, type, handler),
      () => this.source,
    );
    const content = parts.frame.content;
    // Linked highlighting: what the pointer or focus names here lights up in every max-digit figure.
    const pick = (e: Event) => setHighlight(highlightOf(e.composedPath()));
    this.listen(content, 'pointerover', pick);
    this.listen(content, 'focusin', pick);
    this.listen(content, 'pointerleave', () => setHighlight(null));
    this.listen(content, 'focusout', (e) => {
      if (!content.contains((e as FocusEvent).relatedTarget as Node | null)) setHighlight(null);
    });
    this.unsubscribeHighlight = onHighlight((h) => applyHighlight(content, h));
    return parts;
  }

  /** Re-applies the page's highlight to freshly rendered nodes. */
  protected relight(): void {
    applyHighlight(this.parts.frame.content, currentHighlight());
  }

  protected drawModel(model: MaxDigitModel): void {
    if (headCount(model) !== CONTROL_HEADS) {
      throw new WidgetInputError(`this figure's controls are for ${CONTROL_HEADS} heads; the model has ${headCount(model)}`);
    }
    this.drawn = model;
    this.renderContent(model);
    this.relight();
  }

  protected modelNoteText(model: MaxDigitModel): string {
    return `Model: ${model.label}.`;
  }

  protected loadingSummary(): string {
    return 'The max-digit model is loading.';
  }
}

/** The base class's bindField, as a DigitsField uses it. */
export type BindField = (
  input: HTMLInputElement,
  options: {
    label: string;
    parse: (text: string) => number[];
    commit: (value: number[]) => void;
    current?: () => string;
    message?: HTMLElement;
  },
) => { show: (text: string) => void };

/**
 * A text field for the reader's list of digits, mirrored to the `digits` attribute. It reacts
 * as the reader types (debounced, through the base class's bindField); invalid text is flagged
 * beside the field and the last valid list is kept.
 */
export class DigitsField {
  readonly element: HTMLDivElement;
  readonly input: HTMLInputElement;
  private readonly problem: HTMLParagraphElement;
  private readonly bound: { show: (text: string) => void };

  constructor(
    private readonly host: HTMLElement,
    label: string,
    bind: BindField,
    onValid: () => void,
  ) {
    this.element = el('div', { class: 'row digits-row' });
    const l = el('label', {}, label);
    this.input = el('input', { type: 'text', inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false', name: 'digits' });
    l.append(this.input);
    this.problem = el('p', { class: 'input-problem', role: 'status' });
    this.element.append(l, this.problem);
    this.bound = bind(this.input, {
      label: 'the list',
      message: this.problem,
      parse: (text) => parseDigits(text, 'the list'),
      commit: (digits) => {
        if (this.host.getAttribute('digits') === digits.join(' ')) return;
        this.host.setAttribute('digits', digits.join(' '));
        onValid();
      },
      current: () => this.digits().join(' '),
    });
  }

  /** The `digits` attribute (default 2 3 4 5 6). */
  digits(): number[] {
    const raw = this.host.getAttribute('digits');
    return raw === null ? DEFAULT_DIGITS : parseDigits(raw, 'attribute digits');
  }

  /** Shows the current list unless the reader is editing or the field holds an invalid entry. */
  sync(_active?: Element | null): void {
    this.bound.show(this.digits().join(' '));
  }
}

/** Index of the largest entry among the first `n` (ties to the lowest index, like the core). */
export function argmax(values: ArrayLike<number>, n = values.length): number {
  let best = 0;
  for (let i = 1; i < n; i++) if (values[i] > values[best]) best = i;
  return best;
}

/** A fraction as a percentage that reads "100%" only when every item is right (the shared formatter). */
export function percent(x: number, digits = 1): string {
  return formatPercent(x, digits);
}
