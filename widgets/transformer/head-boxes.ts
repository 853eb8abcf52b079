// The head checkboxes of the figures that take a set of heads (<headlab-transformer-ablation>:
// the heads to ablate; <headlab-circuit-faithfulness>: the heads of the circuit). One box per
// head of the model, in layer-then-head order, built once per model version; a change hands the
// ticked heads ("l.h", in that order) to the figure, which writes its attribute.
import { el } from '../base/headlab-element.js';
import type { LoadedTransformer } from './model.js';
import { headName } from './widget.js';

/** The boxes' layout: wrapped in rows, each label a 44 px touch target. */
export const HEAD_BOXES_CSS = /* css */ `
  .heads { display: flex; flex-wrap: wrap; gap: 0.2rem 0.8rem; border: 0; padding: 0; margin: 0.3rem 0; }
  .heads legend { padding: 0; }
  .heads label { display: inline-flex; gap: 0.3rem; align-items: center; min-height: 2.75rem; }
  .heads input { width: 1.3rem; height: 1.3rem; accent-color: var(--hl-focus); }
`;

/** The figure's listener registration (its listeners are removed when it is detached). */
export type Listen = (target: EventTarget, type: string, handler: (event: Event) => void) => void;

export class HeadBoxes {
  /** The fieldset to place in the figure. */
  readonly box: HTMLFieldSetElement = el('fieldset', { class: 'heads' });
  private builtFor = '';

  /**
   * @param listen the figure's listen()
   * @param legend the fieldset's legend (what ticking a head means)
   * @param changed called with the ticked heads as "l.h" after the reader ticks or clears one
   */
  constructor(
    private readonly listen: Listen,
    private readonly legend: string,
    private readonly changed: (heads: string[]) => void,
  ) {}

  /**
   * Empties the boxes (the figure builds its content anew when attached again, and the listeners of
   * its earlier attachment are gone): the next build() makes them afresh.
   */
  reset(): void {
    this.builtFor = '';
    this.box.replaceChildren();
  }

  /** One box per head of `model` (rebuilt only when the model version changes or after reset()). */
  build(model: LoadedTransformer): void {
    const key = String(model.version);
    if (this.builtFor === key) return;
    this.builtFor = key;
    const boxes: HTMLElement[] = [el('legend', {}, this.legend)];
    for (let l = 0; l < model.config.n_layers; l++) {
      for (let h = 0; h < model.config.n_heads; h++) {
        const input = el('input', { type: 'checkbox', 'data-layer': String(l), 'data-head': String(h) });
        this.listen(input, 'change', () => this.changed(this.ticked()));
        const label = el('label');
        label.append(input, headName(l, h));
        boxes.push(label);
      }
    }
    this.box.replaceChildren(...boxes);
  }

  /** The ticked heads as "l.h", in layer-then-head order. */
  private ticked(): string[] {
    return [...this.box.querySelectorAll<HTMLInputElement>('input:checked')].map((i) => `${i.dataset.layer}.${i.dataset.head}`);
  }

  /**
   * Ticks exactly `heads` (as [layer, head]). With `keepOne` (the reason, shown as the box's
   * title), a lone ticked head is disabled so the set never empties.
   */
  show(heads: readonly (readonly [number, number])[], keepOne?: string): void {
    for (const input of this.box.querySelectorAll<HTMLInputElement>('input')) {
      const inside = heads.some(([l, h]) => String(l) === input.dataset.layer && String(h) === input.dataset.head);
      input.checked = inside;
      const locked = keepOne !== undefined && inside && heads.length === 1;
      if (input.disabled !== locked) input.disabled = locked;
      if (locked) input.title = keepOne;
      else if (input.hasAttribute('title')) input.removeAttribute('title');
    }
  }
}
