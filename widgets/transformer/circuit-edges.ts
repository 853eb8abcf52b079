// A circuit of edges for <headlab-circuit-faithfulness edges="0.0>1.1:k 0.0>1.1:q">: each edge a
// sender head, a later receiver head and the receiver's input (q, k or v), written as the command
// line's --faithfulness-edges writes it (core/circuit_faithfulness.hpp "A circuit of edges").
// Parsed and checked against the model here, so a bad edge is named before the worker is asked;
// sorted in the core's order (sender, receiver, then q, k, v), which the document keeps.
import type { TransformerCircuitEdge } from '../../web/headlab-core.js';
import { el, WidgetInputError } from '../base/headlab-element.js';
import type { LoadedTransformer } from './model.js';
import { headName } from './widget.js';

const INPUTS = ['q', 'k', 'v'] as const;

/** "0.0>1.1:k": how the attribute, the command line and the core's messages write an edge. */
export const edgeText = (e: TransformerCircuitEdge): string => `${e[0]}.${e[1]}>${e[2]}.${e[3]}:${e[4]}`;

/** "L0 H0 → L1 H1 via k": how readers see it. */
export const edgeWords = (e: TransformerCircuitEdge): string => `${headName(e[0], e[1])} → ${headName(e[2], e[3])} via ${e[4]}`;

/** The core's order: sender layer, sender head, receiver layer, receiver head, then q, k, v. */
function compareEdges(a: TransformerCircuitEdge, b: TransformerCircuitEdge): number {
  for (let i = 0; i < 4; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  return INPUTS.indexOf(a[4]) - INPUTS.indexOf(b[4]);
}

/**
 * The edges of the attribute text `raw` (separated by spaces or commas), checked against `model`
 * when given (heads inside it, sender in an earlier layer, none twice, at least one), sorted.
 * Throws WidgetInputError naming the attribute, the edge and the bound.
 */
export function parseEdges(raw: string, model: LoadedTransformer | null): TransformerCircuitEdge[] {
  const shown = raw.length > 60 ? `${raw.slice(0, 60)}…` : raw;
  const out: TransformerCircuitEdge[] = [];
  for (const part of raw
    .trim()
    .split(/[\s,]+/)
    .filter(Boolean)) {
    const m = /^(\d{1,4})\.(\d{1,4})>(\d{1,4})\.(\d{1,4}):([qkv])$/.exec(part);
    if (!m)
      throw new WidgetInputError(
        `attribute edges="${shown}": "${part.slice(0, 20)}" is not an edge such as 0.1>1.2:k (sender>receiver:q, k or v)`,
      );
    const e: TransformerCircuitEdge = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), m[5] as 'q' | 'k' | 'v'];
    if (model && (Math.max(e[0], e[2]) >= model.config.n_layers || Math.max(e[1], e[3]) >= model.config.n_heads)) {
      const { n_layers: L, n_heads: H } = model.config;
      throw new WidgetInputError(
        `attribute edges="${shown}": the model has no head for ${part} (${L} layers × ${H} heads, numbered from 0)`,
      );
    }
    if (e[0] >= e[2])
      throw new WidgetInputError(`attribute edges="${shown}": in ${part} the sender must be in an earlier layer than the receiver`);
    if (out.some((x) => compareEdges(x, e) === 0)) throw new WidgetInputError(`attribute edges="${shown}": edge ${part} is named twice`);
    out.push(e);
  }
  if (out.length === 0) throw new WidgetInputError('attribute edges="" names no edge: a circuit keeps at least one');
  return out.sort(compareEdges);
}

/** The heads at the ends of `edges`, layer-then-head order. */
export function edgeHeads(edges: readonly TransformerCircuitEdge[]): [number, number][] {
  const heads = new Map<string, [number, number]>();
  for (const e of edges) {
    heads.set(`${e[0]}.${e[1]}`, [e[0], e[1]]);
    heads.set(`${e[2]}.${e[3]}`, [e[2], e[3]]);
  }
  return [...heads.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

/**
 * One checkbox per edge a reader may tick: every edge (q, k and v) between the heads of the circuits
 * shown so far (the set only grows, so an edge unticked can be ticked back). A change hands the
 * ticked edges, in the core's order, to the figure, which writes its attribute; the last one stays.
 */
export class EdgeBoxes {
  readonly box: HTMLFieldSetElement = el('fieldset', { class: 'heads edges' });
  private heads = new Map<string, [number, number]>();
  private builtFor = '';

  constructor(
    private readonly listen: (target: EventTarget, type: string, handler: (event: Event) => void) => void,
    private readonly changed: (edges: TransformerCircuitEdge[]) => void,
  ) {}

  /** Empties the boxes and forgets the heads (the figure builds its content anew when attached again). */
  reset(): void {
    this.builtFor = '';
    this.heads.clear();
    this.box.replaceChildren();
  }

  /** Ticks exactly `edges`, adding boxes for the edges between any new head first. */
  show(edges: readonly TransformerCircuitEdge[]): void {
    for (const [l, h] of edgeHeads(edges)) this.heads.set(`${l}.${h}`, [l, h]);
    const heads = [...this.heads.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const key = heads.map(([l, h]) => `${l}.${h}`).join(' ');
    if (key !== this.builtFor) this.build(heads, key);
    const on = new Set(edges.map(edgeText));
    for (const input of this.box.querySelectorAll<HTMLInputElement>('input')) {
      const inside = on.has(input.value);
      input.checked = inside;
      const locked = inside && edges.length === 1;
      if (input.disabled !== locked) input.disabled = locked;
      if (locked) input.title = 'A circuit keeps at least one edge';
      else if (input.hasAttribute('title')) input.removeAttribute('title');
    }
  }

  private build(heads: [number, number][], key: string): void {
    this.builtFor = key;
    const boxes: HTMLElement[] = [el('legend', {}, 'Edges in the circuit (a path left out carries the replacement)')];
    for (const [ls, hs] of heads)
      for (const [lr, hr] of heads) {
        if (ls >= lr) continue;
        for (const input of INPUTS) {
          const e: TransformerCircuitEdge = [ls, hs, lr, hr, input];
          const box = el('input', { type: 'checkbox', value: edgeText(e) });
          this.listen(box, 'change', () => {
            const ticked = [...this.box.querySelectorAll<HTMLInputElement>('input:checked')].map((i) => i.value);
            this.changed(parseEdges(ticked.join(' '), null));
          });
          const label = el('label');
          label.append(box, edgeWords(e));
          boxes.push(label);
        }
      }
    this.box.replaceChildren(...boxes);
  }
}
