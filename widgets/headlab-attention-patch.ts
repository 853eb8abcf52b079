// <headlab-attention-patch>: activation patching at the ANS row. The reader points any head's
// ANS attention entirely at one prompt position (its row becomes one-hot there) and sees the
// new answer and the fourteen logits against the clean run; Reset returns every head to its
// own attention.
//
// Attributes: digits ("2 3 4 5 6"), patches ("head:position …", e.g. "3:3 1:3"; each head at
// most once, positions 0–8: BOS, six slots, SEP, ANS), model.
// Events: `change` with { digits, patches, answer, clean_answer }.
import {
  type AttributeProperties,
  custom,
  defineAttributes,
  el,
  shownIn,
  type WidgetFigure,
  WidgetInputError,
} from './base/headlab-element.js';
import { formatNumber } from './chart/format.js';
import { rgbText } from './chart/palette.js';
import { tablesScene } from './chart/table-scene.js';
import { drawSceneInto, type Scene, type Shape } from './chart/scene.js';
import { svgEl } from './chart/svg.js';
import type { MaxDigitPatchResult } from '../web/headlab-core.js';
import type { MaxDigitModel } from './max-digit/model.js';
import {
  CONTROL_HEADS,
  DigitsField,
  MAX_DIGIT_CSS,
  MaxDigitWidget,
  POSITIONS,
  headSwatch,
  promptTokens,
  scrollBox,
  digitsAttribute,
} from './max-digit/widget.js';

export interface AttentionPatch {
  head: number;
  position: number;
}

export interface AttentionPatchState {
  digits: number[];
  patches: AttentionPatch[];
  answer: number;
  clean_answer: number;
}

const WIDTH = 470;
const HEIGHT = 230;

/** The parts build() makes (this.parts). */
interface AttentionPatchParts {
  field: DigitsField;
  answerLine: HTMLParagraphElement;
  svgSlot: HTMLDivElement;
  tableBox: HTMLDivElement;
  answerParts: { clean: HTMLElement; patched: HTMLElement; tag: HTMLElement; what: Text };
  svg: SVGSVGElement;
}

/**
 * Activation patching at the ANS row. Attributes: digits, patches ("head:position …", e.g. "3:3 1:3";
 * each head at most once, positions 0–8), model. Shared: digits, patches.
 */
export class HeadlabAttentionPatch extends MaxDigitWidget<AttentionPatchState, AttentionPatchParts> {
  static attributes = defineAttributes({
    digits: digitsAttribute,
    patches: custom({
      type: 'AttentionPatch[]',
      shared: true,
      doc: 'The patched heads, "head:position …" (e.g. "3:3 1:3"): each head (0–3, once) attends only to that position (0–8).',
      parse: (raw) => {
        const text = (raw ?? '').trim();
        if (text === '') return [];
        const seen = new Set<number>();
        return text.split(/[\s,]+/).map((part) => {
          const m = /^([0-3]):([0-8])$/.exec(part);
          if (!m) throw new WidgetInputError(`attribute patches: "${part}" must be head:position with head 0–3 and position 0–8`);
          const head = Number(m[1]);
          if (seen.has(head)) throw new WidgetInputError(`attribute patches: head ${head} is patched twice`);
          seen.add(head);
          return { head, position: Number(m[2]) };
        });
      },
      format: (v: AttentionPatch[]) => v.map((p) => `${p.head}:${p.position}`).join(' '),
    }),
  });
  protected static css = /* css */ `${MAX_DIGIT_CSS}
    fieldset.head { border: 1px solid var(--hl-rule); border-radius: 4px; margin: 0 0 0.4rem; padding: 0.2rem 0.5rem 0.4rem; }
    fieldset.head legend { font-weight: 600; padding: 0 0.25rem; }
    .choices { display: flex; flex-wrap: wrap; gap: 0.15rem 0.35rem; }
    .choices label .pos { display: block; font-size: 0.75em; color: var(--hl-muted); line-height: 1.1; }
    .choices label .tok { display: block; font-weight: 600; line-height: 1.2; }
    .choices label { display: inline-flex; align-items: center; gap: 0.25rem; min-height: 2.75rem; padding: 0 0.4rem;
      border: 1px solid var(--hl-rule); border-radius: 4px; background: var(--hl-control); cursor: pointer; }
    .choices label:has(input:checked) { border-color: var(--hl-focus); box-shadow: inset 0 0 0 1px var(--hl-focus); }
    .answers { font-size: 1.05em; margin: 0.5rem 0; }
    .answers strong { font-variant-numeric: tabular-nums; }
    .logits td, .logits th { min-width: 2.6em; }
  `;
  private groups: HTMLInputElement[][] = [];
  private lastAnswer = -1;
  private lastClean = -1;
  private shown: { result: MaxDigitPatchResult; what: string; text: string } | null = null;
  /** The prompt tokens and token names the radio labels were last written for. */
  private labelKey = '';
  /** The token names the table's columns were built for. */
  private tableFor: readonly string[] | null = null;

  protected readState(): AttentionPatchState {
    return { digits: this.digits, patches: this.patches, answer: this.lastAnswer, clean_answer: this.lastClean };
  }

  /** Every head back to its own attention. */
  reset(): void {
    this.patches = [];
    this.emitChange();
  }

  protected buildContent(content: HTMLDivElement): AttentionPatchParts {
    const field = this.digitsField();
    const intro = el(
      'p',
      { class: 'caption' },
      'For each head, choose the one prompt position its ANS row should attend to (position 0 is BOS, positions 1–6 hold the list, then SEP and ANS), or keep the head’s own attention.',
    );
    const heads = el('div', { class: 'heads' });
    this.groups = [];
    for (let h = 0; h < CONTROL_HEADS; h++) {
      const fs = el('fieldset', { class: 'head', 'data-head': String(h) });
      const legend = el('legend');
      legend.append(headSwatch(h), `Head ${h}: ANS attends to`);
      const choices = el('div', { class: 'choices' });
      const inputs: HTMLInputElement[] = [];
      for (let p = -1; p < POSITIONS; p++) {
        const input = el('input', { type: 'radio', name: `head-${h}`, value: String(p) });
        const label = el('label');
        const text = el('span');
        label.append(input, text);
        choices.append(label);
        inputs.push(input);
        this.listen(input, 'change', () => {
          if (!input.checked) return;
          const others = this.patches.filter((x) => x.head !== h);
          this.patches = p < 0 ? others : [...others, { head: h, position: p }].sort((a, b) => a.head - b.head);
          this.emitChange();
        });
      }
      fs.append(legend, choices);
      heads.append(fs);
      this.groups.push(inputs);
    }
    const reset = el('button', { type: 'button' }, 'Reset');
    this.listen(reset, 'click', () => this.reset());
    const answerLine = el('p', { class: 'answers', role: 'status', 'aria-live': 'polite' });
    const answerParts = {
      clean: el('strong', { 'data-answer': 'clean' }),
      patched: el('strong', { 'data-answer': 'patched' }),
      tag: el('span', { class: 'tag same' }),
      what: document.createTextNode(''),
    };
    answerLine.append(
      'Clean answer ',
      answerParts.clean,
      ' · patched answer ',
      answerParts.patched,
      ' ',
      answerParts.tag,
      answerParts.what,
    );
    this.labelKey = '';
    const svg = svgEl('svg', { role: 'img' });
    this.tableFor = null;
    const figure = el('div', { class: 'figure' });
    const svgSlot = el('div');
    figure.append(svgSlot);
    const box = scrollBox('Logits at ANS');
    const row = el('div', { class: 'row' });
    row.append(reset);
    content.append(el('p', { class: 'title' }, 'Point a head somewhere else'), field.element, intro, heads, row, answerLine, figure, box);
    return { field, answerLine, svgSlot, tableBox: box, answerParts, svg };
  }

  protected renderContent(model: MaxDigitModel): void {
    const digits = this.parts.field.digits();
    this.parts.field.sync(this.root.activeElement);
    const patches = this.patches;
    const tokens = promptTokens(digits);
    // The 40 radio labels name the prompt's tokens: rewritten only when the list (or the model's
    // token names) changed, so a patch touches only the checked states.
    const names = this.tokenNames;
    const labelKey = `${tokens.join(' ')}|${names.join(' ')}`;
    const relabel = labelKey !== this.labelKey;
    this.labelKey = labelKey;
    this.groups.forEach((inputs, h) => {
      const chosen = patches.find((x) => x.head === h)?.position ?? -1;
      inputs.forEach((input, i) => {
        const p = i - 1;
        if (input.checked !== (p === chosen)) input.checked = p === chosen;
        if (!relabel) return;
        const span = input.nextElementSibling!;
        const words = p < 0 ? 'its own attention' : slotName(p, tokens[p], names);
        if (p < 0) {
          if (span.textContent !== 'own attention') span.textContent = 'own attention';
        } else
          span.replaceChildren(el('span', { class: 'pos' }, `position ${p}`), el('span', { class: 'tok' }, tokenWord(tokens[p], names)));
        input.setAttribute('aria-label', `head ${h}: ${words}`);
        const label = input.closest('label')!;
        label.setAttribute('data-position', String(p));
        if (p >= 0 && tokens[p] < 10) label.setAttribute('data-digit', String(tokens[p]));
        else label.removeAttribute('data-digit');
      });
    });
    const r = this.cached(model, `patch:${digits.join('')}:${patches.map((x) => `${x.head}${x.position}`).join(',')}`, () =>
      this.maxDigit!.maxDigitPatch(this.held(model), digits, patches),
    );
    this.lastAnswer = r.answer;
    this.lastClean = r.original_answer;
    const changed = r.answer !== r.original_answer;
    const what =
      patches.length === 0
        ? 'no head patched'
        : patches.map((x) => `head ${x.head} → ${slotName(x.position, tokens[x.position], names)}`).join(', ');
    const line = this.parts.answerParts;
    setText(line.clean, String(r.original_answer));
    setText(line.patched, String(r.answer));
    setText(line.tag, changed ? 'changed' : 'unchanged');
    if (line.tag.className !== `tag ${changed ? 'changed' : 'same'}`) line.tag.className = `tag ${changed ? 'changed' : 'same'}`;
    setText(line.what, ` (${what})`);
    const text = `Logits of the ten digits for the list ${digits.join(', ')}, clean and patched (${what}): the clean run answers ${r.original_answer} (logit ${formatNumber(r.original_logits[r.original_answer], 2)}), the patched run ${r.answer} (logit ${formatNumber(r.logits[r.answer], 2)}).`;
    this.shown = { result: r, what, text };
    // One chart and one table, patched in place (the same shapes and cells for every patch):
    // an update creates no nodes.
    drawSceneInto(this.parts.svg, this.scene(r.original_logits, r.logits), { reuse: true });
    if (this.parts.svg.getAttribute('aria-label') !== text) this.parts.svg.setAttribute('aria-label', text);
    this.show(this.parts.svgSlot, this.parts.svg);
    let table = shownIn(this.parts.tableBox, HTMLTableElement);
    if (!table || this.tableFor !== names) {
      table = el('table', { class: 'logits compact' });
      this.tableFor = names;
      this.buildTable(table, names);
    }
    this.fillTable(table, [r.original_logits, r.logits]);
    this.show(this.parts.tableBox, table);
  }

  protected describe(): string {
    return this.shown?.text ?? '';
  }

  figures(): WidgetFigure[] {
    const shown = () => this.exportable(this.shown).result;
    return [
      {
        name: 'logits',
        label: 'Logits',
        scene: () => {
          const r = shown();
          return this.scene(r.original_logits, r.logits);
        },
      },
      {
        name: 'table',
        label: 'Logit table',
        scene: () => {
          shown();
          return tablesScene(
            [this.shownFor(this.parts.tableBox, HTMLTableElement)],
            this.themeColours(),
            'All fourteen logits at ANS, clean and patched',
          );
        },
      },
    ];
  }

  private scene(clean: ArrayLike<number>, patched: ArrayLike<number>): Scene {
    const c = this.themeColours();
    const shapes: Shape[] = [];
    const left = 40;
    const top = 26;
    const bottom = HEIGHT - 24;
    let lo = 0;
    let hi = 0;
    for (let t = 0; t < 10; t++) {
      lo = Math.min(lo, clean[t], patched[t]);
      hi = Math.max(hi, clean[t], patched[t]);
    }
    const y = (v: number) => top + ((hi - v) / (hi - lo || 1)) * (bottom - top);
    const slot = (WIDTH - left - 8) / 10;
    shapes.push({ kind: 'rect', x: left, y: 4, w: 10, h: 10, fill: rgbText(c.muted) });
    shapes.push({ kind: 'text', x: left + 14, y: 9, text: 'clean', fill: rgbText(c.fg), size: 11 });
    shapes.push({ kind: 'rect', x: left + 64, y: 4, w: 10, h: 10, fill: rgbText(c.pos) });
    shapes.push({ kind: 'text', x: left + 78, y: 9, text: 'patched', fill: rgbText(c.fg), size: 11 });
    shapes.push({ kind: 'text', x: WIDTH - 8, y: 9, text: 'logit of each digit', fill: rgbText(c.muted), size: 11, anchor: 'end' });
    for (let t = 0; t < 10; t++) {
      const x = left + t * slot;
      const bw = slot * 0.36;
      for (const [value, dx, fill] of [
        [clean[t], slot * 0.12, c.muted],
        [patched[t], slot * 0.5, c.pos],
      ] as const) {
        const y0 = y(0);
        const y1 = y(value);
        shapes.push({ kind: 'rect', x: x + dx, y: Math.min(y0, y1), w: bw, h: Math.abs(y1 - y0), fill: rgbText(fill) });
      }
      shapes.push({ kind: 'text', x: x + slot / 2, y: HEIGHT - 10, text: String(t), fill: rgbText(c.fg), size: 12, anchor: 'middle' });
    }
    shapes.push({ kind: 'line', x1: left, y1: y(0), x2: WIDTH - 8, y2: y(0), stroke: rgbText(c.muted) });
    for (const v of [lo, hi])
      shapes.push({ kind: 'text', x: left - 4, y: y(v), text: formatNumber(v, 0), fill: rgbText(c.muted), size: 10, anchor: 'end' });
    return { width: WIDTH, height: HEIGHT, background: rgbText(c.panel), title: 'Digit logits, clean and patched', shapes };
  }

  /** The logit table's rows and cells for the token names `names` (filled by fillTable). */
  private buildTable(table: HTMLTableElement, names: readonly string[]): void {
    table.createCaption().textContent = 'All fourteen logits at ANS; the largest in each row is the answer (bold).';
    const head = table.createTHead().insertRow();
    head.append(el('th', { scope: 'col' }, 'run'));
    names.forEach((n) => head.append(el('th', { scope: 'col' }, n)));
    const body = table.createTBody();
    for (const name of ['clean', 'patched']) {
      const tr = body.insertRow();
      tr.append(el('th', { scope: 'row' }, name));
      for (let t = 0; t < names.length; t++) tr.append(el('td', { class: 'num', 'data-run': name }));
    }
  }

  /** Writes the clean and patched logits into the table's cells; the largest of each row is bold. */
  private fillTable(table: HTMLTableElement, rows: [ArrayLike<number>, ArrayLike<number>]): void {
    rows.forEach((values, i) => {
      const cells = table.tBodies[0].rows[i].cells;
      const n = cells.length - 1; // one per token name
      let best = 0;
      for (let t = 1; t < n; t++) if (values[t] > values[best]) best = t;
      for (let t = 0; t < n; t++) {
        const td = cells[t + 1];
        const cls = `num${t === best ? ' best' : ''}`;
        if (td.className !== cls) td.className = cls;
        const v = String(values[t]);
        if (td.getAttribute('data-value') !== v) {
          td.setAttribute('data-value', v);
          td.textContent = formatNumber(values[t], 2);
        }
      }
    });
  }
}

/** Sets `node`'s text when it differs (no mutation otherwise). */
function setText(node: Node, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

/** A prompt slot in the article's words: "position 3 · digit 4", "position 0 · BOS". */
export function slotName(position: number, token: number, names: readonly string[]): string {
  return `position ${position} · ${tokenWord(token, names)}`;
}

function tokenWord(token: number, names: readonly string[]): string {
  return token < 10 ? `digit ${token}` : names[token];
}

export interface HeadlabAttentionPatch extends AttributeProperties<typeof HeadlabAttentionPatch.attributes> {}
