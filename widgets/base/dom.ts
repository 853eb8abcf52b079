// DOM helpers of the widgets: elements built from text (never markup), SVG text kept at its
// CSS size when a chart is drawn narrower than its viewBox, scroll boxes that announce
// themselves when they overflow, and the ::part() names every widget's pieces carry.

/**
 * What each element's content was last built for (a key its widget makes from the model and the
 * prompt), kept off the DOM: a loaded model's version is a page-wide counter (how many models the
 * page has loaded before it), and as an attribute it made the same figure's markup differ with
 * the order the page loaded its models in.
 */
const builtFor = new WeakMap<Element, string>();

/** True when `element`'s content was not yet built for `key` (and notes it as built for it). */
export function needsBuild(element: Element, key: string): boolean {
  if (builtFor.get(element) === key) return false;
  builtFor.set(element, key);
  return true;
}

/** Creates an element with attributes and optional text (text, never markup). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * A <select name="`name`"> inside a <label> reading `label`, appended to `controls`, with the
 * options [value, text] given (a figure fills the others itself).
 */
export function labelledSelect(controls: HTMLElement, label: string, name: string, options: [string, string][] = []): HTMLSelectElement {
  const l = el('label', {}, label);
  const select = el('select', { name });
  select.append(...options.map(([value, text]) => el('option', { value }, text)));
  l.append(select);
  controls.append(l);
  return select;
}

/** Sets --hl-text-zoom on an SVG drawn at `width` × `height` CSS px so its text keeps its CSS size. */
export function fitSvgText(svg: SVGSVGElement, width: number, height: number): void {
  const vb = svg.viewBox.baseVal;
  if (!vb || !vb.width || !width) return;
  // preserveAspectRatio "meet" (the default): the smaller of the two scales applies.
  const scale = vb.height && height ? Math.min(width / vb.width, height / vb.height) : width / vb.width;
  const zoom = scale > 0 && scale < 1 ? (1 / scale).toFixed(3) : '';
  if (svg.style.getPropertyValue('--hl-text-zoom') === zoom) return;
  if (zoom) svg.style.setProperty('--hl-text-zoom', zoom);
  else svg.style.removeProperty('--hl-text-zoom');
}

/**
 * Watches every SVG with a viewBox and every `.scroll` box under a root (observe() again after
 * each render picks up new ones). An SVG drawn narrower than its viewBox shrinks its text with
 * it; `--hl-text-zoom` (1 / scale, at least 1) scales the text back up so it renders at its CSS
 * size (base sheet: `svg text { font-size: calc(12px * var(--hl-text-zoom, 1)) }`). A `.scroll`
 * box whose content is wider than the box becomes a labelled region in the Tab order.
 */
export class LayoutWatcher {
  private resizes: ResizeObserver | null = null;
  private readonly observed = new WeakSet<Element>();

  /** Watches what needs it under `root` (elements not seen before). */
  observe(root: ParentNode): void {
    if (typeof ResizeObserver === 'undefined') return;
    this.resizes ??= new ResizeObserver((entries) => {
      for (const entry of entries) {
        const target = entry.target as Element;
        if (target instanceof SVGSVGElement) fitSvgText(target, entry.contentRect.width, entry.contentRect.height);
        const box = target.classList.contains('scroll') ? target : target.parentElement?.closest('.scroll');
        if (box instanceof HTMLElement) markScrollBox(box);
      }
    });
    // Only new elements: sizes are read in the observer's callback, after layout, never here
    // (a read right after a render's writes would force a layout on every render).
    // The walk skips the inside of each SVG (a drawing of 2,000 cells is not walked on every render).
    const visit = (target: Element) => {
      if (this.observed.has(target)) return;
      if (
        !(target.localName === 'svg' && target.hasAttribute('viewBox')) &&
        !target.classList.contains('scroll') &&
        !target.parentElement?.classList.contains('scroll')
      )
        return;
      this.observed.add(target);
      this.resizes!.observe(target);
    };
    forEachOutsideSvg(root, visit);
  }

  /**
   * Marks every `.scroll` box under `root` now (markScrollBox), reading its layout: for a root
   * just made visible (the widget's body shown in place of its snapshot or placeholder). The
   * observer alone marks a box after the first layout of that frame, and Chromium counts the
   * move between that layout and the one after the callback as a layout shift although only the
   * second is painted: an overflowing table's caption first as wide as the table, then, held to
   * the box, one line taller, every row below it moved (22 px, 0.022 layout shift, for a
   * max-digit figure's tables at 360 px). Reading the boxes here costs the frame's layout, done
   * earlier; the observer then finds them marked.
   */
  markScrollBoxesNow(root: ParentNode): void {
    const boxes: HTMLElement[] = [];
    forEachOutsideSvg(root, (node) => {
      if (node instanceof HTMLElement && node.classList.contains('scroll')) boxes.push(node);
    });
    // Every box read before any is written: one layout, not one per box (a caption held to its
    // box changes heights, never another box's width).
    const sizes = boxes.map((box) => ({ scrollWidth: box.scrollWidth, clientWidth: box.clientWidth }));
    boxes.forEach((box, i) => markScrollBox(box, sizes[i]));
  }

  /** Stops watching (the element left the page); observe() starts again. */
  disconnect(): void {
    this.resizes?.disconnect();
    this.resizes = null;
  }
}

/**
 * A `.scroll` box whose content is wider than it: a labelled, focusable region (keyboard scrolling)
 * with its visible width in `--hl-scroll-width`; otherwise plain. `size`: the box's widths, read
 * now unless the caller read them already.
 */
export function markScrollBox(
  box: HTMLElement,
  size: { scrollWidth: number; clientWidth: number } = { scrollWidth: box.scrollWidth, clientWidth: box.clientWidth },
): void {
  // Any overflow, a pixel included: a table 1 px wider than its box is cut by that pixel (scrollWidth
  // and clientWidth are both rounded, so a box whose content fits reads as equal).
  const overflows = size.scrollWidth > size.clientWidth;
  // The visible width, for a caption held in view (theme.ts: `.scroll[data-overflows] > table > caption`).
  const width = overflows ? `${size.clientWidth}px` : '';
  if (box.style.getPropertyValue('--hl-scroll-width') !== width) box.style.setProperty('--hl-scroll-width', width);
  if (overflows === box.hasAttribute('data-overflows')) return;
  if (overflows) {
    box.setAttribute('data-overflows', '');
    if (!box.hasAttribute('tabindex')) {
      box.tabIndex = 0;
      box.setAttribute('data-added', 'tabindex');
    }
    if (!box.hasAttribute('role')) box.setAttribute('role', 'region');
    if (!box.hasAttribute('aria-label') && !box.hasAttribute('aria-labelledby')) {
      const caption = box.querySelector('caption')?.textContent?.trim().replace(/\s+/g, ' ');
      box.setAttribute('aria-label', `${caption ? caption.slice(0, 80) : 'Table'} (scrolls sideways)`);
      box.setAttribute('data-added-label', '');
    }
  } else {
    box.removeAttribute('data-overflows');
    if (box.getAttribute('data-added') === 'tabindex') {
      box.removeAttribute('tabindex');
      box.removeAttribute('data-added');
    }
    if (box.getAttribute('role') === 'region') box.removeAttribute('role');
    if (box.hasAttribute('data-added-label')) {
      box.removeAttribute('aria-label');
      box.removeAttribute('data-added-label');
    }
  }
}

/**
 * ::part() names on every widget's main pieces, from the classes and tags the widgets share,
 * so a page can style them without per-widget hooks (docs/embedding.md, "Theme"):
 * title, caption, chart (each SVG figure), table, controls (rows and fieldsets of inputs),
 * button, exports (the download controls).
 */
const PART_SELECTORS: [string, string][] = [
  ['title', '.title'],
  ['caption', '.caption, .note'],
  // An outer SVG: the walks never enter an SVG (forEachOutsideSvg), so no nested one is visited.
  ['chart', 'svg'],
  ['table', 'table'],
  ['controls', '.row, .controls, fieldset'],
  ['button', 'button'],
  ['exports', '.export-menu, .exports'],
];

export function markParts(body: HTMLElement, added?: readonly Element[]): void {
  // One walk of the body's HTML for all the selectors, then each node found matched against each
  // name. An SVG's inside is never walked (no part names a node there): a figure of 2,000 cells
  // made querySelectorAll over the body cost 1–3 ms per render. With `added` (the elements added
  // since the last walk), only their subtrees: a render replacing a few cells' spans walked the
  // whole widget, ≈ 0.5 ms at 8 × 8 tables.
  const visit = (node: Element) => {
    if (!node.matches(ANY_PART)) return;
    for (const [name, selector] of PART_SELECTORS) if (node.matches(selector) && !node.part.contains(name)) node.part.add(name);
  };
  if (added) forEachAddedOutsideSvg(body, added, visit);
  else forEachOutsideSvg(body, visit);
}

/**
 * Calls `visit` for every element under `root` (not `root` itself) in document order, except the
 * descendants of an <svg> (the svg itself is visited): the walks each render makes over a
 * widget's HTML (part names, the boxes to watch for size changes) skip its drawings' nodes.
 */
export function forEachOutsideSvg(root: ParentNode, visit: (node: Element) => void): void {
  for (let child = root.firstElementChild; child; child = child.nextElementSibling) {
    visit(child);
    if (child.namespaceURI !== SVG_NS) forEachOutsideSvg(child, visit);
  }
}

/**
 * forEachOutsideSvg over the subtrees of `added` (each element itself included) that are still
 * under `root`: an element in the SVG namespace other than an <svg> is inside a drawing and
 * skipped, as forEachOutsideSvg skips it; one no longer in `root` (added, then replaced) too.
 * A subtree listed twice (an element added, then its parent) is visited twice; both visitors
 * only act once per node.
 */
export function forEachAddedOutsideSvg(root: Node, added: readonly Element[], visit: (node: Element) => void): void {
  for (const node of added) {
    if (node.namespaceURI === SVG_NS && node.localName !== 'svg') continue;
    if (!root.contains(node)) continue;
    visit(node);
    if (node.namespaceURI !== SVG_NS) forEachOutsideSvg(node, visit);
  }
}
const SVG_NS = 'http://www.w3.org/2000/svg';
const ANY_PART = PART_SELECTORS.map(([, selector]) => selector).join(', ');

/**
 * The node a render put into `slot` (its only child) when it is a `type`, else null: a figure
 * drawn at render time (a table chosen by the input, an SVG made at the first draw) is read back
 * from the slot showing it, rather than kept in a field of its own beside it.
 */
export function shownIn<T extends Node>(slot: Element, type: abstract new (...args: never[]) => T): T | null {
  const node = slot.firstChild;
  return node instanceof type && slot.childNodes.length === 1 ? node : null;
}
