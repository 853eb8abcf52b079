// headlab/astro: the Astro integration, `integrations: [mdx(), headlab()]` in astro.config.mjs.
// After `astro build` has written the site, every page's <headlab-*> elements are prerendered in
// place (site/ssr/cli.js renderFolder over the build's output folder: a declarative shadow root and a
// light-DOM figure with its summary per element, their sheets in dist/headlab-snapshot/), so a
// reader without JavaScript, a feed reader or a search engine sees every figure, and the live
// widget replaces it without moving the page. The renderer (and happy-dom) is loaded only then.
import { fileURLToPath } from 'node:url';

/**
 * The integration. options: maxWidth and margin (px) of the column the figures sit in, as
 * `headlab render --max-width --margin` (default: no maximum, 8 px either side).
 */
export default function headlab(options = {}) {
  return {
    name: 'headlab',
    hooks: {
      'astro:build:done': async ({ dir, logger }) => {
        const { renderFolder } = await import('./cli.js');
        const r = await renderFolder(fileURLToPath(dir), { column: { maxWidth: options.maxWidth, margin: options.margin } });
        for (const line of r.skipped) logger?.warn?.(`not prerendered (the live widget will show it): ${line}`);
        logger?.info?.(`${r.elements} figures prerendered on ${r.pages} pages in ${r.seconds.toFixed(1)} s`);
      },
    },
  };
}
