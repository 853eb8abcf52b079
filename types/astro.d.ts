// headlab/astro: the Astro integration (`integrations: [mdx(), headlab()]`), prerendering every
// <headlab-*> element of the built pages after `astro build` (site/ssr/astro.js).

export interface HeadlabAstroOptions {
  /** The widest the figures' column gets, in px (default: no maximum). */
  maxWidth?: number;
  /** The page's margin either side of the column, in px (default 8, a plain body's). */
  margin?: number;
}

export interface HeadlabAstroIntegration {
  name: 'headlab';
  hooks: Record<string, (...args: never[]) => unknown>;
}

export default function headlab(options?: HeadlabAstroOptions): HeadlabAstroIntegration;
