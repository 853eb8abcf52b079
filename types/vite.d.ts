// headlab/vite: the Vite plugin (`plugins: [headlab()]`), prerendering every <headlab-*> element of
// each HTML page at `vite build` (site/ssr/vite.js); the sheets go to <outDir>/headlab-snapshot/.

export interface HeadlabViteOptions {
  /** The widest the figures' column gets, in px (default: no maximum). */
  maxWidth?: number;
  /** The page's margin either side of the column, in px (default 8, a plain body's). */
  margin?: number;
}

/** A Vite plugin (structurally: it is passed to Vite's `plugins`). */
export interface HeadlabVitePlugin {
  name: 'headlab';
  apply: 'build';
  configResolved(config: { root: string; base: string; publicDir: string; logger: { warn(message: string): void } }): void;
  transformIndexHtml: { order: 'post'; handler(html: string, ctx: { filename: string; path: string }): Promise<string> };
  generateBundle: {
    order: 'post';
    handler(this: { emitFile(file: { type: 'asset'; fileName: string; source: string }): string }): void;
  };
}

export default function headlab(options?: HeadlabViteOptions): HeadlabVitePlugin;
