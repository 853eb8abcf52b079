// headlab/rehype: a rehype plugin (markdown and MDX pipelines: unified, Astro's markdown and mdx(),
// @next/mdx…) that prerenders every <headlab-*> element of each document's tree with headlab/ssr's
// renderer: a declarative shadow root and a light-DOM figure with its summary (site/ssr/rehype.js).

/** The document the plugin is handed (a vfile): its path names the page's data files' folder. */
export interface HeadlabRehypeFile {
  path?: string;
  cwd?: string;
}

export interface HeadlabRehypeOptions {
  /**
   * The page's file path or file: URL against which the elements' data files (src, config, …)
   * resolve, or a function of the document giving it (default: the document's own path).
   */
  url?: string | ((file: HeadlabRehypeFile) => string);
  /**
   * The folder the site serves at its root: a URL from the root (`/data/m.json`) names a file of
   * it (default `public` in the working folder, if there is one; false: none).
   */
  root?: string | false;
  /** The widest the figures' column gets, in px (default: no maximum). */
  maxWidth?: number;
  /** The page's margin either side of the column, in px (default 8, a plain body's). */
  margin?: number;
  /**
   * Where each element tag's snapshot stylesheet is written (default `public/headlab-snapshot`
   * in the working folder); false: not written (the document's `data.headlabStylesheets`, a
   * Map of tag to CSS, holds them).
   */
  stylesheetDir?: string | false;
  /** The sheet's URL in the page (default `/headlab-snapshot/<tag>.css`). */
  stylesheetHref?: (tag: string) => string;
  /**
   * The URL of a canvas figure's picture (a PNG named by its content), written beside the sheets
   * (default `/headlab-snapshot/<name>`; with stylesheetDir false, the document's
   * `data.headlabImages`, a Map of name to bytes, holds them).
   */
  imageHref?: (name: string) => string;
}

/** A tree as the plugin reads it (hast, with MDX's JSX nodes). */
export interface HeadlabRehypeTree {
  type: string;
}

/** The plugin: `.use(rehypeHeadlab, options)`; its transformer is asynchronous (use `process`, not `processSync`). */
export default function rehypeHeadlab(options?: HeadlabRehypeOptions): (tree: HeadlabRehypeTree, file: HeadlabRehypeFile) => Promise<void>;
