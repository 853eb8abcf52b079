// headlab/vite: the Vite plugin (`plugins: [headlab()]` in vite.config.js). At `vite build` each
// HTML page's <headlab-*> elements are prerendered into it (headlab/ssr's renderPage, after
// Vite's own changes to the page: transformIndexHtml, order "post"): a declarative shadow root and
// a light-DOM figure with its summary per element, so the built page shows every figure without
// JavaScript and the live widget replaces it without moving the page. The snapshot sheets (one
// per element tag) are emitted as <outDir>/headlab-snapshot/<tag>.css, a canvas figure's picture beside them. The dev server is left
// alone (its pages go live as they load). The renderer (and happy-dom) is loaded at build only.
import path from 'node:path';

/**
 * The plugin. options: maxWidth and margin (px) of the column the figures sit in, as headlab/astro's
 * (default: no maximum, 8 px either side, a plain page's body).
 */
export default function headlab(options = {}) {
  let config = null;
  // One sheet per tag for every page of the build (render.js's perTag): the last render's set holds them all.
  const perTag = new Map();
  let stylesheets = new Map();
  const images = new Map();
  return {
    name: 'headlab',
    apply: 'build',
    configResolved(resolved) {
      config = resolved;
    },
    transformIndexHtml: {
      order: 'post',
      async handler(html, ctx) {
        if (!/<headlab-[a-z-]+/.test(html)) return html;
        const { bodyColumn, renderPage } = await import('./render.js');
        // The page's data files (an element's src, config…) as the built site serves them: Vite
        // copies public/ to the output as is, so a page's relative URL names a file under it.
        const page = path.join(
          config?.publicDir || config?.root || process.cwd(),
          path.relative(config?.root ?? process.cwd(), ctx.filename),
        );
        const base = config?.base ?? '/';
        const out = await renderPage(html, {
          url: page,
          // A URL from the site's root (`/data/m.json`) names a file of public/.
          root: config?.publicDir || undefined,
          columnWidth: bodyColumn({ maxWidth: options.maxWidth, margin: options.margin }),
          stylesheetHref: (tag) => `${base}headlab-snapshot/${tag}.css`,
          imageHref: (name) => `${base}headlab-snapshot/${name}`,
          perTag,
        });
        stylesheets = out.stylesheets;
        for (const [name, bytes] of out.images ?? []) images.set(name, bytes);
        for (const e of out.errors)
          config?.logger?.warn(
            `headlab: ${ctx.path}: <${e.tag}>${e.id ? ` id="${e.id}"` : ''} not prerendered (the live widget will show it): ${e.message}`,
          );
        return out.html;
      },
    },
    generateBundle: {
      // After Vite's HTML plugin has written the pages (their "post" transforms run in its generateBundle).
      order: 'post',
      handler() {
        for (const [tag, css] of stylesheets) this.emitFile({ type: 'asset', fileName: `headlab-snapshot/${tag}.css`, source: css });
        for (const [name, bytes] of images) this.emitFile({ type: 'asset', fileName: `headlab-snapshot/${name}`, source: bytes });
      },
    },
  };
}
