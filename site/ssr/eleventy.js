// headlab/eleventy: the Eleventy plugin (`eleventyConfig.addPlugin(headlab, { maxWidth, margin })`
// in eleventy.config.js). A transform prerenders the <headlab-*> elements of each HTML page Eleventy
// writes (headlab/ssr's renderPage, the one renderer): a declarative shadow root and a light-DOM
// figure with its summary per element, so the page shows every figure without JavaScript and the
// live widget replaces it without moving the page. Each element tag's snapshot sheet is written to
// <output>/headlab-snapshot/<tag>.css (a canvas figure's picture beside it) and linked from each
// page by a relative URL. Eleventy may
// run transforms concurrently; renderPage renders one page at a time.
import fs from 'node:fs';
import path from 'node:path';

/**
 * The transform alone: `transform(content, outputPath)` returns the page with its elements
 * prerendered (any other output as it is), as Eleventy's addTransform calls it.
 * options: maxWidth, margin (the figures' column, px: default no maximum, 8);
 * output (Eleventy's output folder, where headlab-snapshot/ goes, or a function giving it: default `_site`);
 * url(outputPath) (the file against which the elements' data files resolve: default the
 * written page itself, so a relative src names a file of the built site).
 */
export function headlabTransform(options = {}) {
  const perTag = new Map();
  const written = new Map();
  return async function transform(content, outputPath) {
    if (typeof outputPath !== 'string' || !outputPath.endsWith('.html') || typeof content !== 'string' || !/<headlab-[a-z-]+/.test(content))
      return content;
    const { bodyColumn, renderPage } = await import('./render.js');
    const output = path.resolve((typeof options.output === 'function' ? options.output() : options.output) ?? '_site');
    const page = path.resolve(outputPath);
    const sheets = path.join(output, 'headlab-snapshot');
    const rel = path.relative(path.dirname(page), sheets).split(path.sep).join('/') || '.';
    const out = await renderPage(content, {
      url: options.url ? options.url(outputPath) : page,
      // A URL from the site's root (`/data/m.json`) names a file of the output folder.
      root: output,
      columnWidth: bodyColumn({ maxWidth: options.maxWidth, margin: options.margin }),
      stylesheetHref: (tag) => `${rel}/${tag}.css`,
      imageHref: (name) => `${rel}/${name}`,
      perTag,
    });
    for (const e of out.errors)
      console.warn(
        `headlab: ${outputPath}: <${e.tag}>${e.id ? ` id="${e.id}"` : ''} not prerendered (the live widget will show it): ${e.message}`,
      );
    // A canvas figure's picture (named by its content: written once).
    for (const [name, bytes] of out.images ?? []) {
      if (written.has(name)) continue;
      fs.mkdirSync(sheets, { recursive: true });
      fs.writeFileSync(path.join(sheets, name), bytes);
      written.set(name, true);
    }
    // Each tag's sheet holds what every page so far needs: rewritten when it grew.
    for (const [tag, css] of out.stylesheets) {
      if (written.get(tag) === css) continue;
      fs.mkdirSync(sheets, { recursive: true });
      fs.writeFileSync(path.join(sheets, `${tag}.css`), css);
      written.set(tag, css);
    }
    return out.html;
  };
}

/**
 * The plugin: options as headlabTransform's; the output folder is Eleventy's own unless given
 * (read when the first page is written: a config file or the command line may set it after the
 * plugin is added).
 */
export default function headlab(eleventyConfig, options = {}) {
  const output = () => options.output ?? eleventyConfig.directories?.output ?? eleventyConfig.dir?.output ?? '_site';
  const transform = headlabTransform({ ...options, output });
  eleventyConfig.addTransform('headlab', async function (content, outputPath) {
    return transform(content, outputPath ?? this?.page?.outputPath ?? this?.outputPath);
  });
}
