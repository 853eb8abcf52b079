// <headlab-head-contributions>: the heads' outputs in three dimensions. For the reader's list,
// every head's contribution head_h = (Σ_p a_h(p) E[t_p] W_V^h) W_O^h is drawn in the basis of
// the top three principal directions of W_O, with the ten digits' unembedding vectors as labelled
// points. Mode "outputs": each head's vector (from the origin, or chained tip to tail), their
// sum, and dashed, the default sum (every head attending to ANS only). Mode "corrections": the
// default sum and each head's correction from its own default, chained from there (or each from
// the default) to the same sum. The readout in this space is
// the dot product of the sum with each digit's point; the largest picks the answer.
//
// The 3-D drawing (widgets/max-digit/view3d.ts) is loaded on demand by a dynamic import.
// Attributes: digits ("2 3 4 5 6"), mode ("outputs" | "corrections"), layout ("origin" | "chained"), model.
// Events: `change` with { digits, mode, layout, pick, answer }.
import type { MaxDigitContributions } from '../web/headlab-core.js';
import { type AttributeProperties, defineAttributes, el, oneOf, type WidgetFigure, WidgetInputError } from './base/headlab-element.js';
import { tablesScene } from './chart/table-scene.js';
import { formatNumber } from './chart/format.js';
import { rgbText, type ResolvedColours } from './chart/palette.js';
import type { MaxDigitModel } from './max-digit/model.js';
import type { Vec3, View3D, ViewArrow, ViewContent, ViewPoint } from './max-digit/view3d.js';
import {
  CONTROL_HEADS,
  DigitsField,
  HEAD_COLOURS,
  MAX_DIGIT_CSS,
  MaxDigitWidget,
  argmax,
  headSwatch,
  scrollBox,
  digitsAttribute,
} from './max-digit/widget.js';

export interface HeadContributionsState {
  digits: number[];
  mode: 'outputs' | 'corrections';
  layout: 'origin' | 'chained';
  /** Digit with the largest dot product with the sum in the 3-D space. */
  pick: number;
  /** The full model's answer. */
  answer: number;
}

/** The parts build() makes (this.parts). */
interface HeadContributionsParts {
  field: DigitsField;
  stage: HTMLDivElement;
  angles: HTMLParagraphElement;
  readout: HTMLParagraphElement;
  loadingNote: HTMLParagraphElement;
  scaleNote: HTMLParagraphElement;
  tableBox: HTMLDivElement;
}

/** The heads' contributions in a 3-D view (its own lazily loaded chunk). Attributes: digits, mode, layout, model. Shared: digits, mode, layout. */
export class HeadlabHeadContributions extends MaxDigitWidget<HeadContributionsState, HeadContributionsParts> {
  static attributes = defineAttributes({
    digits: digitsAttribute,
    mode: oneOf(['outputs', 'corrections'], {
      fallback: 'outputs',
      shared: true,
      quoted: true,
      doc: 'What the arrows show: each head’s output, or its correction to the residual.',
    }),
    layout: oneOf(['origin', 'chained'], { fallback: 'origin', shared: true, doc: 'Arrows from the origin, or chained head after head.' }),
  });
  protected static css = /* css */ `${MAX_DIGIT_CSS}
    .stage { border: 1px solid var(--hl-rule); border-radius: 4px; background: var(--hl-panel); max-width: 440px; touch-action: none; cursor: grab; }
    .stage:focus-visible { outline: 3px solid var(--hl-focus); outline-offset: 2px; }
    .stage svg { display: block; width: 100%; height: auto; }
    .options { display: flex; flex-wrap: wrap; gap: 0.3rem 1.2rem; }
    .options fieldset { border: 0; padding: 0; margin: 0; display: flex; gap: 0.6rem; align-items: center; flex-wrap: wrap; }
    .options legend { float: left; font-weight: 600; margin-right: 0.3rem; }
    .readout { font-size: 1.05em; }
    .layout-3d { display: flex; flex-wrap: wrap; gap: 0.75rem 1.5rem; align-items: flex-start; }
    .layout-3d .side { flex: 1 1 14rem; min-width: 0; }
  `;
  private view: View3D | null = null;
  private viewFailure = '';
  private modeInputs: HTMLInputElement[] = [];
  private layoutInputs: HTMLInputElement[] = [];
  private last: { pick: number; answer: number } = { pick: -1, answer: -1 };
  private viewModule: typeof import('./max-digit/view3d.js') | null = null;
  private shown: { content: ViewContent; text: string } | null = null;
  private text = '';

  /**
   * The 3-D view once its module has loaded (tests and diagnostics).
   * @internal
   */
  get view3d(): View3D | null {
    return this.view;
  }

  protected readState(): HeadContributionsState {
    return { digits: this.digits, mode: this.mode, layout: this.layout, ...this.last };
  }

  protected buildContent(content: HTMLDivElement): HeadContributionsParts {
    const field = this.digitsField();
    const options = el('div', { class: 'options' });
    const radios = (name: string, values: [string, string][], set: (v: string) => void): [HTMLFieldSetElement, HTMLInputElement[]] => {
      const fs = el('fieldset');
      fs.append(el('legend', {}, name === 'mode' ? 'Show' : 'Arrows'));
      const inputs = values.map(([value, text]) => {
        const input = el('input', { type: 'radio', name, value });
        const label = el('label');
        label.append(input, ` ${text}`);
        fs.append(label);
        this.listen(input, 'change', () => {
          if (input.checked) {
            set(value);
            this.emitChange();
          }
        });
        return input;
      });
      return [fs, inputs];
    };
    const [modeSet, modeInputs] = radios(
      'mode',
      [
        ['outputs', 'each head’s output'],
        ['corrections', 'corrections from the default'],
      ],
      (v) => {
        this.mode = v as 'outputs';
      },
    );
    const [layoutSet, layoutInputs] = radios(
      'layout',
      [
        ['origin', 'from one point'],
        ['chained', 'tip to tail'],
      ],
      (v) => {
        this.layout = v as 'origin';
      },
    );
    this.modeInputs = modeInputs;
    this.layoutInputs = layoutInputs;
    options.append(modeSet, layoutSet);

    const legend = el('div', { class: 'legend', 'aria-hidden': 'true' });
    for (let h = 0; h < CONTROL_HEADS; h++) {
      const s = el('span');
      s.append(headSwatch(h), `head ${h}`);
      legend.append(s);
    }
    legend.append(el('span', {}, 'thick: the sum'), el('span', {}, 'dots: the digits’ unembeddings'));

    const stage = el('div', {
      class: 'stage',
      tabindex: '0',
      role: 'group',
      'aria-roledescription': '3-D view',
      'aria-label': 'Head contributions in the top three W_O directions. Drag, or use the arrow keys, to rotate; Home resets the view.',
    });
    const loadingNote = el('p', { class: 'waiting' }, 'Loading the 3-D view…');
    stage.append(loadingNote);
    const reset = el('button', { type: 'button' }, 'Reset view');
    this.listen(reset, 'click', () => this.view?.reset());
    const angles = el('p', { class: 'caption', role: 'status', 'aria-live': 'polite' });
    const resetRow = el('div', { class: 'row' });
    resetRow.append(reset, angles);
    const readout = el('p', { class: 'readout', role: 'status', 'aria-live': 'polite' });
    const scaleNote = el('p', { class: 'caption' });
    const box = scrollBox('Coordinates');
    const side = el('div', { class: 'side' });
    side.append(readout, scaleNote, box);
    const main = el('div', { class: 'main3d' });
    main.append(stage, resetRow);
    const layout = el('div', { class: 'layout-3d' });
    layout.append(main, side);
    content.append(el('p', { class: 'title' }, 'What each head adds, in three dimensions'), field.element, options, legend, layout);

    if (!this.view) {
      import('./max-digit/view3d.js').then(
        (m) => {
          if (!stage) return;
          this.viewModule = m;
          this.view = new m.View3D(
            stage,
            (t, type, h) => this.listen(t, type, h),
            () => this.requestRender(),
          );
          this.requestRender();
        },
        (err: Error) => {
          this.viewFailure = `The 3-D view could not be loaded: ${err.message}`;
          this.requestRender();
        },
      );
    }
    return { field, stage, angles, readout, loadingNote, scaleNote, tableBox: box };
  }

  /** No render before the 3-D module has loaded (or failed): the first render shows the whole figure. */
  protected requestRender(): void {
    if (this.view || this.viewFailure) super.requestRender();
  }

  disconnectedCallback(): void {
    // The view's listeners belonged to the old controls; a re-attach builds a new view.
    this.view?.dispose();
    this.view = null;
    super.disconnectedCallback();
  }

  private announceAngles(): void {
    if (!this.view) return;
    this.parts.angles.textContent = `Turned ${formatNumber(this.view.azimuth, 0)}° about PC3, tilted ${formatNumber(this.view.elevation, 0)}°.`;
  }

  protected renderContent(model: MaxDigitModel): void {
    if (this.viewFailure) throw new WidgetInputError(this.viewFailure);
    const digits = this.parts.field.digits();
    this.parts.field.sync(this.root.activeElement);
    const mode = this.mode;
    const layout = this.layout;
    this.modeInputs.forEach((i) => {
      i.checked = i.value === mode;
    });
    this.layoutInputs.forEach((i) => {
      i.checked = i.value === layout;
    });
    const c = this.cached(model, `contrib:${digits.join('')}`, () =>
      this.maxDigit!.maxDigitContributions(this.held(model), digits, 'w_o', 3),
    );
    const vec = (m: { data: Float64Array }, row: number): Vec3 => [m.data[row * 3], m.data[row * 3 + 1], m.data[row * 3 + 2]];
    const sum = vec(c.head_sum, 0);
    // Readout in this space: (Σ_h head_h U_3)·(U_3ᵀ W_U[:, d]) for the ten digits.
    const dots = Array.from({ length: 10 }, (_, d) => dot3(sum, vec(c.unembedding, d)));
    const pick = argmax(dots);
    this.last = { pick, answer: c.answer };
    const maxDigit = Math.max(...digits);

    this.parts.readout.replaceChildren(
      'In these three dimensions the sum has its largest dot product with digit ',
      el('strong', { 'data-figure': 'pick' }, String(pick)),
      '; the full model answers ',
      el('strong', { 'data-figure': 'answer' }, String(c.answer)),
      ` (the maximum is ${maxDigit}).`,
      ...(mode === 'corrections'
        ? [
            ' The default alone (every head attending to ANS) would answer ',
            el('strong', { 'data-figure': 'default' }, String(model.analysis.mechanism.default_answer)),
            '; no list produces it.',
          ]
        : []),
    );
    const modeText = mode === 'outputs' ? 'Each head’s output' : 'Each head’s correction from its default (attending to ANS only)';
    this.text = `${modeText} for the list ${digits.join(', ')}, in the top three W_O directions: the sum is (${Array.from(c.head_sum.data, (x) => formatNumber(x, 2)).join(', ')}); its largest dot product with a digit's unembedding is ${formatNumber(dots[pick], 1)}, for digit ${pick}; the full model answers ${c.answer}.`;
    const table = this.fragment(model, `table:${digits.join('')}:${mode}`, () => {
      const table = el('table', { class: 'coords compact' });
      this.renderTable(table, c, dots, mode);
      return table;
    });
    this.show(this.parts.tableBox, table);

    const view = this.view;
    this.parts.loadingNote.hidden = view !== null;
    if (!view) return;
    if (!view.svg.isConnected) this.parts.stage.append(view.svg);
    const colours = this.themeColours();
    const frame = this.cached(model, 'frame', () => this.modelFrame(model));
    const content = this.cached(model, `content:${digits.join('')}:${mode}:${layout}:${rgbText(colours.fg)}`, () =>
      this.viewContent(c, mode, layout, pick, colours, frame),
    );
    this.shown = { content: content.view, text: this.text };
    // The first drawing at the stage's shown width (one read; later ones from the view's observer).
    if (!view.hasShownWidth) view.setShownWidth(this.measureOnce([view.svg])[0]);
    view.set(content.view);
    this.parts.scaleNote.textContent = `One scale for this model, whatever the list: the digit points are drawn ×${formatNumber(content.factor, 3)} so the farthest reaches as far as the longest sum over the single-digit lists; one factor on every digit leaves the largest dot product unchanged. The dotted line joins the digits 0 → 9.`;
    view.svg.setAttribute('aria-label', this.text);
    this.announceAngles();
  }

  /**
   * The model's fixed frame: how far the arrows reach over the ten single-digit lists (both
   * modes, both layouts) and the one factor that brings the digit points to the longest sum.
   */
  private modelFrame(model: MaxDigitModel): { reach: number; factor: number } {
    let reach = 0,
      sumReach = 0,
      digitReach = 0;
    for (let d = 0; d < 10; d++) {
      const c = this.maxDigit!.maxDigitContributions(this.held(model), [d], 'w_o', 3);
      const v = (m: { data: Float64Array }, row: number): Vec3 => [m.data[row * 3], m.data[row * 3 + 1], m.data[row * 3 + 2]];
      sumReach = Math.max(sumReach, norm(v(c.head_sum, 0)));
      let chainO: Vec3 = [0, 0, 0];
      let chainC: Vec3 = v(c.default_sum, 0);
      reach = Math.max(reach, norm(chainC));
      for (let h = 0; h < this.heads; h++) {
        chainO = add(chainO, v(c.head_outputs, h));
        chainC = add(chainC, v(c.corrections, h));
        reach = Math.max(
          reach,
          norm(v(c.head_outputs, h)),
          norm(chainO),
          norm(chainC),
          norm(add(v(c.default_sum, 0), v(c.corrections, h))),
        );
      }
      if (d === 0) for (let t = 0; t < 10; t++) digitReach = Math.max(digitReach, norm(v(c.unembedding, t)));
    }
    const factor = digitReach > 0 ? sumReach / digitReach : 1;
    return { reach: Math.max(reach, sumReach) * 1.08 || 1, factor };
  }

  /** The arrows and points of the 3-D view for these contributions. */
  private viewContent(
    c: MaxDigitContributions,
    mode: 'outputs' | 'corrections',
    layout: 'origin' | 'chained',
    pick: number,
    colours: ResolvedColours,
    frame: { reach: number; factor: number },
  ): { view: ViewContent; factor: number } {
    const vec = (m: { data: Float64Array }, row: number): Vec3 => [m.data[row * 3], m.data[row * 3 + 1], m.data[row * 3 + 2]];
    const sum = vec(c.head_sum, 0);
    // Digit points share one scale factor so the longest is as long as the longest arrow: a
    // common factor on every digit leaves the dot-product argmax unchanged.
    const arrows: ViewArrow[] = [];
    const zero: Vec3 = [0, 0, 0];
    const fg = rgbText(colours.fg);
    const muted = rgbText(colours.muted);
    if (mode === 'outputs') {
      let at: Vec3 = zero;
      for (let h = 0; h < this.heads; h++) {
        const v = vec(c.head_outputs, h);
        const from = layout === 'chained' ? at : zero;
        const to = add(from, v);
        arrows.push({ from, to, colour: HEAD_COLOURS[h], id: `head-${h}` });
        at = to;
      }
      arrows.push({ from: zero, to: vec(c.default_sum, 0), colour: muted, width: 2, dashed: true, label: 'default', id: 'default' });
      arrows.push({ from: zero, to: sum, colour: fg, width: 4, label: 'sum', id: 'sum' });
    } else {
      const base = vec(c.default_sum, 0);
      arrows.push({ from: zero, to: base, colour: muted, width: 2.5, dashed: true, label: 'default', id: 'default' });
      let at: Vec3 = base;
      for (let h = 0; h < this.heads; h++) {
        const v = vec(c.corrections, h);
        const from = layout === 'chained' ? at : base;
        const to = add(from, v);
        arrows.push({ from, to, colour: HEAD_COLOURS[h], id: `head-${h}` });
        at = to;
      }
      arrows.push({ from: zero, to: sum, colour: fg, width: 4, label: 'sum', id: 'sum' });
    }
    const factor = frame.factor;
    const points: ViewPoint[] = Array.from({ length: 10 }, (_, d) => ({
      at: scale(vec(c.unembedding, d), factor),
      label: String(d),
      colour: d === pick ? fg : muted,
      strong: d === pick,
      id: `digit-${d}`,
    }));
    // An arrow longer than the frame (a list far from every single-digit list) widens it for this list only.
    let reach = frame.reach;
    for (const a of arrows) reach = Math.max(reach, norm(a.to) * 1.02, norm(a.from) * 1.02);
    const path = { points: points.map((p) => p.at), colour: muted };
    return { view: { points, arrows, axisColour: muted, textColour: fg, reach, path }, factor };
  }

  protected describe(): string {
    return this.text;
  }

  figures(): WidgetFigure[] {
    return [
      {
        name: 'view',
        label: '3-D view',
        scene: () => {
          if (!this.shown || !this.view || !this.viewModule) throw new WidgetInputError('the 3-D view has not loaded yet');
          return this.viewModule.viewScene(
            this.view,
            this.shown.content,
            rgbText(this.themeColours().panel),
            'Head contributions in the top three W_O directions',
          );
        },
      },
      {
        name: 'coordinates',
        label: 'Coordinates',
        scene: () =>
          tablesScene([this.shownFor(this.parts.tableBox, HTMLTableElement)], this.themeColours(), 'Coordinates on PC1–PC3 of W_O'),
      },
    ];
  }

  private renderTable(table: HTMLTableElement, c: MaxDigitContributions, dots: number[], mode: 'outputs' | 'corrections'): void {
    table.createCaption().textContent = 'Coordinates on PC1–PC3 of W_O';
    const head = table.createTHead().insertRow();
    for (const t of ['vector', 'PC1', 'PC2', 'PC3']) head.append(el('th', { scope: 'col' }, t));
    const body = table.createTBody();
    const row = (name: Node | string, m: { data: Float64Array }, r: number, id: string) => {
      const tr = body.insertRow();
      const th = el('th', { scope: 'row' });
      th.append(name);
      tr.append(th);
      for (let j = 0; j < 3; j++)
        tr.append(
          el(
            'td',
            { class: 'num', 'data-vector': id, 'data-j': String(j), 'data-value': String(m.data[r * 3 + j]) },
            formatNumber(m.data[r * 3 + j], 2),
          ),
        );
    };
    const source = mode === 'outputs' ? c.head_outputs : c.corrections;
    for (let h = 0; h < this.heads; h++) {
      const f = document.createDocumentFragment();
      f.append(headSwatch(h), mode === 'outputs' ? `head ${h}` : `head ${h} correction`);
      row(f, source, h, `head-${h}`);
    }
    row('default sum', c.default_sum, 0, 'default');
    row('sum', c.head_sum, 0, 'sum');
    const tr = body.insertRow();
    tr.append(el('th', { scope: 'row' }, 'sum · digit d'));
    const td = el('td', { colspan: '3', class: 'dots' });
    td.textContent = dots.map((x, d) => `${d}: ${formatNumber(x, 1)}`).join(', ');
    tr.append(td);
  }
}

function dot3(a: Vec3, b: Vec3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
function add(a: Vec3, b: Vec3): Vec3 {
  return [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
}
function scale(a: Vec3, s: number): Vec3 {
  return [a[0] * s, a[1] * s, a[2] * s];
}
function norm(a: Vec3): number {
  return Math.hypot(a[0], a[1], a[2]);
}

export interface HeadlabHeadContributions extends AttributeProperties<typeof HeadlabHeadContributions.attributes> {}
