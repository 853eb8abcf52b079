// headlab/eleventy: the Eleventy plugin (`eleventyConfig.addPlugin(headlab, options)`), a transform
// prerendering every <headlab-*> element of each HTML page written (site/ssr/eleventy.js).

export interface HeadlabEleventyOptions {
  /** The widest the figures' column gets, in px (default: no maximum). */
  maxWidth?: number;
  /** The page's margin either side of the column, in px (default 8, a plain body's). */
  margin?: number;
  /** Eleventy's output folder, where headlab-snapshot/ is written (default: Eleventy's own, else `_site`). */
  output?: string | (() => string);
  /** The file the elements' data files resolve against (default: the written page, `outputPath`). */
  url?: (outputPath: string) => string;
}

/** What the plugin uses of Eleventy's configuration object. */
export interface HeadlabEleventyConfig {
  addTransform(name: string, transform: (this: unknown, content: string, outputPath: string) => unknown): unknown;
  directories?: { output?: string };
  dir?: { output?: string };
}

/** The plugin. */
export default function headlab(eleventyConfig: HeadlabEleventyConfig, options?: HeadlabEleventyOptions): void;

/** The transform alone, as addTransform calls it: the page with its elements prerendered (any other output as it is). */
export function headlabTransform(options?: HeadlabEleventyOptions): (content: string, outputPath: string) => Promise<string>;
