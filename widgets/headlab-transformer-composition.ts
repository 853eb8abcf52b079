// <headlab-transformer-composition model="m">: how much each head reads what an earlier head
// writes. Heads are nodes in columns by layer; an edge from an earlier head e to a later head ℓ has
// the width of their composition score (core/head_composition.hpp):
//   Q: ‖W_OV^e W_QK^ℓ‖_F / (‖W_OV^e‖_F ‖W_QK^ℓ‖_F)   (ℓ's queries read e's output)
//   K: the same with W_QK^ℓᵀ                          (ℓ's keys read e's output)
//   V: ‖W_OV^e W_OV^ℓ‖_F / (‖W_OV^e‖_F ‖W_OV^ℓ‖_F)    (ℓ moves e's output on)
// with every layer's normalisation weight folded in. The baseline is the same score of random
// matrices of the heads' shapes (mean ± standard deviation over 200 draws): an edge is drawn only
// above the baseline's mean, in colour only at two standard deviations above it.
//
// Attributes: model, kind ("all" | "q" | "k" | "v", default "all"), head (a later head "l.h"; default
// the head with the strongest composition), seed (the baseline's draws, default 0).
// Events: `change` with { kind, head, strongest } when the reader changes kind or head.
// Bound values (boundValue, for <headlab-value> in the prose): baseline.{mean,std}, and
// reads.{q,k,v}.{layer,head,score,sigmas}: the earlier head whose composition of that kind with the
// chosen later head (`head`) is the largest, its score and its distance above the baseline.
import type { TransformerComposition } from '../web/headlab-core.js';
import { type AttributeProperties, defineAttributes, el, integer, oneOf, text, type WidgetFigure } from './base/headlab-element.js';
import { labelledSelect } from './base/dom.js';
import type { BoundValue } from './chart/format.js';
import { formatNumber } from './chart/format.js';
import { rgbText, type ResolvedColours } from './chart/palette.js';
import type { Scene, Shape } from './chart/scene.js';
import { drawnSvg } from './transformer/draw.js';
import type { LoadedTransformer } from './transformer/model.js';
import { TRANSFORMER_CSS, TransformerWidget, headName } from './transformer/widget.js';

export type CompositionKind = 'q' | 'k' | 'v';
const KINDS: readonly CompositionKind[] = ['q', 'k', 'v'];
const KIND_WORDS: Record<CompositionKind, string> = { q: 'Q-composition', k: 'K-composition', v: 'V-composition' };
/** The legend's short labels (three fit a 360 px screen). */
const LEGEND_WORDS: Record<CompositionKind, string> = { q: 'Q: queries', k: 'K: keys', v: 'V: values' };

/** One edge: later head ℓ reads earlier head e (flat indices l·H + h), with its score and its distance from the baseline in standard deviations. */
export interface CompositionEdge {
  kind: CompositionKind;
  later: string;
  earlier: string;
  score: number;
  /** (score − baseline mean) / baseline standard deviation. */
  sigmas: number;
}

/** The package's earlier name of CompositionEdge. */
export type TransformerCompositionEdge = CompositionEdge;

export interface TransformerCompositionState {
  kind: 'all' | CompositionKind;
  /** The later head whose incoming compositions the readout lists, "l.h" (empty for a one-layer model). */
  head: string;
  /** The strongest composition of the kinds shown (null before loading, or with one layer). */
  strongest: CompositionEdge | null;
}

/** Edges at least this many baseline standard deviations above its mean are drawn in colour. */
export const STANDOUT_SIGMAS = 2;

/** The parts build() makes (this.parts). */
interface TransformerCompositionParts {
  kindSelect: HTMLSelectElement;
  headSelect: HTMLSelectElement;
  graphSlot: HTMLDivElement;
  readout: HTMLParagraphElement;
  captionLine: HTMLParagraphElement;
}

/** Q-, K- and V-composition of every pair of heads in different layers, against a random baseline. Attributes: kind (all|q|k|v), head (a later head "l.h"), seed (the baseline's draws), model. Shared: kind, head. */
export class HeadlabTransformerComposition extends TransformerWidget<TransformerCompositionState, TransformerCompositionParts> {
  static attributes = defineAttributes({
    kind: oneOf(['all', 'q', 'k', 'v'], { fallback: 'all', shared: true, doc: 'The composition shown: Q, K, V or all three.' }),
    head: text({ shared: true, doc: 'A later head, "l.h", whose edges are listed.' }),
    seed: integer({ fallback: 0, min: 0, max: Number.MAX_SAFE_INTEGER, doc: 'Seed of the random baseline’s draws.' }),
  });
  protected static css = TRANSFORMER_CSS;
  private selectsFor = '';
  private shown: {
    model: LoadedTransformer;
    composition: TransformerComposition;
    kind: 'all' | CompositionKind;
    head: string;
    strongest: CompositionEdge | null;
    text: string;
  } | null = null;

  protected readState(): TransformerCompositionState {
    return { kind: this.kind, head: this.shown?.head ?? this.head, strongest: this.shown?.strongest ?? null };
  }

  protected buildContent(content: HTMLDivElement): TransformerCompositionParts {
    const controls = el('div', { class: 'controls' });
    const kindSelect = labelledSelect(controls, 'Composition', 'kind', [
      ['all', 'Q, K and V'],
      ['q', 'Q (queries read it)'],
      ['k', 'K (keys read it)'],
      ['v', 'V (values move it on)'],
    ]);
    const headSelect = labelledSelect(controls, 'Later head', 'head');
    this.listen(kindSelect, 'change', () => {
      this.kind = kindSelect.value as 'all' | CompositionKind;
      this.emitChange();
    });
    this.listen(headSelect, 'change', () => {
      this.head = headSelect.value;
      this.emitChange();
    });
    const figure = el('div', { class: 'figure' });
    const graphSlot = el('div');
    const readout = el('p', { class: 'readout', 'aria-live': 'polite' });
    const captionLine = el('p', { class: 'caption' });
    figure.append(graphSlot, readout, captionLine);
    content.append(el('p', { class: 'title' }, 'Composition: which heads read what earlier heads write'), controls, figure);
    return { kindSelect, headSelect, graphSlot, readout, captionLine };
  }

  private fillSelects(model: LoadedTransformer): void {
    const key = `${model.version}`;
    if (this.selectsFor === key) return;
    this.selectsFor = key;
    const { n_layers: L, n_heads: H } = model.config;
    const options = [];
    for (let l = 1; l < L; l++) for (let h = 0; h < H; h++) options.push(el('option', { value: `${l}.${h}` }, headName(l, h)));
    this.parts.headSelect.replaceChildren(...options);
    this.parts.headSelect.disabled = options.length === 0;
  }

  protected renderContent(model: LoadedTransformer): void {
    this.fillSelects(model);
    const kind = this.kind;
    this.parts.kindSelect.value = kind;
    const seed = this.seed;
    const analysis = this.analyzedInWorker(model, `composition:${seed}`, compositionRequest(seed));
    if (!analysis?.composition) {
      if (this.parts.captionLine.textContent !== WAITING) this.parts.captionLine.textContent = WAITING;
      if (this.shown?.model !== model) this.show(this.parts.graphSlot, el('p', { class: 'waiting' }, WAITING));
      return;
    }
    const composition = analysis.composition;
    const H = model.config.n_heads;
    const edges = compositionEdges(composition, H, kind);
    const strongest = edges.reduce<CompositionEdge | null>((best, e) => (best === null || e.sigmas > best.sigmas ? e : best), null);
    const valid = (name: string) => {
      const [l, h] = name.split('.').map(Number);
      return Number.isInteger(l) && Number.isInteger(h) && l >= 1 && l < model.config.n_layers && h >= 0 && h < H;
    };
    const head = valid(this.head) ? this.head : (strongest?.later ?? '');
    if (head) this.parts.headSelect.value = head;
    const b = composition.baseline;
    const baselineText = `random matrices of the same shapes score ${formatNumber(b.mean, 2)} ± ${formatNumber(b.std, 2)} (mean ± standard deviation over ${b.samples} draws)`;
    const standouts = edges.filter((e) => e.sigmas >= STANDOUT_SIGMAS).length;
    const side = (e: CompositionEdge) =>
      `${formatNumber(Math.abs(e.sigmas), 1)} standard deviations ${e.sigmas >= 0 ? 'above' : 'below'} the baseline`;
    const pair = (e: CompositionEdge) =>
      `${KIND_WORDS[e.kind]} of ${nodeName(e.later)} with ${nodeName(e.earlier)}: ${formatNumber(e.score, 2)}, ${side(e)}`;
    const text =
      strongest === null
        ? 'This model has one layer: no head reads what another head wrote, so nothing composes.'
        : (strongest.sigmas >= STANDOUT_SIGMAS
            ? `The strongest is ${pair(strongest)} (${baselineText}). `
            : `No composition stands out: the strongest is ${pair(strongest)} (${baselineText}). `) +
          `${standouts} of ${edges.length} scores stand ${STANDOUT_SIGMAS} or more standard deviations above it.`;
    this.shown = { model, composition, kind, head, strongest, text };
    const incoming = edges
      .filter((e) => e.later === head)
      .sort((x, y) => y.sigmas - x.sigmas)
      .slice(0, 3);
    const readout = head
      ? `${nodeName(head)} reads most from: ` +
        incoming
          .map((e) => `${nodeName(e.earlier)} (${e.kind.toUpperCase()} ${formatNumber(e.score, 2)}, ${formatNumber(e.sigmas, 1)} sd)`)
          .join(', ') +
        '.'
      : '';
    this.show(
      this.parts.graphSlot,
      this.fragment(model, `composition:${seed}|${kind}|${head}|${this.themeKey()}`, () => {
        const svg = drawnSvg(this.scene(model, composition, kind, head), false);
        svg.setAttribute('aria-label', text);
        return svg;
      }),
    );
    if (this.parts.readout.textContent !== readout) this.parts.readout.textContent = readout;
    if (this.parts.captionLine.textContent !== text) this.parts.captionLine.textContent = text;
  }

  /** A key that changes with the theme, so a cached drawing is not reused across light and dark. */
  private themeKey(): string {
    return rgbText(this.themeColours().panel);
  }

  private scene(model: LoadedTransformer, composition: TransformerComposition, kind: 'all' | CompositionKind, head: string): Scene {
    const c = this.themeColours();
    const { n_layers: L, n_heads: H } = model.config;
    const width = 400,
      nodeW = 60,
      nodeH = 22,
      left = 8,
      top = 34;
    const rowH = Math.max(24, Math.min(34, Math.floor(360 / H)));
    const x = (l: number) => (L === 1 ? width / 2 - nodeW / 2 : left + (l * (width - 2 * left - nodeW)) / (L - 1));
    const y = (h: number) => top + h * rowH;
    const shapes: Shape[] = [
      {
        kind: 'text',
        x: left,
        y: 12,
        text: 'earlier layer → later layer; width = score',
        fill: rgbText(c.muted),
        size: 12,
      },
    ];
    const edges = compositionEdges(composition, H, kind).filter((e) => e.score > composition.baseline.mean);
    // Faint edges first, the standouts over them, the chosen head's on top.
    edges.sort((a, b) => Number(a.later === head) - Number(b.later === head) || a.sigmas - b.sigmas);
    for (const e of edges) {
      const [l1, h1] = e.earlier.split('.').map(Number);
      const [l2, h2] = e.later.split('.').map(Number);
      const offset = kind === 'all' ? (KINDS.indexOf(e.kind) - 1) * 5 : 0;
      const standout = e.sigmas >= STANDOUT_SIGMAS;
      shapes.push({
        kind: 'line',
        x1: x(l1) + nodeW,
        y1: y(h1) + nodeH / 2 + offset,
        x2: x(l2),
        y2: y(h2) + nodeH / 2 + offset,
        stroke: rgbText(standout ? kindColour(c, e.kind) : c.rule),
        width: 0.5 + 7 * e.score,
        ...(DASHES[e.kind] ? { dash: DASHES[e.kind] } : {}),
        data: { kind: e.kind, later: e.later, earlier: e.earlier },
      });
    }
    for (let l = 0; l < L; l++) {
      for (let h = 0; h < H; h++) {
        const name = `${l}.${h}`;
        shapes.push({
          kind: 'rect',
          x: x(l),
          y: y(h),
          w: nodeW,
          h: nodeH,
          fill: rgbText(c.panel),
          stroke: rgbText(name === head ? c.focus : c.fg),
          data: { head: name },
        });
        shapes.push({
          kind: 'text',
          x: x(l) + nodeW / 2,
          y: y(h) + nodeH / 2,
          text: headName(l, h),
          fill: rgbText(c.fg),
          size: 13,
          anchor: 'middle',
        });
      }
    }
    // Legend: the three kinds, and the baseline.
    const ly = top + H * rowH + 10;
    const shown = kind === 'all' ? KINDS : [kind];
    shown.forEach((k, i) => {
      const lx = left + i * 120;
      shapes.push({
        kind: 'line',
        x1: lx,
        y1: ly,
        x2: lx + 28,
        y2: ly,
        stroke: rgbText(kindColour(c, k)),
        width: 3,
        ...(DASHES[k] ? { dash: DASHES[k] } : {}),
      });
      shapes.push({ kind: 'text', x: lx + 34, y: ly, text: LEGEND_WORDS[k], fill: rgbText(c.fg), size: 12 });
    });
    const b = composition.baseline;
    shapes.push({
      kind: 'text',
      x: left,
      y: ly + 20,
      text: `random baseline: ${formatNumber(b.mean, 2)} ± ${formatNumber(b.std, 2)} (mean ± sd)`,
      fill: rgbText(c.muted),
      size: 12,
    });
    shapes.push({
      kind: 'text',
      x: left,
      y: ly + 38,
      text: `grey: within ${STANDOUT_SIGMAS} sd of it; none drawn below its mean`,
      fill: rgbText(c.muted),
      size: 12,
    });
    return { width, height: ly + 52, background: rgbText(c.panel), title: 'Composition between heads', shapes };
  }

  protected describe(): string {
    return this.shown?.text ?? WAITING;
  }

  /**
   * Numbers for <headlab-value source="<this id>">: `baseline.mean`, `baseline.std` (the random
   * baseline), `reads.<kind>.{layer,head,score,sigmas}` (kind q, k or v: of the earlier heads, the one
   * whose composition of that kind with the chosen later head is the largest; sigmas = (score −
   * baseline mean) / baseline standard deviation). Undefined before the scores arrive.
   */
  boundValue(name: string): BoundValue | undefined {
    const s = this.shown;
    if (!s) return undefined;
    const b = s.composition.baseline;
    if (name === 'baseline.mean') return { value: b.mean, kind: 'number' };
    if (name === 'baseline.std') return { value: b.std, kind: 'number' };
    const m = /^reads\.([qkv])\.(layer|head|score|sigmas)$/.exec(name);
    if (!m || !s.head) return undefined;
    const best = compositionEdges(s.composition, s.model.config.n_heads, m[1] as CompositionKind)
      .filter((e) => e.later === s.head)
      .reduce<CompositionEdge | null>((top, e) => (top === null || e.score > top.score ? e : top), null);
    if (!best) return undefined;
    const [layer, head] = best.earlier.split('.').map(Number);
    switch (m[2]) {
      case 'layer':
        return { value: layer, kind: 'count' };
      case 'head':
        return { value: head, kind: 'count' };
      case 'score':
        return { value: best.score, kind: 'number' };
      default:
        return { value: best.sigmas, kind: 'number' };
    }
  }

  /** The state with the core's composition scores and baseline (null before the model has loaded). */
  get figureData(): Record<string, unknown> | null {
    const state = this.state;
    if (!this.shown || state === null) return null;
    return { ...state, composition: this.shown.composition };
  }

  figures(): WidgetFigure[] {
    return [
      {
        name: 'composition',
        label: 'Composition graph',
        scene: () => {
          const s = this.exportable(this.shown);
          return this.scene(s.model, s.composition, s.kind, s.head);
        },
      },
    ];
  }
}

/**
 * The analysis that carries the composition scores (they read neither the prompt nor repeated
 * random sequences: sequences 0, so a large model's analysis is not refused for their work).
 */
function compositionRequest(seed: number): Record<string, unknown> {
  return { prompt: [0], sequences: 0, seed, composition: true };
}

/** Every (later, earlier) pair in different layers, of the kinds asked for. */
export function compositionEdges(
  composition: Pick<TransformerComposition, 'q' | 'k' | 'v' | 'baseline' | 'heads'>,
  H: number,
  kind: 'all' | CompositionKind,
): CompositionEdge[] {
  const out: CompositionEdge[] = [];
  const n = composition.heads.length;
  const { mean, std } = composition.baseline;
  for (const k of kind === 'all' ? KINDS : [kind]) {
    for (let later = H; later < n; later++) {
      for (let earlier = 0; earlier < Math.floor(later / H) * H; earlier++) {
        const score = composition[k][later][earlier];
        out.push({
          kind: k,
          later: composition.heads[later],
          earlier: composition.heads[earlier],
          score,
          sigmas: std > 0 ? (score - mean) / std : 0,
        });
      }
    }
  }
  return out;
}

/** "1.2" → "L1 H2". */
function nodeName(name: string): string {
  const [l, h] = name.split('.').map(Number);
  return headName(l, h);
}

function kindColour(c: ResolvedColours, k: CompositionKind): ResolvedColours['fg'] {
  return k === 'q' ? c.pos : k === 'k' ? c.neg : c.fg;
}

/** Line patterns, so the kinds differ without colour: Q dashed, K solid, V dotted. */
const DASHES: Record<CompositionKind, number[] | undefined> = { q: [6, 3], k: undefined, v: [2, 2] };

const WAITING = 'Computing the composition scores of every pair of heads…';

export interface HeadlabTransformerComposition extends AttributeProperties<typeof HeadlabTransformerComposition.attributes> {}
