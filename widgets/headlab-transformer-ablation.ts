// <headlab-transformer-ablation model="m">: what the model loses without a head. The reader picks
// heads to ablate (zero: the head's output replaced by 0; mean: by its mean output over repeated
// random sequences at each position) and sees, on their own prompt, the logits of the next token
// at the last position before and after (the top tokens of the clean run, and where the ablated
// run moves them). Beside it, for every head alone, the in-context loss on repeated random sequences
// with that head ablated, against the clean loss (core/transformer_analysis.hpp, head_ablation_loss).
//
// Attributes: model, prompt, mode ("zero" | "mean", default "mean"), heads (heads ablated, as
// "L.H" pairs separated by spaces, e.g. "1.2 0.3"; default none).
// Events: `change` with { prompt, mode, heads, clean_loss } when the reader changes any of them.
import type { TransformerAnalysis, TransformerRun } from '../web/headlab-core.js';
import { el, enumAttribute, WidgetInputError, type WidgetFigure } from './base/headlab-element.js';
import { formatNumber } from './chart/format.js';
import { rgbText } from './chart/palette.js';
import type { Scene, Shape } from './chart/scene.js';
import { drawnSvg, signedBarShapes } from './transformer/draw.js';
import type { LoadedTransformer } from './transformer/model.js';
import { PromptField, TRANSFORMER_CSS, TransformerWidget, headName, tokenName } from './transformer/widget.js';

export interface TransformerAblationState {
  prompt: number[];
  mode: 'zero' | 'mean';
  /** Heads ablated, as [layer, head] pairs. */
  heads: [number, number][];
  /** In-context loss (nats) without ablation on the repeated random sequences. */
  clean_loss: number | null;
}

/** Repeated random sequences for mean ablation and the per-head losses (the CLI's default). */
const SEQUENCES = 32;
/** Tokens listed before/after: the clean run's most likely next tokens. */
const TOP = 6;

export class HeadlabTransformerAblation extends TransformerWidget<TransformerAblationState> {
  static observedAttributes = ['model', 'prompt', 'mode', 'heads'];
  protected static sharedAttributes = ['prompt', 'mode', 'heads'];
  protected static css = /* css */ `${TRANSFORMER_CSS}
    .heads { display: flex; flex-wrap: wrap; gap: 0.2rem 0.8rem; border: 0; padding: 0; margin: 0.3rem 0; }
    .heads label { display: inline-flex; gap: 0.3rem; align-items: center; min-height: 2.75rem; }
    .heads input { width: 1.3rem; height: 1.3rem; accent-color: var(--hl-focus); }
  `;

  private field: PromptField | null = null;
  private modeSelect: HTMLSelectElement | null = null;
  private headBox: HTMLFieldSetElement | null = null;
  private logitSlot: HTMLDivElement | null = null;
  private lossSlot: HTMLDivElement | null = null;
  private logitCaption: HTMLParagraphElement | null = null;
  private lossCaption: HTMLParagraphElement | null = null;
  private boxesFor = '';
  /** The model element whose renders this figure follows for its `analysis` (one listener per connection). */
  private followed: Element | null = null;
  private shown: {
    model: LoadedTransformer;
    before: TransformerRun;
    after: TransformerRun | null;
    analysis: TransformerAnalysis | null;
    heads: [number, number][];
    text: string;
  } | null = null;

  get mode(): 'zero' | 'mean' {
    return enumAttribute(this, 'mode', ['zero', 'mean'] as const, 'mean');
  }
  set mode(v: 'zero' | 'mean') {
    this.setAttribute('mode', v);
  }

  /** The ablated heads from the `heads` attribute (checked against the model's shape). */
  heads(model: LoadedTransformer | null = this.currentModel): [number, number][] {
    const raw = (this.getAttribute('heads') ?? '').trim();
    if (raw === '') return [];
    const out: [number, number][] = [];
    for (const part of raw.split(/[\s,]+/)) {
      const m = /^(\d+)\.(\d+)$/.exec(part);
      if (!m) throw new WidgetInputError(`attribute heads="${raw}": "${part}" is not a layer.head pair such as 1.2`);
      const l = Number(m[1]),
        h = Number(m[2]);
      if (model && (l >= model.config.n_layers || h >= model.config.n_heads)) {
        throw new WidgetInputError(
          `attribute heads="${raw}": the model has no head ${part} (${model.config.n_layers} layers × ${model.config.n_heads} heads, numbered from 0)`,
        );
      }
      if (!out.some(([a, b]) => a === l && b === h)) out.push([l, h]);
    }
    return out;
  }

  protected readState(): TransformerAblationState {
    const m = this.currentModel;
    return {
      prompt: m && this.field ? this.field.tokens(m) : [],
      mode: this.mode,
      heads: this.heads(),
      clean_loss: this.shown?.analysis?.ablation.clean_loss ?? null,
    };
  }

  /**
   * The loss of each ablated head, which runs the model on SEQUENCES repeated random sequences per
   * head (the prompt does not enter it); null until it arrives. Mean ablation on the CLI's defaults
   * (32 sequences, seed 0) is part of the model element's own `analysis`, computed once in its
   * worker, so the figure reads it there (and renders again when the element does); zero ablation,
   * or a model element not yet defined, is analysed in this figure's worker.
   */
  private lossAnalysis(model: LoadedTransformer, tokens: number[], mode: 'zero' | 'mean'): TransformerAnalysis | null {
    const owner = this.modelElement as (Element & { analysis?: TransformerAnalysis | null }) | null;
    if (mode === 'mean' && owner && 'analysis' in owner) {
      if (this.followed !== owner) {
        this.followed = owner;
        this.listen(owner, 'headlab-render', (e) => {
          if (e.target === owner && this.mode === 'mean') this.requestRender();
        });
      }
      return owner.analysis ?? null;
    }
    return this.analyzedInWorker(model, `loss:${mode}`, { prompt: tokens.slice(0, 1), ablation: mode, sequences: SEQUENCES });
  }

  /** Also busy while the model element computes the mean-ablation losses, or has them and this figure has not yet drawn them. */
  get busy(): boolean {
    if (super.busy) return true;
    const owner = this.followed as (Element & { analysis?: TransformerAnalysis | null; busy?: boolean }) | null;
    // The attribute itself, not `mode` (which throws for an invalid value: busy never throws).
    if (!owner || (this.getAttribute('mode') || 'mean') !== 'mean' || !this.shown || this.shown.analysis !== null) return false;
    return owner.busy === true || owner.analysis != null;
  }

  protected buildContent(content: HTMLDivElement): void {
    this.followed = null;
    this.field = new PromptField(
      this,
      'Prompt:',
      (input, options) => this.bindField(input, options),
      () => this.emitChange(),
    );
    const controls = el('div', { class: 'controls' });
    const ml = el('label', {}, 'Ablation');
    this.modeSelect = el('select', { name: 'mode' });
    this.modeSelect.append(el('option', { value: 'mean' }, 'mean (average output)'), el('option', { value: 'zero' }, 'zero (no output)'));
    ml.append(this.modeSelect);
    controls.append(ml);
    this.listen(this.modeSelect, 'change', () => {
      this.mode = this.modeSelect!.value as 'zero' | 'mean';
      this.emitChange();
    });
    this.headBox = el('fieldset', { class: 'heads' });
    this.logitSlot = el('div');
    this.logitCaption = el('p', { class: 'caption' });
    this.lossSlot = el('div');
    this.lossCaption = el('p', { class: 'caption' });
    const f1 = el('div', { class: 'figure' });
    f1.append(this.logitSlot, this.logitCaption);
    const f2 = el('div', { class: 'figure' });
    f2.append(this.lossSlot, this.lossCaption);
    content.append(
      el('p', { class: 'title' }, 'Head ablation: the logits before and after'),
      this.field.element,
      controls,
      this.headBox,
      f1,
      f2,
    );
  }

  private headBoxes(model: LoadedTransformer): void {
    const key = `${model.version}`;
    if (this.boxesFor === key) return;
    this.boxesFor = key;
    const legend = el('legend', {}, 'Heads to ablate');
    const boxes: HTMLElement[] = [legend];
    for (let l = 0; l < model.config.n_layers; l++) {
      for (let h = 0; h < model.config.n_heads; h++) {
        const label = el('label');
        const input = el('input', { type: 'checkbox', 'data-layer': String(l), 'data-head': String(h) });
        this.listen(input, 'change', () => {
          const chosen = [...this.headBox!.querySelectorAll<HTMLInputElement>('input:checked')].map(
            (i) => `${i.dataset.layer}.${i.dataset.head}`,
          );
          if (chosen.length) this.setAttribute('heads', chosen.join(' '));
          else this.removeAttribute('heads');
          this.emitChange();
        });
        label.append(input, headName(l, h));
        boxes.push(label);
      }
    }
    this.headBox!.replaceChildren(...boxes);
  }

  protected renderContent(model: LoadedTransformer): void {
    this.field!.sync(model);
    this.headBoxes(model);
    const tokens = this.field!.tokens(model);
    const mode = this.mode;
    const heads = this.heads(model);
    this.modeSelect!.value = mode;
    for (const input of this.headBox!.querySelectorAll<HTMLInputElement>('input')) {
      input.checked = heads.some(([l, h]) => String(l) === input.dataset.layer && String(h) === input.dataset.head);
    }
    const before = this.cached(model, `run:${tokens.join(',')}`, () => model.handle.run(tokens));
    const headKey = heads.map(([l, h]) => `${l}.${h}`).join(' ');
    // The ablated run in the worker (mean ablation runs the model on SEQUENCES repeated random
    // sequences first: about 20 ms in WASM, too long for a frame); until it arrives the figure
    // keeps what it shows and its caption says what it computes.
    const after =
      heads.length === 0
        ? before
        : this.ranInWorker(model, `ablated:${tokens.join(',')}|${mode}|${headKey}`, tokens, {
            ablate: heads,
            mode,
            sequences: SEQUENCES,
            seed: 0,
          });
    const analysis = this.lossAnalysis(model, tokens, mode);
    if (after === null) {
      const waiting = `Computing the run with ${heads.map(([l, h]) => headName(l, h)).join(', ')} ${mode}-ablated…`;
      if (this.logitCaption!.textContent !== waiting) this.logitCaption!.textContent = waiting;
      if (this.shown?.model !== model) this.show(this.logitSlot!, el('p', { class: 'waiting' }, waiting));
      this.showLosses(model, analysis);
      return;
    }
    const last = tokens.length - 1;
    const lb = before.logits[last],
      la = after.logits[last];
    const order = Array.from(lb, (_, t) => t)
      .sort((x, y) => lb[y] - lb[x])
      .slice(0, TOP);
    const topAfter = la.reduce((best, v, t) => (v > la[best] ? t : best), 0);
    const name = (t: number) => tokenName(model.config, t);
    const text =
      heads.length === 0
        ? `No head ablated: after ${name(tokens[last])} the model's top next token is ${name(order[0])} (logit ${formatNumber(lb[order[0]], 3)}). Tick heads to ablate them.`
        : `With ${heads.map(([l, h]) => headName(l, h)).join(', ')} ${mode}-ablated, the logit of ${name(order[0])} goes from ${formatNumber(lb[order[0]], 3)} to ${formatNumber(la[order[0]], 3)}; the top next token is ${name(topAfter)}${topAfter === order[0] ? ' still' : ` instead of ${name(order[0])}`}.`;
    this.shown = { model, before, after: heads.length ? after : null, analysis, heads, text };
    this.show(
      this.logitSlot!,
      this.fragment(model, `logits:${tokens.join(',')}|${mode}|${headKey}`, () => {
        const svg = drawnSvg(this.logitScene(model, before, after, order, heads.length > 0), false);
        svg.setAttribute('aria-label', text);
        return svg;
      }),
    );
    if (this.logitCaption!.textContent !== text) this.logitCaption!.textContent = text;
    this.showLosses(model, analysis);
  }

  /** The per-head losses (or what the figure waits for) under the logits. */
  private showLosses(model: LoadedTransformer, analysis: TransformerAnalysis | null): void {
    const mode = this.mode;
    if (this.shown && this.shown.analysis !== analysis && this.shown.model === model) this.shown = { ...this.shown, analysis };
    const lossText = this.lossText(model, analysis);
    if (analysis) {
      this.show(
        this.lossSlot!,
        this.fragment(model, `loss:${mode}`, () => {
          const svg = drawnSvg(this.lossScene(model, analysis), false);
          svg.setAttribute('aria-label', lossText);
          return svg;
        }),
      );
    } else {
      this.lossSlot!.replaceChildren();
    }
    if (this.lossCaption!.textContent !== lossText) this.lossCaption!.textContent = lossText;
  }

  private lossText(model: LoadedTransformer, a: TransformerAnalysis | null): string {
    if (!a) return `Computing the in-context loss with each head ${this.mode}-ablated on ${SEQUENCES} repeated random sequences…`;
    const ab = a.ablation;
    let worst = { v: -Infinity, l: 0, h: 0 };
    ab.loss.forEach((row, l) =>
      row.forEach((v, h) => {
        if (v > worst.v) worst = { v, l, h };
      }),
    );
    return `In-context loss on ${ab.sequences} repeated random sequences: ${formatNumber(ab.clean_loss, 3)} nats with every head; ${ab.mode}-ablating ${headName(worst.l, worst.h)} alone raises it most, to ${formatNumber(worst.v, 3)}.`;
  }

  private logitScene(model: LoadedTransformer, before: TransformerRun, after: TransformerRun, order: number[], ablated: boolean): Scene {
    const c = this.themeColours();
    const last = before.tokens.length - 1;
    const lb = before.logits[last],
      la = after.logits[last];
    const values = order.flatMap((t) => [lb[t], la[t]]);
    const lo = Math.min(0, ...values),
      hi = Math.max(0, ...values);
    const width = 460,
      left = 70,
      right = width - 70,
      rowH = 30,
      top = 26;
    const x = (v: number) => left + ((v - lo) / (hi - lo || 1)) * (right - left);
    const shapes: Shape[] = [
      {
        kind: 'text',
        x: 4,
        y: 10,
        text: `next-token logits (nats)${ablated ? ': before (upper bar), after (lower bar)' : ''}`,
        fill: rgbText(c.muted),
        size: 11,
      },
      { kind: 'line', x1: x(0), y1: top - 4, x2: x(0), y2: top + order.length * rowH, stroke: rgbText(c.muted) },
    ];
    order.forEach((t, i) => {
      const y = top + i * rowH;
      shapes.push({
        kind: 'text',
        x: left - 6,
        y: y + rowH / 2 - 2,
        text: tokenName(model.config, t),
        fill: rgbText(c.fg),
        size: 12,
        anchor: 'end',
        weight: i === 0 ? 'bold' : 'normal',
      });
      const bar = (v: number, yy: number, h: number, fill: string) => {
        const a = x(Math.min(0, v)),
          b = x(Math.max(0, v));
        shapes.push({ kind: 'rect', x: a, y: yy, w: Math.max(0.5, b - a), h, fill });
        shapes.push({
          kind: 'text',
          x: v < 0 ? a - 3 : b + 3,
          y: yy + h / 2,
          text: formatNumber(v, 2),
          fill: rgbText(c.fg),
          size: 9,
          anchor: v < 0 ? 'end' : 'start',
        });
      };
      bar(lb[t], y + 2, ablated ? 11 : 20, rgbText(c.neg));
      if (ablated) bar(la[t], y + 14, 11, rgbText(c.pos));
    });
    return {
      width,
      height: top + order.length * rowH + 6,
      background: rgbText(c.panel),
      title: 'Logits before and after ablation',
      shapes,
    };
  }

  private lossScene(model: LoadedTransformer, a: TransformerAnalysis): Scene {
    const c = this.themeColours();
    const ab = a.ablation;
    const rows = ab.loss.flatMap((row, l) =>
      row.map((v, h) => ({ label: headName(l, h), value: v - ab.clean_loss, data: { layer: String(l), head: String(h) } })),
    );
    const rowH = 18,
      width = 460;
    const shapes = signedBarShapes(c, rows, 8, 28, width - 16, rowH, 70);
    shapes.unshift({
      kind: 'text',
      x: 8,
      y: 12,
      text: `in-context loss rise, head ${ab.mode}-ablated (nats)`,
      fill: rgbText(c.muted),
      size: 11,
    });
    return { width, height: 36 + rows.length * rowH, background: rgbText(c.panel), title: 'In-context loss per ablated head', shapes };
  }

  protected describe(): string {
    const s = this.shown;
    return s ? `${s.text} ${this.lossText(s.model, s.analysis)}` : '';
  }

  /** The state with the core's numbers behind the figure (null before the model has loaded). */
  get figureData(): Record<string, unknown> | null {
    const state = this.state;
    if (!this.shown || state === null) return null;
    const s = this.shown;
    const last = s.before.tokens.length - 1;
    return {
      ...state,
      logits_before: s.before.logits[last],
      logits_after: s.after ? s.after.logits[last] : null,
      ablation: s.analysis?.ablation ?? null,
    };
  }

  figures(): WidgetFigure[] {
    return [
      {
        name: 'logits',
        label: 'Logits before and after',
        scene: () => {
          const s = this.exportable(this.shown);
          const last = s.before.tokens.length - 1;
          const lb = s.before.logits[last];
          return this.logitScene(
            s.model,
            s.before,
            s.after ?? s.before,
            Array.from(lb, (_, t) => t)
              .sort((x, y) => lb[y] - lb[x])
              .slice(0, TOP),
            s.after !== null,
          );
        },
      },
      ...(this.shown?.analysis
        ? [
            {
              name: 'loss',
              label: 'In-context loss per head',
              scene: () => {
                const s = this.exportable(this.shown);
                return this.lossScene(s.model, s.analysis!);
              },
            },
          ]
        : []),
    ];
  }
}
