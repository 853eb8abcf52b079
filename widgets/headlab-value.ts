// <headlab-value source="<element id>" name="<value name>" [format="percent|count|number|sci"] [digits="0…6"]>fallback</headlab-value>
//
// A number in the prose that is read from the model on the page, so a sentence about the
// current model cannot contradict its figure after the reader retrains it. The source element
// implements `boundValue(name)` → { value, kind, of? } | undefined (see BoundSource) and
// dispatches its bubbling `change` event whenever its values may have changed; the base class
// of every headlab-* widget also dispatches a bubbling `headlab-render` after each render, so
// a value appears as soon as the source has one. The text is formatted by widgets/chart/format.ts
// (an accuracy is "100%" only when every item is right).
//
// Until the source answers, the element shows its own fallback text (what the author wrote
// inside it), marked data-state="pending"; an unknown source id gives data-state="missing". A
// source computing a new value after having had one (another head or cell: it answers
// { computing: true }) gives "computing…", marked data-state="computing" and aria-busy: the
// author's text describes the page as it opened, and the value shown before describes other
// inputs, so neither is shown.
// The number is plain light-DOM text in the sentence: selectable, found by find-in-page and
// read by screen readers as part of the sentence.
import { custom, defineAttributes, observedOf, text, type AttributeProperties } from './base/attributes.js';
import { formatBound, type BoundComputing, type BoundValue, type ValueFormat } from './chart/format.js';

/** What a source element offers to <headlab-value>. */
export interface BoundSource extends Element {
  boundValue(name: string): BoundValue | BoundComputing | undefined;
}

const FORMATS: readonly ValueFormat[] = ['percent', 'count', 'number', 'sci'];

/** Most decimals the digits attribute asks for (more than a prose number needs; formatNumber rounds at 10⁻ᵈ). */
export const MAX_DIGITS = 6;

/** What the element shows while its source computes a new value (data-state="computing"). */
export const COMPUTING_TEXT = 'computing…';

// Importable during server rendering: no browser global is touched at module load.
const ElementBase = (typeof HTMLElement === 'undefined' ? class {} : HTMLElement) as typeof HTMLElement;

/**
 * A number in the prose computed by the model on the page: reads `boundValue(name)` of the element with id
 * `source`, again on its `change` event and after each of its renders, and prints it in words (an accuracy is
 * 100% only when every item is right). Shows its own text until the source answers. Attributes: source, name,
 * format ("percent" | "count" | "number" | "sci"; default from the value's kind), digits (decimals of a number or
 * percentage, 0–6, so the value keeps the precision of the fallback text). Inline, no shadow root.
 */
export class HeadlabValue extends ElementBase {
  static attributes = defineAttributes({
    source: text({ doc: 'Id of the element that computes the value.' }),
    name: text({ doc: 'Name of the value, as the source’s boundValue() knows it.' }),
    format: custom({
      type: "'percent' | 'count' | 'number' | 'sci' | undefined",
      markup: "'percent' | 'count' | 'number' | 'sci'",
      doc: 'How the value is printed; absent or unknown: the default for its kind.',
      parse: (f) => (f !== null && (FORMATS as readonly string[]).includes(f) ? (f as ValueFormat) : undefined),
      format: (v: ValueFormat | undefined) => v ?? null,
    }),
    digits: custom({
      type: 'number | undefined',
      markup: 'Num',
      // The precision of the author's own fallback text, so the sentence reads the same once the
      // model answers ("2.06", not "2.0593").
      doc: `Decimals of a number or percentage, 0–${MAX_DIGITS}; absent or invalid: the format’s default.`,
      parse: (d) => {
        if (d === null || !/^\d{1,2}$/.test(d.trim())) return undefined;
        const n = Number(d);
        return n <= MAX_DIGITS ? n : undefined;
      },
      format: (v: number | undefined) => (v === undefined ? null : String(v)),
    }),
  });
  static get observedAttributes(): string[] {
    return observedOf(this);
  }

  private fallback: string | null = null;
  private listeners: AbortController | null = null;
  private awaitingDefinition = false;

  private shown: BoundValue | undefined = undefined;

  /** The value as last shown, or undefined while the source has none. */
  get value(): BoundValue | undefined {
    return this.shown;
  }

  /**
   * Resolves once the number is shown (true) or the source is missing (false: the fallback text
   * stays); while the source has no value yet (data-state="pending" or "computing"), it waits. Never rejects.
   */
  get updateComplete(): Promise<boolean> {
    const state = this.getAttribute('data-state');
    if (this.isConnected && (state === 'bound' || state === 'missing')) return Promise.resolve(state === 'bound');
    this.completion ??= new Promise<boolean>((resolve) => {
      this.completed = resolve;
    });
    return this.completion;
  }

  private completion: Promise<boolean> | null = null;
  private completed: ((bound: boolean) => void) | null = null;

  connectedCallback(): void {
    if (this.fallback === null) this.fallback = this.textContent ?? '';
    this.listeners = new AbortController();
    const { signal } = this.listeners;
    // The source may come later in the document than this element, or be upgraded later.
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => this.update(), { signal, once: true });
    // Both events bubble to the document, so a source added or replaced later is found too.
    const fromSource = (event: Event): void => {
      if ((event.target as Element | null)?.id === this.source) this.update();
    };
    document.addEventListener('change', fromSource, { signal });
    document.addEventListener('headlab-render', fromSource, { signal });
    this.update();
  }

  disconnectedCallback(): void {
    this.listeners?.abort();
    this.listeners = null;
  }

  attributeChangedCallback(): void {
    if (this.listeners) this.update();
  }

  /** Reads the value from the source again and shows it. */
  update(): void {
    const id = this.source;
    const source = id ? document.getElementById(id) : null;
    if (!source) {
      this.show(undefined, document.readyState === 'loading' ? 'pending' : 'missing');
      return;
    }
    if (typeof (source as Partial<BoundSource>).boundValue !== 'function') {
      // Not upgraded yet: try again once its class is defined.
      if (source.localName.includes('-') && !this.awaitingDefinition) {
        this.awaitingDefinition = true;
        void customElements.whenDefined(source.localName).then(() => {
          this.awaitingDefinition = false;
          if (this.isConnected) this.update();
        });
      }
      this.show(undefined, 'pending');
      return;
    }
    let v: BoundValue | BoundComputing | undefined;
    try {
      v = (source as unknown as BoundSource).boundValue(this.name);
    } catch {
      v = undefined;
    }
    if (v !== undefined && 'computing' in v && v.computing === true) {
      this.show(undefined, 'computing');
      return;
    }
    const bound = v as BoundValue | undefined;
    this.show(bound !== undefined && typeof bound.value === 'number' ? bound : undefined, bound === undefined ? 'pending' : 'bound');
  }

  private show(v: BoundValue | undefined, state: 'pending' | 'missing' | 'bound' | 'computing'): void {
    this.shown = v;
    const text = v ? formatBound(v, this.format, this.digits) : state === 'computing' ? COMPUTING_TEXT : (this.fallback ?? '');
    if (this.textContent !== text) this.textContent = text;
    if (this.getAttribute('data-state') !== state) this.setAttribute('data-state', state);
    if (state === 'computing') this.setAttribute('aria-busy', 'true');
    else if (this.hasAttribute('aria-busy')) this.removeAttribute('aria-busy');
    if ((state === 'bound' || state === 'missing') && this.completed) {
      const resolve = this.completed;
      this.completion = this.completed = null;
      resolve(state === 'bound');
    }
  }
}

export interface HeadlabValue extends AttributeProperties<typeof HeadlabValue.attributes> {}
