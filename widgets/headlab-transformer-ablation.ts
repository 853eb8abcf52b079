// <headlab-transformer-ablation model="m">: what the model loses without a head. The reader picks
// heads to ablate (zero: the head's output replaced by 0; mean: by its mean output over repeated
// random sequences at each position) and sees, on their own prompt, the logits of the next token
// at the last position before and after (the top tokens of the clean run, and where the ablated
// run moves them). Beside it, for every head alone, the model's next-token loss on the same prompt
// with that head ablated, against the clean loss (core/transformer_analysis.hpp, prompt_ablation_loss):
// what the model loses at predicting the reader's own text, for a model of any task. Mean ablation
// takes each head's mean output from the author's `reference` sequences when given (prompts of the
// model's own task), else from 32 repeated random sequences (the induction task's, seed 0).
//
// Attributes: model, prompt, mode ("zero" | "mean", default "mean"), heads (heads ablated, as
// "L.H" pairs separated by spaces, e.g. "1.2 0.3"; default none), reference (the author's: a JSON
// list of prompts, each as `prompt` takes it, e.g. '["3 17 5 3", "1 2 4 1"]'; never from the URL hash).
// Events: `change` with { prompt, mode, heads, clean_loss } when the reader changes any of them.
import type { TransformerHeadLosses, TransformerRun } from '../web/headlab-core.js';
import {
  type AttributeProperties,
  defineAttributes,
  el,
  oneOf,
  text,
  type WidgetFigure,
  WidgetInputError,
} from './base/headlab-element.js';
import { labelledSelect } from './base/dom.js';
import { formatNumber } from './chart/format.js';
import { rgbText } from './chart/palette.js';
import type { Scene, Shape } from './chart/scene.js';
import { drawnSvg, signedBarScene } from './transformer/draw.js';
import type { LoadedTransformer } from './transformer/model.js';
import { HEAD_BOXES_CSS, HeadBoxes } from './transformer/head-boxes.js';
import {
  PromptField,
  TRANSFORMER_CSS,
  TokensPending,
  TransformerWidget,
  headName,
  logitsAt,
  tokenName,
  tokenize,
} from './transformer/widget.js';

export interface TransformerAblationState {
  prompt: number[];
  mode: 'zero' | 'mean';
  /** Heads ablated, as [layer, head] pairs. */
  heads: [number, number][];
  /** The prompt's next-token loss (nats, ≥ 0) with no head ablated; null before it is computed or for a one-token prompt. */
  clean_loss: number | null;
}

/** Repeated random sequences for mean ablation without reference sequences (the CLI's default). */
const SEQUENCES = 32;
/** Reference sequences at most (the core's kMaxReferenceSequences). */
const MAX_REFERENCE = 10000;
/** Tokens listed before/after: the clean run's most likely next tokens. */
const TOP = 6;

/** The parts build() makes (this.parts). */
interface TransformerAblationParts {
  field: PromptField;
  modeSelect: HTMLSelectElement;
  logitSlot: HTMLDivElement;
  lossSlot: HTMLDivElement;
  logitCaption: HTMLParagraphElement;
  lossCaption: HTMLParagraphElement;
}

/** Logits on the reader's prompt before and after ablating chosen heads, and the prompt's next-token loss with each head ablated alone. Attributes: prompt, mode ("zero" | "mean", default "mean"), heads ("1.2 0.3": layer.head pairs), reference (the author's: a JSON list of prompts that mean ablation averages each head's output over; default 32 repeated random sequences), model. Shared: prompt, mode, heads. */
export class HeadlabTransformerAblation extends TransformerWidget<TransformerAblationState, TransformerAblationParts> {
  static attributes = defineAttributes({
    prompt: text({ property: false, shared: true, doc: 'The prompt, as text the model’s tokenizer reads (default the model’s example).' }),
    mode: oneOf(['zero', 'mean'], { fallback: 'mean', shared: true, doc: 'How a head is ablated: its output set to zero or to its mean.' }),
    heads: text({ property: false, shared: true, doc: 'The ablated heads, "layer.head" pairs (e.g. "1.2 0.3").' }),
    reference: text({
      property: false,
      doc: 'The prompts mean ablation averages each head’s output over (a JSON list; default 32 repeated random sequences).',
    }),
  });
  protected static css = /* css */ `${TRANSFORMER_CSS}${HEAD_BOXES_CSS}
  `;
  private readonly headBoxes = new HeadBoxes(
    (t, type, h) => this.listen(t, type, h),
    'Heads to ablate',
    (chosen) => {
      if (chosen.length) this.setAttribute('heads', chosen.join(' '));
      else this.removeAttribute('heads');
      this.emitChange();
    },
  );
  private shown: {
    model: LoadedTransformer;
    before: TransformerRun;
    after: TransformerRun | null;
    losses: TransformerHeadLosses | null;
    /** The reference sequences the means came from ([]: repeated random sequences). */
    reference: number[][];
    heads: [number, number][];
    text: string;
  } | null = null;

  /** The heads of the `heads` attribute as [layer, head] pairs (checked against the model's shape). */
  heads(): [number, number][] {
    return this.headsOf(this.currentModel);
  }

  /** The `reference` attribute's sequences as token ids ([] when absent; see referenceOf). */
  reference(): number[][] {
    return this.referenceOf(this.currentModel);
  }

  /** The ablated heads from the `heads` attribute (checked against `model`'s shape). */
  private headsOf(model: LoadedTransformer | null): [number, number][] {
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
      prompt: m && this.hasParts ? this.parts.field.tokens(m) : [],
      mode: this.mode,
      heads: this.heads(),
      clean_loss: this.shown?.losses?.clean_loss ?? null,
    };
  }

  /**
   * The `reference` attribute's sequences as token ids (each prompt tokenized as `prompt` is); [] when
   * absent. Throws WidgetInputError naming the attribute and the sequence.
   */
  private referenceOf(model: LoadedTransformer | null): number[][] {
    const raw = (this.getAttribute('reference') ?? '').trim();
    if (raw === '') return [];
    let list: unknown;
    try {
      list = JSON.parse(raw);
    } catch {
      throw new WidgetInputError(`attribute reference: not JSON; write a list of prompts such as '["3 17 5 3", "1 2 4 1"]'`);
    }
    if (!Array.isArray(list) || list.length === 0 || list.length > MAX_REFERENCE)
      throw new WidgetInputError(`attribute reference must be a JSON list of 1 to ${MAX_REFERENCE} prompts`);
    if (!model) return [];
    return list.map((item, i) => {
      if (typeof item === 'string') return tokenize(model, item, `attribute reference, sequence ${i}`);
      if (Array.isArray(item) && item.every((t) => Number.isInteger(t))) return item as number[];
      throw new WidgetInputError(`attribute reference, sequence ${i}: a prompt is a string of tokens or a list of token ids`);
    });
  }

  /** Mean ablation's settings: the reference sequences when given, else the repeated random ones. */
  private meanOptions(model: LoadedTransformer): { reference: number[][] } | { sequences: number; seed: number } {
    const reference = this.referenceOf(model);
    return reference.length ? { reference } : { sequences: SEQUENCES, seed: 0 };
  }

  protected buildContent(content: HTMLDivElement): TransformerAblationParts {
    this.headBoxes.reset();
    const field = this.promptField('Prompt:');
    const controls = el('div', { class: 'controls' });
    const modeSelect = labelledSelect(controls, 'Ablation', 'mode', [
      ['mean', 'mean (average output)'],
      ['zero', 'zero (no output)'],
    ]);
    this.listen(modeSelect, 'change', () => {
      this.mode = modeSelect.value as 'zero' | 'mean';
      this.emitChange();
    });
    const logitSlot = el('div');
    const logitCaption = el('p', { class: 'caption' });
    const lossSlot = el('div');
    const lossCaption = el('p', { class: 'caption' });
    const f1 = el('div', { class: 'figure' });
    f1.append(logitSlot, logitCaption);
    const f2 = el('div', { class: 'figure' });
    f2.append(lossSlot, lossCaption);
    content.append(
      el('p', { class: 'title' }, 'Head ablation: the logits before and after'),
      field.element,
      controls,
      this.headBoxes.box,
      f1,
      f2,
    );
    return { field, modeSelect, logitSlot, lossSlot, logitCaption, lossCaption };
  }

  /**
   * A prerendered snapshot stays until the prompt's run is back from the worker (asked for here),
   * so the figure never flashes its waiting note while the worker reads the model.
   */
  protected snapshotReplaceable(): boolean {
    if (!super.snapshotReplaceable()) return false;
    const model = this.currentModel;
    if (model === null || !this.hasParts) return true;
    try {
      const tokens = this.parts.field.tokens(model);
      return this.ranInWorker(model, `clean:${tokens.join(',')}`, tokens) !== null;
    } catch (err) {
      return !(err instanceof TokensPending);
    }
  }

  protected renderContent(model: LoadedTransformer): void {
    this.parts.field.sync(model);
    this.headBoxes.build(model);
    const tokens = this.parts.field.tokens(model);
    const mode = this.mode;
    const heads = this.headsOf(model);
    this.parts.modeSelect.value = mode;
    this.headBoxes.show(heads);
    // Both runs in the source's worker (the page holds no model).
    const before = this.ranInWorker(model, `clean:${tokens.join(',')}`, tokens);
    const headKey = heads.map(([l, h]) => `${l}.${h}`).join(' ');
    const means = this.meanOptions(model);
    const meansKey = 'reference' in means ? means.reference.map((r) => r.join(',')).join(';') : 'random';
    // The ablated run in the worker (mean ablation first runs the model on the reference sequences,
    // or on SEQUENCES repeated random ones: about 20 ms in WASM, too long for a frame); until it
    // arrives the figure keeps what it shows and its caption says what it computes.
    const afterKey = `ablated:${tokens.join(',')}|${mode}|${headKey}|${meansKey}`;
    const lossKey = `${tokens.join(',')}|${mode}|${meansKey}`;
    // Mean ablation the core refused for this model (its repeated random sequences are beyond its bound on work).
    const afterRefused = heads.length === 0 ? undefined : this.refusal(model, afterKey);
    const lossRefused = this.refusal(model, lossKey);
    const after =
      heads.length === 0
        ? before
        : afterRefused !== undefined
          ? null
          : this.ranInWorker(model, afterKey, tokens, {
              ablate: heads,
              mode,
              ...means,
            });
    // A one-token prompt has no next token in it to predict: no losses (the caption says so).
    const losses =
      tokens.length < 2 || lossRefused !== undefined ? null : this.headLossesInWorker(model, lossKey, tokens, { mode, ...means });
    if (before === null || after === null) {
      const waiting =
        afterRefused !== undefined && before !== null
          ? afterRefused
          : before === null || heads.length === 0
            ? 'Computing the run of the prompt…'
            : `Computing the run with ${heads.map(([l, h]) => headName(l, h)).join(', ')} ${mode}-ablated…`;
      if (this.parts.logitCaption.textContent !== waiting) this.parts.logitCaption.textContent = waiting;
      if (this.shown?.model !== model || afterRefused !== undefined)
        this.show(this.parts.logitSlot, el('p', { class: 'waiting' }, waiting));
      this.showLosses(model, tokens, losses, lossRefused);
      return;
    }
    const last = tokens.length - 1;
    const lb = logitsAt(before, last),
      la = logitsAt(after, last);
    const order = Array.from(lb, (_, t) => t)
      .sort((x, y) => lb[y] - lb[x])
      .slice(0, TOP);
    const topAfter = la.reduce((best, v, t) => (v > la[best] ? t : best), 0);
    const name = (t: number) => tokenName(model.config, t);
    const text =
      heads.length === 0
        ? `No head ablated: after ${name(tokens[last])} the model's top next token is ${name(order[0])} (logit ${formatNumber(lb[order[0]], 3)}). Tick heads to ablate them.`
        : `With ${heads.map(([l, h]) => headName(l, h)).join(', ')} ${mode}-ablated, the logit of ${name(order[0])} goes from ${formatNumber(lb[order[0]], 3)} to ${formatNumber(la[order[0]], 3)}; the top next token is ${name(topAfter)}${topAfter === order[0] ? ' still' : ` instead of ${name(order[0])}`}.`;
    this.shown = {
      model,
      before,
      after: heads.length ? after : null,
      losses,
      reference: 'reference' in means ? means.reference : [],
      heads,
      text,
    };
    this.show(
      this.parts.logitSlot,
      this.fragment(model, `logits:${tokens.join(',')}|${mode}|${headKey}|${meansKey}`, () => {
        const svg = drawnSvg(this.logitScene(model, before, after, order, heads.length > 0), false);
        svg.setAttribute('aria-label', text);
        return svg;
      }),
    );
    if (this.parts.logitCaption.textContent !== text) this.parts.logitCaption.textContent = text;
    this.showLosses(model, tokens, losses, lossRefused);
  }

  /** Jobs the worker refused for model `refusedFor` (key → what the figure says instead), never asked again for it. */
  private readonly refused = new Map<string, string>();
  private refusedFor = 0;

  private refusal(model: LoadedTransformer, key: string): string | undefined {
    return this.refusedFor === model.version ? this.refused.get(key) : undefined;
  }

  /**
   * Mean ablation over repeated random sequences that the core refuses for this model (sequences ·
   * n_ctx · d_model · d_vocab · (1 + heads) beyond kMaxRepeatedSequenceWork: the ARENA induction
   * model's shape is 30 times over with one sequence) is said in the captions, with what the reader
   * can do, and the figure stays usable (its mode control above all); any other failure is the base's.
   */
  protected workerFailed(model: LoadedTransformer, key: string, err: Error): void {
    if (!/repeated-sequence analyses/.test(err.message)) {
      super.workerFailed(model, key, err);
      return;
    }
    if (this.refusedFor !== model.version) {
      this.refused.clear();
      this.refusedFor = model.version;
    }
    this.refused.set(
      key,
      `Mean ablation over ${SEQUENCES} repeated random sequences is more work for this model than the core does (${err.message.replace(/: ask for fewer sequences.*$/, '')}). Choose zero ablation, or give the figure reference sequences (its reference attribute).`,
    );
    this.requestRender();
  }

  /** The per-head losses (or what the figure waits for) under the logits. */
  private showLosses(model: LoadedTransformer, tokens: number[], losses: TransformerHeadLosses | null, refused?: string): void {
    if (this.shown && this.shown.losses !== losses && this.shown.model === model) this.shown = { ...this.shown, losses };
    const lossText = refused !== undefined && tokens.length >= 2 ? refused : this.lossText(tokens.length, losses);
    if (losses) {
      this.show(
        this.parts.lossSlot,
        this.fragment(model, `loss:${tokens.join(',')}|${losses.mode}|${losses.means}|${losses.sequences}`, () => {
          const svg = drawnSvg(this.lossScene(model, losses), false);
          svg.setAttribute('aria-label', lossText);
          return svg;
        }),
      );
    } else {
      this.parts.lossSlot.replaceChildren();
    }
    if (this.parts.lossCaption.textContent !== lossText) this.parts.lossCaption.textContent = lossText;
  }

  /** Where mean ablation's means come from, in words. */
  private static meansWords(l: TransformerHeadLosses): string {
    if (l.mode === 'zero') return 'output replaced by zero';
    return l.means === 'reference'
      ? `output replaced by its mean over the author's ${l.sequences} reference sequence${l.sequences === 1 ? '' : 's'}`
      : `output replaced by its mean over ${l.sequences} repeated random sequences`;
  }

  private lossText(length: number, l: TransformerHeadLosses | null): string {
    if (length < 2)
      return 'A one-token prompt has no next token in it to predict: type at least two tokens for the loss with each head ablated.';
    if (!l) return `Computing the prompt's next-token loss with each head ${this.mode}-ablated…`;
    let most = { v: -Infinity, l: 0, h: 0 },
      least = { v: Infinity, l: 0, h: 0 };
    l.loss.forEach((row, li) =>
      row.forEach((v, h) => {
        if (v > most.v) most = { v, l: li, h };
        if (v < least.v) least = { v, l: li, h };
      }),
    );
    const base = `Next-token loss on this prompt: ${formatNumber(l.clean_loss, 3)} nats with every head (each head ablated alone, its ${HeadlabTransformerAblation.meansWords(l)}).`;
    if (most.v > l.clean_loss)
      return `${base} Ablating ${headName(most.l, most.h)} raises it most, to ${formatNumber(most.v, 3)}${least.v < l.clean_loss ? `; ablating ${headName(least.l, least.h)} lowers it, to ${formatNumber(least.v, 3)}` : ''}.`;
    return `${base} No head's ablation raises it; ablating ${headName(least.l, least.h)} lowers it most, to ${formatNumber(least.v, 3)}.`;
  }

  private logitScene(model: LoadedTransformer, before: TransformerRun, after: TransformerRun, order: number[], ablated: boolean): Scene {
    const c = this.themeColours();
    const last = before.tokens.length - 1;
    const lb = logitsAt(before, last),
      la = logitsAt(after, last);
    const values = order.flatMap((t) => [lb[t], la[t]]);
    const lo = Math.min(0, ...values),
      hi = Math.max(0, ...values);
    const width = 460,
      left = 70,
      right = width - 70,
      // A row's two bars 17 units apart: at 360 px the chart is drawn at about 0.7 of its size and
      // its text kept legible (widgets/base/dom.ts), so the two value labels' lines need that much.
      rowH = 36,
      // Text is 12 CSS px at every width (about 17 units where the chart is drawn at 0.7): the two
      // header lines 20 units apart, the bars below the second.
      top = ablated ? 42 : 28;
    const x = (v: number) => left + ((v - lo) / (hi - lo || 1)) * (right - left);
    const shapes: Shape[] = [
      {
        kind: 'text',
        x: 4,
        y: 10,
        text: 'next-token logits (nats)',
        fill: rgbText(c.muted),
        size: 11,
      },
      // The legend on a line of its own, so neither line runs past the chart at 360 px.
      ...(ablated
        ? [{ kind: 'text' as const, x: 4, y: 30, text: 'before (upper bar), after (lower bar)', fill: rgbText(c.muted), size: 11 }]
        : []),
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
        data: { role: 'token' },
      });
      const bar = (v: number, yy: number, h: number, fill: string) => {
        const a = x(Math.min(0, v)),
          b = x(Math.max(0, v));
        shapes.push({ kind: 'rect', x: a, y: yy, w: Math.max(0.5, b - a), h, fill });
        // The value beside the zero line on the side its bar leaves empty: right of it for a negative
        // bar (left of its end the label would run into the token names when the bar reaches the
        // left margin), past the bar's end for a positive one. Each bar has its own line, so labels
        // of a row's two bars never meet either.
        shapes.push({
          kind: 'text',
          x: v < 0 ? x(0) + 3 : b + 3,
          y: yy + h / 2,
          text: formatNumber(v, 2),
          fill: rgbText(c.fg),
          size: 9,
          anchor: 'start',
          data: { role: 'value' },
        });
      };
      bar(lb[t], y + 2, ablated ? 13 : 30, rgbText(c.neg));
      if (ablated) bar(la[t], y + 19, 13, rgbText(c.pos));
    });
    return {
      width,
      height: top + order.length * rowH + 6,
      background: rgbText(c.panel),
      title: 'Logits before and after ablation',
      shapes,
    };
  }

  private lossScene(model: LoadedTransformer, l: TransformerHeadLosses): Scene {
    const c = this.themeColours();
    void model;
    // The change of the prompt's loss (ablated − clean, nats): right of the axis the head helps the
    // model predict this prompt, left of it the model predicts it better without the head.
    const rows = l.loss.flatMap((row, li) =>
      row.map((v, h) => ({ label: headName(li, h), value: v - l.clean_loss, data: { layer: String(li), head: String(h) } })),
    );
    return signedBarScene(c, `loss change, head ${l.mode}-ablated (nats)`, rows, 70, "Prompt's next-token loss per ablated head");
  }

  protected describe(): string {
    const s = this.shown;
    return s ? `${s.text} ${this.lossText(s.before.tokens.length, s.losses)}` : '';
  }

  /** The state with the core's numbers behind the figure (null before the model has loaded). */
  get figureData(): Record<string, unknown> | null {
    const state = this.state;
    if (!this.shown || state === null) return null;
    const s = this.shown;
    const last = s.before.tokens.length - 1;
    return {
      ...state,
      logits_before: logitsAt(s.before, last),
      logits_after: s.after ? logitsAt(s.after, last) : null,
      reference: s.reference,
      head_losses: s.losses,
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
          const lb = logitsAt(s.before, last);
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
      ...(this.shown?.losses
        ? [
            {
              name: 'loss',
              label: 'Prompt loss per head',
              scene: () => {
                const s = this.exportable(this.shown);
                return this.lossScene(s.model, s.losses!);
              },
            },
          ]
        : []),
    ];
  }
}

export interface HeadlabTransformerAblation extends AttributeProperties<typeof HeadlabTransformerAblation.attributes> {}
