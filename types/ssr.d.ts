// headlab/ssr: every <headlab-*> element of a page rendered in Node (no browser) into the markup
// the live element draws first: a declarative shadow root and a light-DOM figure with its summary.

/** An element that shows a message instead of its figure (a bad attribute, a missing data file). */
export interface RenderError {
  tag: string;
  id: string;
  message: string;
}

export interface RenderOptions {
  /** The page's file path or file: URL; the elements' data files (src, config, …) resolve against it. */
  url?: string;
  /** The folder served as the site's root, when the page is one of its files: a URL from the root (`/data/m.json`) names a file of it. */
  root?: string;
  /** Where the page links each element's snapshot stylesheet (default `headlab-snapshot/<tag>.css`). */
  stylesheetHref?: (tag: string) => string;
  /** Where the page finds a canvas's picture, `canvas-<hash>.png` (default `headlab-snapshot/<name>`). */
  imageHref?: (name: string) => string;
  /** Window widths (px) each element is drawn at (default 320, 360, 720, 1000, 1280), each drawing shown from its width up to the next. */
  widths?: number[];
  /** The element's width (px) in a window `windowWidth` px wide (default: the window less a plain page's 8 px margins). */
  columnWidth?: (windowWidth: number, element: Element) => number;
  /** Shared by the pages of one site, so that each tag has one stylesheet for all of them. */
  perTag?: Map<string, unknown>;
}

export interface RenderResult {
  /** The page with each element's snapshot written inside it. */
  html: string;
  /** Each element tag's snapshot stylesheet, to write where stylesheetHref says. */
  stylesheets: Map<string, string>;
  /** The canvases' pictures (PNG bytes by name), to write where imageHref says. */
  images: Map<string, Uint8Array>;
  /** How many elements were rendered. */
  elements: number;
  errors: RenderError[];
}

/** Renders every headlab-* element of `html` (a whole page or a fragment) in its default state. */
export function renderPage(html: string, options?: RenderOptions): Promise<RenderResult>;

/**
 * `html` with each paragraph that holds only figures (whitespace aside) replaced by them: markdown
 * writes an element on a line of its own as raw HTML in a <p>, which a browser closes at the
 * figure's light-DOM copy. renderPage does this first; <headlab-value> stays in its sentence.
 */
export function unwrapFigures(html: string): string;
