// Base of the figures that read a model loaded once per page (docs/model-pattern.md): the
// max-digit figures (widgets/max-digit/widget.ts) and the transformer figures
// (widgets/transformer/widget.ts) extend it. It binds the figure to its model source, shows a
// note while the model loads and the source's message when it could not be loaded, names the
// model under the figure, keeps the core's results and the drawn nodes per model version, and
// re-reads the theme's colours when the colour scheme changes.
//
// build() lays out, in order: the waiting note, the content (buildContent), the model note and
// the export menu. render() draws only once the source is ready; until then the content is
// hidden and the waiting note shown.
import { HeadlabElement, WidgetInputError, defineAttributes, el, shownIn, text, type AttributeTable } from './headlab-element.js';
import { VersionedCache } from './memo.js';

/**
 * CSS for what the base builds (the waiting and model notes) and for the fields of its figures
 * (bindField marks an invalid one aria-invalid); a family's sheet ends with it, so the invalid
 * border wins over the family's own field border.
 */
export const MODEL_FIGURE_CSS = /* css */ `
  .model-note { color: var(--hl-muted); font-size: 0.85em; margin: 0.4rem 0 0; }
  .waiting { color: var(--hl-muted); }
  input[aria-invalid="true"] { border-color: var(--hl-bad); border-width: 2px; }
`;

/** What a figure needs of a loaded model. */
export interface FigureModel {
  /** Increases with every replacement (caches are keyed on it). */
  readonly version: number;
  /** Where the model comes from, for the note under the figure. */
  readonly label: string;
}

/** A page's model as figures read it: an EventTarget firing `change` when its status or model changes. */
export interface FigureModelSource<M> extends EventTarget {
  status: 'idle' | 'loading' | 'ready' | 'failed';
  /** The reason when status is 'failed'. */
  failure: string;
  model: M | null;
}

/** What ModelFigure's build() lays out around the figure's own parts (in its parts, as `frame`). */
export interface ModelFrame {
  /** Shown while the model loads. */
  waitNote: HTMLParagraphElement;
  /** The figure's controls and drawings (buildContent), hidden while the model loads. */
  content: HTMLDivElement;
  modelNote: HTMLParagraphElement;
  exports: HTMLDivElement;
}

/** A model figure's parts: those its buildContent() returns, and the frame around them. */
export type FigureParts<Parts extends object> = Parts & { readonly frame: ModelFrame };

/**
 * Common to the figures that read a model loaded once per page (the max-digit and transformer
 * figures): attribute `model` names the element that holds it.
 */
export abstract class ModelFigure<M extends FigureModel, State = unknown, Parts extends object = object> extends HeadlabElement<
  State,
  FigureParts<Parts>
> {
  static attributes: AttributeTable = defineAttributes({
    model: text({
      property: false,
      doc: 'Id of the model element the figure reads (default: a max-digit figure the shipped seed-0 weights, a transformer figure the enclosing <headlab-transformer-model>).',
    }),
  });
  /** How many inputs' core results are kept per model (cached()). */
  protected static cachedInputs = 128;
  protected source: FigureModelSource<M> | null = null;
  /** What the bound source was found by (an id, an element); undefined before the first bind. */
  private boundBy: unknown = undefined;
  private readonly onSource = () => this.sourceChanged();
  /** Core results per input, for the current model: a reader toggling between two inputs costs no core call. */
  protected readonly memo = new VersionedCache<unknown>((this.constructor as typeof ModelFigure).cachedInputs);
  /** Drawn figures per input (theme and model included in the key): going back to an input costs no drawing. */
  private readonly fragments = new VersionedCache<Node>(64);
  /** Shapes drawn in the theme's colours per input (labels over a canvas): dropped when the colour scheme changes. */
  private readonly themed = new VersionedCache<unknown>(64);

  /** The model now shown, or null while it loads. */
  get currentModel(): M | null {
    return this.source?.status === 'ready' ? this.source.model : null;
  }

  /** What names this figure's source now (an id, an enclosing element); throws WidgetInputError when nothing does. */
  protected abstract sourceKey(): unknown;
  /** The source that `key` names (called when the key changes). */
  protected abstract sourceFor(key: unknown): FigureModelSource<M>;
  /** The sentence under the figure that names `model`. */
  protected abstract modelNoteText(model: M): string;
  /** Fills `content` with the widget's controls and figures (called once per build) and returns them, its parts. */
  protected abstract buildContent(content: HTMLDivElement): Parts;
  /** Brings the content up to date with the model and the state. */
  protected abstract renderContent(model: M): void;
  /** The text alternative of the figure for `model` (called after each render). */
  protected abstract describe(model: M): string;

  /** The source fired `change` (loaded, failed, replaced): by default one render at the next frame. */
  protected sourceChanged(): void {
    this.requestRender();
  }

  /** The source `key` names was bound (first build, or the figure now names another): the caches are already empty. */
  protected sourceBound(_key: unknown): void {}

  /** Draws `model` (ready): renderContent by default; a family base adds its checks around it. */
  protected drawModel(model: M): void {
    this.renderContent(model);
  }

  /** The summary while the model loads. */
  protected loadingSummary(): string {
    return 'The model is loading.';
  }

  /** Forgets every kept core result and drawn node (the model they were computed from is gone). */
  protected forgetModel(): void {
    this.memo.clear();
    this.fragments.clear();
    this.themed.clear();
  }

  /** `compute()` for `key` under the current model, computed once (at most cachedInputs inputs kept). */
  protected cached<T>(model: M, key: string, compute: () => T): T {
    return this.memo.get(model.version, key, compute);
  }

  /**
   * `compute()` for `key` under the current model and colour scheme, computed once (at most 64
   * kept): what is drawn in the theme's colours and not as a fragment (shapes for an overlay).
   */
  protected cachedThemed<T>(model: M, key: string, compute: () => T): T {
    return this.themed.get(model.version, key, compute);
  }

  /** The node built by `build()` for `key` under the current model and theme, built once (at most 64 kept). */
  protected fragment<T extends Node>(model: M, key: string, build: () => T): T {
    return this.fragments.get(model.version, key, build);
  }

  /** Shows `node` as the only child of `slot`. */
  protected show(slot: Element, node: Node): void {
    if (slot.firstChild !== node || slot.childNodes.length !== 1) slot.replaceChildren(node);
  }

  /** The `type` node a render showed in `slot` (shownIn), for an export: an error before the model has loaded. */
  protected shownFor<T extends Node>(slot: Element, type: abstract new (...args: never[]) => T): T {
    return this.exportable(shownIn(slot, type));
  }

  /** What the last render showed; an export before the model has loaded is an author-facing error. */
  protected exportable<T>(shown: T | null): T {
    if (shown === null) throw new WidgetInputError('nothing to export before the model has loaded');
    return shown;
  }

  /** Binds to the source that sourceKey() names, unless it is bound already. */
  private resolveSource(): void {
    const key = this.sourceKey();
    if (this.source && key === this.boundBy) return;
    this.source?.removeEventListener('change', this.onSource);
    this.boundBy = key;
    this.source = this.sourceFor(key);
    this.source.addEventListener('change', this.onSource);
    this.forgetModel();
    this.sourceBound(key);
  }

  /** updateComplete waits for the model (a failed load shows an error, which completes it too). */
  protected get settled(): boolean {
    return this.currentModel !== null;
  }

  /** The prerendered snapshot stays until the model is ready (or has failed, which the widget then says). */
  protected snapshotReplaceable(): boolean {
    return !this.source || this.source.status === 'ready' || this.source.status === 'failed';
  }

  /** Drawn nodes carry the old colours: drop them and draw again. */
  protected themeChanged(): void {
    this.fragments.clear();
    this.themed.clear();
    super.themeChanged();
  }

  disconnectedCallback(): void {
    this.source?.removeEventListener('change', this.onSource);
    this.source = null;
    this.boundBy = undefined;
    super.disconnectedCallback();
  }

  protected build(): FigureParts<Parts> {
    const waitNote = el('p', { class: 'waiting', role: 'status' }, 'Loading the model…');
    const content = el('div', { class: 'content' });
    const modelNote = el('p', { class: 'model-note' });
    const own = this.buildContent(content);
    const exports = this.exportControls();
    this.body.append(waitNote, content, modelNote, exports);
    this.resolveSource();
    return { ...own, frame: { waitNote, content, modelNote, exports } };
  }

  protected render(): void {
    this.resolveSource();
    const source = this.source!;
    if (source.status === 'failed') throw new WidgetInputError(`The model could not be loaded: ${source.failure}`);
    const model = this.currentModel;
    const { waitNote, content, modelNote, exports } = this.parts.frame;
    waitNote.hidden = model !== null;
    content.hidden = model === null;
    // The model note and the Download menu appear with the figure: shown under the waiting note
    // they moved down by the figure's height when it arrived (a layout shift inside the element,
    // which the space headlab.css reserves cannot prevent).
    modelNote.hidden = model === null;
    exports.hidden = model === null;
    if (!model) {
      modelNote.textContent = '';
      return;
    }
    this.drawModel(model);
    const note = this.modelNoteText(model);
    if (modelNote.textContent !== note) modelNote.textContent = note;
  }

  protected summarize(): string {
    const model = this.currentModel;
    return model ? this.describe(model) : this.loadingSummary();
  }
}
