// <headlab-transformer-attribution model="m">: direct logit attribution on the reader's prompt.
// For a chosen position and token, how much of that token's logit each component of the residual
// stream writes directly: the token embedding, the positional embedding, every head's output and
// each layer's output bias, and the constant of the final LayerNorm's bias and the unembedding bias,
// with the final LayerNorm's scale frozen at its value on this prompt (TransformerLens's
// apply_ln_to_stack; core/transformer_analysis.hpp). The bars sum to the logit.
//
// Attributes: model, prompt, position (default the last), token (id or name; default the model's top prediction there).
// Events: `change` with { prompt, position, token, logit } when the reader changes any of them.
import { needsBuild } from './base/dom.js';
import type { TransformerAnalysis } from '../web/headlab-core.js';
import { type AttributeProperties, defineAttributes, el, text, type WidgetFigure, WidgetInputError } from './base/headlab-element.js';
import { labelledSelect } from './base/dom.js';
import { formatNumber } from './chart/format.js';
import type { Scene } from './chart/scene.js';
import { drawnSvg, signedBarScene, type BarRow } from './transformer/draw.js';
import type { LoadedTransformer } from './transformer/model.js';
import { PromptField, TRANSFORMER_CSS, TransformerWidget, headName, logitsAt, tokenName, tokenize } from './transformer/widget.js';

export interface TransformerAttributionState {
  prompt: number[];
  position: number;
  token: number;
  /** The model's logit for `token` at `position` (nats). */
  logit: number | null;
}

/** Tokens offered in the token menu: the most likely ones (a vocabulary of thousands would make a menu no reader scans). */
const MENU_TOKENS = 40;

/** The parts build() makes (this.parts). */
interface TransformerAttributionParts {
  field: PromptField;
  positionSelect: HTMLSelectElement;
  tokenSelect: HTMLSelectElement;
  barSlot: HTMLDivElement;
  captionLine: HTMLParagraphElement;
}

/** Direct logit attribution of the embeddings, every head and the biases to one logit. Attributes: prompt, position (default the last), token (default the top prediction), model. Shared: prompt, position, token. */
export class HeadlabTransformerAttribution extends TransformerWidget<TransformerAttributionState, TransformerAttributionParts> {
  static attributes = defineAttributes({
    prompt: text({ shared: true, doc: 'The prompt, as text the model’s tokenizer reads (default the model’s example).' }),
    position: text({ property: false, shared: true, markup: 'Num', doc: 'The position whose logit is attributed (default the last).' }),
    token: text({ property: false, shared: true, markup: 'Num', doc: 'The token whose logit is attributed (default the top prediction).' }),
  });
  protected static css = TRANSFORMER_CSS;
  private shown: { analysis: TransformerAnalysis; model: LoadedTransformer; text: string } | null = null;

  protected readState(): TransformerAttributionState {
    const a = this.shown?.analysis;
    return {
      prompt: a?.tokens ?? [],
      position: a?.position ?? -1,
      token: a?.token ?? -1,
      logit: a?.direct_logit_attribution.logit ?? null,
    };
  }

  protected buildContent(content: HTMLDivElement): TransformerAttributionParts {
    const field = this.promptField('Prompt:');
    const controls = el('div', { class: 'controls' });
    const positionSelect = labelledSelect(controls, 'Position', 'position');
    const tokenSelect = labelledSelect(controls, 'Logit of token', 'token');
    this.listen(positionSelect, 'change', () => {
      this.setAttribute('position', positionSelect.value);
      this.removeAttribute('token');
      this.emitChange();
    });
    this.listen(tokenSelect, 'change', () => {
      this.setAttribute('token', tokenSelect.value);
      this.emitChange();
    });
    const figure = el('div', { class: 'figure' });
    const barSlot = el('div');
    const captionLine = el('p', { class: 'caption' });
    figure.append(barSlot, captionLine);
    content.append(el('p', { class: 'title' }, 'Direct logit attribution: what writes the chosen logit'), field.element, controls, figure);
    return { field, positionSelect, tokenSelect, barSlot, captionLine };
  }

  private request(model: LoadedTransformer, tokens: number[]): { position: number; token: number | undefined } {
    const T = tokens.length;
    const rawP = this.getAttribute('position');
    let position = T - 1;
    if (rawP !== null && rawP.trim() !== '') {
      const p = Number(rawP);
      if (!Number.isInteger(p) || p < 0) throw new WidgetInputError(`attribute position="${rawP}" must be an integer from 0 to ${T - 1}`);
      position = Math.min(p, T - 1);
    }
    const rawT = this.getAttribute('token');
    let token: number | undefined;
    if (rawT !== null && rawT.trim() !== '') {
      const ids = tokenize(model, rawT, 'attribute token');
      if (ids.length !== 1) throw new WidgetInputError(`attribute token="${rawT}" must be one token`);
      token = ids[0];
    }
    return { position, token };
  }

  protected renderContent(model: LoadedTransformer): void {
    this.parts.field.sync(model);
    const tokens = this.parts.field.tokens(model);
    const { position, token } = this.request(model, tokens);
    // No repeated random sequences (sequences 0): the ablation and induction parts of the analysis,
    // which this figure does not show, are skipped (their default, 32, would cost 32 forward passes
    // per update; for a long context and a large vocabulary even one is beyond the core's bound).
    // In the worker, the first of a model too (an analysis runs the model several times: 8–14 ms in
    // WASM, over the 4 ms of an update); until it arrives the figure keeps the last attribution (of
    // a new model: a note) and says what it computes.
    const key = `dla:${tokens.join(',')}|${position}|${token ?? ''}`;
    const request = { prompt: tokens, position, ...(token === undefined ? {} : { token }), sequences: 0 };
    const analysis = this.analyzedInWorker(model, key, request);
    if (!analysis) {
      const waiting = `Computing the attribution at position ${position}…`;
      if (this.parts.captionLine.textContent !== waiting) this.parts.captionLine.textContent = waiting;
      if (this.shown?.model !== model) this.show(this.parts.barSlot, el('p', { class: 'waiting' }, waiting));
      return;
    }
    this.fillSelects(model, analysis);
    const d = analysis.direct_logit_attribution;
    const name = tokenName(model.config, analysis.token);
    const heads = d.heads.flatMap((row, l) => row.map((v, h) => ({ v, l, h })));
    const top = [...heads].sort((a, b) => Math.abs(b.v) - Math.abs(a.v)).slice(0, 3);
    const text =
      `The logit of ${name} at position ${analysis.position} is ${formatNumber(d.logit, 3)}: token embedding ${formatNumber(d.embed, 3)}` +
      (model.config.positional_embedding === 'standard' ? `, positional embedding ${formatNumber(d.pos_embed, 3)}` : '') +
      `; the heads writing most: ${top.map((t) => `${headName(t.l, t.h)} ${formatNumber(t.v, 3)}`).join(', ')}.`;
    this.shown = { analysis, model, text };
    this.show(
      this.parts.barSlot,
      this.fragment(model, `dla:${tokens.join(',')}|${analysis.position}|${analysis.token}`, () => {
        const svg = drawnSvg(this.scene(model, analysis), false);
        svg.setAttribute('aria-label', text);
        return svg;
      }),
    );
    if (this.parts.captionLine.textContent !== text) this.parts.captionLine.textContent = text;
  }

  private fillSelects(model: LoadedTransformer, a: TransformerAnalysis): void {
    const pKey = a.tokens.join(',');
    if (needsBuild(this.parts.positionSelect, `${model.version}|${pKey}`)) {
      this.parts.positionSelect.replaceChildren(
        ...a.tokens.map((t, p) => el('option', { value: String(p) }, `${p}: ${tokenName(model.config, t)}`)),
      );
    }
    this.parts.positionSelect.value = String(a.position);
    const logits = logitsAt(a, a.position);
    const order = Array.from(logits, (_, t) => t)
      .sort((x, y) => logits[y] - logits[x])
      .slice(0, MENU_TOKENS);
    if (!order.includes(a.token)) order.push(a.token);
    const tKey = `${model.version}|${pKey}|${a.position}|${order.join(',')}`;
    if (needsBuild(this.parts.tokenSelect, tKey)) {
      // The options per position are built once (a reader moving between positions re-inserts them).
      this.parts.tokenSelect.replaceChildren(
        ...this.cached(model, `options:${tKey}`, () =>
          order.map((t, i) =>
            el(
              'option',
              { value: String(t) },
              `${tokenName(model.config, t)} (logit ${formatNumber(logits[t], 2)}${i === 0 ? ', top' : ''})`,
            ),
          ),
        ),
      );
    }
    this.parts.tokenSelect.value = String(a.token);
  }

  private rows(model: LoadedTransformer, a: TransformerAnalysis): BarRow[] {
    const d = a.direct_logit_attribution;
    const rows: BarRow[] = [{ label: 'embedding', value: d.embed, data: { component: 'embed' } }];
    if (model.config.positional_embedding === 'standard')
      rows.push({ label: 'position', value: d.pos_embed, data: { component: 'pos_embed' } });
    d.heads.forEach((row, l) =>
      row.forEach((v, h) => rows.push({ label: headName(l, h), value: v, data: { layer: String(l), head: String(h) } })),
    );
    d.attention_bias.forEach((v, l) => rows.push({ label: `L${l} bias`, value: v, data: { component: `b_O.${l}` } }));
    rows.push({ label: 'other biases', value: d.constant, data: { component: 'constant' } });
    rows.push({ label: 'logit = sum', value: d.logit, strong: true, data: { component: 'logit' } });
    return rows;
  }

  private scene(model: LoadedTransformer, a: TransformerAnalysis): Scene {
    const c = this.themeColours();
    const rows = this.rows(model, a);
    const heading = `logit of ${tokenName(model.config, a.token)} at position ${a.position}, by component (nats)`;
    return signedBarScene(c, heading, rows, 96, 'Direct logit attribution');
  }

  protected describe(): string {
    return this.shown?.text ?? '';
  }

  /** The state with the core's numbers behind the figure (null before the model has loaded). */
  get figureData(): Record<string, unknown> | null {
    const state = this.state;
    if (!this.shown || state === null) return null;
    const s = this.shown;
    return { ...state, direct_logit_attribution: s.analysis.direct_logit_attribution };
  }

  figures(): WidgetFigure[] {
    return [
      {
        name: 'attribution',
        label: 'Direct logit attribution',
        scene: () => {
          const s = this.exportable(this.shown);
          return this.scene(s.model, s.analysis);
        },
      },
    ];
  }
}

export interface HeadlabTransformerAttribution extends AttributeProperties<typeof HeadlabTransformerAttribution.attributes> {}
